// The leader StatefulSet of a LeaderWorkerSet, as lws v0.9.0's constructLeaderStatefulSetApplyConfiguration builds
// it (leaderworkerset_controller.go, with setControllerReferenceWithStatefulSet and
// controllerutils.GetPVCApplyConfiguration): the object upstream server-side applies (field manager "lws", forced)
// on every reconcile.
//
// One leader pod per group: named after the LeaderWorkerSet, `replicas` leaders in parallel, the leader template (or
// the worker template when there is none) with the worker index "0", the set name and the revision key as labels,
// and the group size (plus exclusive placement, subgroup and UniquePerReplica subdomain settings) as annotations.
// maxUnavailable is maxUnavailable + maxSurge of the LeaderWorkerSet (at least 1): surge groups are replicas of this
// StatefulSet, so its own budget must include them.
import type { PodTemplateSpec, StatefulSet } from '../../kube/api/objects.js';
import { newControllerRef, type Owner } from '../../kube/meta/controller-ref.js';
import { typedPodTemplate } from './typed-json.js';
import { replicasOf, rolloutBudget, sizeOf } from './spec-values.js';
import {
  EXCLUSIVE_KEY_ANNOTATION,
  LWS_API_VERSION,
  LWS_KIND,
  REPLICAS_ANNOTATION,
  REVISION_KEY_LABEL,
  SET_NAME_LABEL,
  SIZE_ANNOTATION,
  SUBDOMAIN_POLICY_ANNOTATION,
  SUBGROUP_EXCLUSIVE_KEY_ANNOTATION,
  SUBGROUP_POLICY_TYPE_ANNOTATION,
  SUBGROUP_SIZE_ANNOTATION,
  SubdomainPolicy,
  WORKER_INDEX_LABEL,
  type LeaderWorkerSet,
} from './types.js';

type ClaimApply = {
  apiVersion: 'v1';
  kind: 'PersistentVolumeClaim';
  metadata: { name?: string; namespace?: string };
  spec: Record<string, unknown>;
};

/** The owner reference of what the LeaderWorkerSet controls. */
export function lwsOwner(lws: LeaderWorkerSet): Owner {
  return { apiVersion: LWS_API_VERSION, kind: LWS_KIND, name: lws.metadata.name ?? '', uid: lws.metadata.uid ?? '' };
}

/**
 * A template as upstream's apply configuration carries it (the Go types' encoding, typed-json.ts: `resources: {}` on
 * each container, unknown fields dropped) with labels and annotations merged in (WithLabels and WithAnnotations
 * overwrite keys).
 */
export function withMetadata(
  template: PodTemplateSpec | undefined,
  labels: Readonly<Record<string, string>>,
  annotations: Readonly<Record<string, string>>,
): PodTemplateSpec {
  const copy = typedPodTemplate(template) as PodTemplateSpec;
  copy.metadata = {
    ...copy.metadata,
    labels: { ...copy.metadata?.labels, ...labels },
    annotations: { ...copy.metadata?.annotations, ...annotations },
  };
  return copy;
}

/**
 * GetPVCApplyConfiguration: each volumeClaimTemplate as a claim of the LeaderWorkerSet's namespace with only its
 * name, access modes, storage class, volume mode and resource requests and limits.
 */
export function claimTemplates(lws: LeaderWorkerSet): ClaimApply[] {
  return (lws.spec.leaderWorkerTemplate.volumeClaimTemplates ?? []).map((pvc) => {
    const spec: Record<string, unknown> = {};
    const s = pvc.spec ?? {};
    if (s.accessModes !== undefined && s.accessModes.length > 0) spec.accessModes = [...s.accessModes];
    if (s.storageClassName !== undefined && s.storageClassName !== null) spec.storageClassName = s.storageClassName;
    if (s.volumeMode !== undefined && s.volumeMode !== null) spec.volumeMode = s.volumeMode;
    const requests = s.resources?.requests;
    const limits = s.resources?.limits;
    if (requests !== undefined || limits !== undefined) {
      spec.resources = {
        ...(requests !== undefined && { requests: { ...requests } }),
        ...(limits !== undefined && { limits: { ...limits } }),
      };
    }
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: pvc.metadata?.name, namespace: lws.metadata.namespace },
      spec,
    };
  });
}

