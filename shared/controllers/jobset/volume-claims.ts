// volumeClaimPolicies (volume_claim_policy.go of sigs.k8s.io/jobset v0.12.0): claims shared by the replicatedJobs.
//   claims   one PersistentVolumeClaim `<template>-<jobset>` per template of every policy, in the JobSet's namespace,
//            with the template's labels plus jobset.sigs.k8s.io/jobset-name, its annotations and its spec; the
//            JobSet as controller when the policy's retentionPolicy.whenDeleted is Delete (the webhook's default),
//            so the claims go with it; with Retain they stay. Created before the Jobs, each pass, when missing:
//            upstream creates them on every reconcile and ignores AlreadyExists; fleetq reads them first (observe)
//            and creates only the missing ones. A refused create records PVCCreationFailed.
//   volumes  a child Job whose containers or init containers mount a volume named like a template gets the volume
//            `{name: <template>, persistentVolumeClaim: {claimName: <template>-<jobset>}}` (addVolumes).
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import { JOBSET_NAME_KEY } from './labels.js';
import {
  CLAIM_KIND,
  JOBSET_API_VERSION,
  JOBSET_KIND,
  type ClaimTemplate,
  type Job,
  type JobSet,
  type PersistentVolumeClaim,
} from './types.js';

/** GeneratePVCName. */
export function claimName(jobSetName: string, templateName: string): string {
  return `${templateName}-${jobSetName}`;
}

/** The names of the claims its volumeClaimPolicies make, in order. */
export function claimNames(js: JobSet): string[] {
  return (js.spec.volumeClaimPolicies ?? []).flatMap((p) =>
    (p.templates ?? []).map((t) => claimName(js.metadata.name ?? '', t.metadata?.name ?? '')),
  );
}

/** createPVCsIfNecessary's claim for one template. */
export function claimOf(js: JobSet, template: ClaimTemplate, deleteWithJobSet: boolean): PersistentVolumeClaim {
  const meta = template.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: CLAIM_KIND,
    metadata: {
      name: claimName(js.metadata.name ?? '', meta.name ?? ''),
      namespace: js.metadata.namespace ?? '',
      labels: { ...(meta.labels ?? {}), [JOBSET_NAME_KEY]: js.metadata.name ?? '' },
      ...(meta.annotations !== undefined && { annotations: { ...meta.annotations } }),
      ...(deleteWithJobSet && {
        ownerReferences: [
          newControllerRef({
            apiVersion: JOBSET_API_VERSION,
            kind: JOBSET_KIND,
            name: js.metadata.name ?? '',
            uid: js.metadata.uid ?? '',
          }),
        ],
      }),
    },
    spec: (template.spec ?? {}) as PersistentVolumeClaim['spec'],
  };
}

/** reconcileVolumeClaimPolicies: the claims observe found missing (`claims[name] === null`), in order. */
export function missingClaims(
  js: JobSet,
  claims: Readonly<Record<string, PersistentVolumeClaim | null>>,
): PersistentVolumeClaim[] {
  const missing: PersistentVolumeClaim[] = [];
  for (const policy of js.spec.volumeClaimPolicies ?? []) {
    const deleteWithJobSet = policy.retentionPolicy !== undefined && policy.retentionPolicy.whenDeleted === 'Delete';
    for (const template of policy.templates ?? []) {
      const claim = claimOf(js, template, deleteWithJobSet);
      if (claims[claim.metadata?.name ?? ''] === null) missing.push(claim); // undefined: not read, nothing known
    }
  }
  return missing;
}

/** addVolumes: the claim volumes of the templates the Job's pod template mounts. */
export function addClaimVolumes(job: Job, js: JobSet): void {
  const podSpec = job.spec?.template?.spec;
  if (podSpec === undefined) return;
  const mounted = new Set(
    [...(podSpec.containers ?? []), ...(podSpec.initContainers ?? [])].flatMap((c) =>
      (c.volumeMounts ?? []).map((m) => m.name),
    ),
  );
  for (const policy of js.spec.volumeClaimPolicies ?? []) {
    for (const template of policy.templates ?? []) {
      const name = template.metadata?.name ?? '';
      if (!mounted.has(name)) continue;
      podSpec.volumes = [
        ...(podSpec.volumes ?? []),
        { name, persistentVolumeClaim: { claimName: claimName(js.metadata.name ?? '', name) } },
      ];
    }
  }
}