/** The claim templates and retention policy both StatefulSets carry (none: no fields). */
export function claimFields(lws: LeaderWorkerSet): Record<string, unknown> {
  const claims = claimTemplates(lws);
  const retention = lws.spec.leaderWorkerTemplate.persistentVolumeClaimRetentionPolicy;
  return {
    ...(claims.length > 0 && { volumeClaimTemplates: claims }),
    ...(retention !== undefined &&
      retention !== null && {
        persistentVolumeClaimRetentionPolicy: {
          whenDeleted: retention.whenDeleted ?? '',
          whenScaled: retention.whenScaled ?? '',
        },
      }),
  };
}

/** The leader pod's annotations (constructLeaderStatefulSetApplyConfiguration's podAnnotations). */
export function leaderPodAnnotations(lws: LeaderWorkerSet): Record<string, string> {
  const annotations: Record<string, string> = { [SIZE_ANNOTATION]: String(sizeOf(lws)) };
  const lwsAnnotations = lws.metadata.annotations ?? {};
  const exclusive = lwsAnnotations[EXCLUSIVE_KEY_ANNOTATION];
  if (exclusive !== undefined && exclusive !== '') annotations[EXCLUSIVE_KEY_ANNOTATION] = exclusive;
  const subGroup = lws.spec.leaderWorkerTemplate.subGroupPolicy;
  if (subGroup !== undefined && subGroup !== null) {
    annotations[SUBGROUP_POLICY_TYPE_ANNOTATION] = subGroup.subGroupPolicyType ?? '';
    annotations[SUBGROUP_SIZE_ANNOTATION] = String(subGroup.subGroupSize ?? 0);
    const subExclusive = lwsAnnotations[SUBGROUP_EXCLUSIVE_KEY_ANNOTATION];
    if (subExclusive !== undefined && subExclusive !== '')
      annotations[SUBGROUP_EXCLUSIVE_KEY_ANNOTATION] = subExclusive;
  }
  if (lws.spec.networkConfig?.subdomainPolicy === SubdomainPolicy.UniquePerReplica) {
    annotations[SUBDOMAIN_POLICY_ANNOTATION] = SubdomainPolicy.UniquePerReplica;
  }
  return annotations;
}

/** The leader StatefulSet's pod selector: the set name and worker index "0". */
export function leaderSelector(lws: LeaderWorkerSet): Record<string, string> {
  return { [SET_NAME_LABEL]: lws.metadata.name ?? '', [WORKER_INDEX_LABEL]: '0' };
}

/**
 * constructLeaderStatefulSetApplyConfiguration: the leader StatefulSet for this partition, replica count and
 * revision key (rolling-update.ts computes the first two; revision.ts the key).
 */
export function leaderStatefulSet(
  lws: LeaderWorkerSet,
  partition: number,
  replicas: number,
  revisionKey: string,
): StatefulSet {
  const name = lws.metadata.name ?? '';
  const source = lws.spec.leaderWorkerTemplate.leaderTemplate ?? lws.spec.leaderWorkerTemplate.workerTemplate;
  const template = withMetadata(
    source,
    { [WORKER_INDEX_LABEL]: '0', [SET_NAME_LABEL]: name, [REVISION_KEY_LABEL]: revisionKey },
    leaderPodAnnotations(lws),
  );
  const { maxSurge, maxUnavailable } = rolloutBudget(lws);
  // Replicas 0, or maxUnavailable and maxSurge both 0 (the webhook refuses that): still 1.
  const stsMaxUnavailable = Math.max(maxUnavailable + maxSurge, 1);
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name,
      namespace: lws.metadata.namespace,
      labels: { [SET_NAME_LABEL]: name, [REVISION_KEY_LABEL]: revisionKey },
      annotations: { [REPLICAS_ANNOTATION]: String(replicasOf(lws)) },
      ownerReferences: [newControllerRef(lwsOwner(lws))],
    },
    spec: {
      serviceName: name,
      replicas,
      podManagementPolicy: 'Parallel',
      template,
      updateStrategy: {
        type: lws.spec.rolloutStrategy?.type ?? '',
        rollingUpdate: { maxUnavailable: stsMaxUnavailable, partition },
      },
      selector: { matchLabels: leaderSelector(lws) },
      ...claimFields(lws),
    } as StatefulSet['spec'],
  };
}
