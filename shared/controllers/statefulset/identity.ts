// A stateful pod's identity (stateful_set_utils.go): the ordinal range [start, start+replicas), the name
// `<set>-<ordinal>` and its claims' names, hostname and subdomain, the pod-name and pod-index labels, the
// controller-revision-hash label, and the pod a StatefulSet creates for an ordinal (newStatefulSetPod:
// controller.GetPodFromTemplate, then initIdentity and updateStorage).
import type {
  ControllerRevision,
  PersistentVolumeClaim,
  Pod,
  PodTemplateSpec,
  StatefulSet,
  Volume,
} from '../../kube/api/objects.js';
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import type { ClaimOptions } from '../common/claim.js';
import { POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, STS_API_VERSION, STS_KIND } from './types.js';

/** statefulPodRegex: `(.*)-([0-9]+)$`. */
const STATEFUL_POD = /^(.*)-([0-9]+)$/;

/** getParentNameAndOrdinal: ordinal -1 when the name does not end in `-<int32>`. */
export function parentAndOrdinal(name: string): { parent: string; ordinal: number } {
  const m = STATEFUL_POD.exec(name);
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  return { parent: m[1]!, ordinal: Number.isSafeInteger(n) && n <= 2_147_483_647 ? n : -1 };
}

export const ordinalOf = (pod: Pod): number => parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
export const startOrdinal = (set: StatefulSet): number => set.spec?.ordinals?.start ?? 0;
export const replicasOf = (set: StatefulSet): number => set.spec?.replicas ?? 1;
export const endOrdinal = (set: StatefulSet): number => startOrdinal(set) + replicasOf(set) - 1;
export const podName = (set: StatefulSet, ordinal: number): string => `${set.metadata?.name ?? ''}-${ordinal}`;
export const revisionOfPod = (pod: Pod): string => pod.metadata?.labels?.[REVISION_LABEL] ?? '';

/** getPersistentVolumeClaimName: `<template>-<set>-<ordinal>`, the claim of a template for an ordinal's pod. */
export function claimName(set: StatefulSet, template: PersistentVolumeClaim, ordinal: number): string {
  return `${template.metadata?.name ?? ''}-${set.metadata?.name ?? ''}-${ordinal}`;
}

export function isInOrdinalRange(set: StatefulSet, pod: Pod): boolean {
  const o = ordinalOf(pod);
  return o >= startOrdinal(set) && o <= endOrdinal(set);
}

/** isMemberOf: the pod's name makes it one of the set's (what ClaimPods filters on). */
export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  return parentAndOrdinal(pod.metadata?.name ?? '').parent === set.metadata?.name;
}

// How the set claims (ControllerRefManager): as if it were not being deleted, since the planner itself writes no
// adoption or release while it is, and counts the orphans it would adopt as its own.
export const CLAIM_REVISIONS: ClaimOptions<ControllerRevision> = { ignoreOwnerDeletion: true };

/** getPodsForStatefulSet's claim: selected and named as one of the set's members (isMemberOf). */
export function podClaimOptions(set: StatefulSet): ClaimOptions<Pod> {
  return { filter: (p) => isMemberOf(set, p), ignoreOwnerDeletion: true };
}

/** identityMatches. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod.metadata?.name ?? '');
  return (
    ordinal >= 0 &&
    parent === set.metadata?.name &&
    pod.metadata?.name === podName(set, ordinal) &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    pod.metadata?.labels?.[POD_NAME_LABEL] === pod.metadata?.name
  );
}

/** storageMatches: every claim template is mounted from the ordinal's claim. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  return (set.spec?.volumeClaimTemplates ?? []).every(
    (t) => volumes.get(t.metadata?.name ?? '')?.persistentVolumeClaim?.claimName === claimName(set, t, ordinal),
  );
}

/** updateIdentity on a copy: the pod-name and pod-index labels (the name and namespace are the pod's own). */
export function withIdentity(set: StatefulSet, pod: Pod): Pod {
  const ordinal = ordinalOf(pod);
  const labels = { ...pod.metadata?.labels, [POD_NAME_LABEL]: podName(set, ordinal), [POD_INDEX_LABEL]: `${ordinal}` };
  return { ...pod, apiVersion: 'v1', kind: 'Pod', metadata: { ...pod.metadata, labels } };
}

/** newStatefulSetPod with setPodRevision: the pod for `ordinal` from `template`, at `revision`. */
export function newStatefulPod(set: StatefulSet, template: PodTemplateSpec, ordinal: number, revision: string): Pod {
  const name = podName(set, ordinal);
  const meta = template.metadata;
  const spec = structuredClone(template.spec ?? { containers: [] });
  spec.hostname = name;
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
  spec.volumes = podVolumes(set, ordinal, spec.volumes ?? []);
  const ref = newControllerRef({
    apiVersion: STS_API_VERSION,
    kind: STS_KIND,
    name: set.metadata?.name ?? '',
    uid: set.metadata?.uid ?? '',
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata?.namespace,
      labels: { ...meta?.labels, [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: `${ordinal}`, [REVISION_LABEL]: revision },
      ...(meta?.annotations && { annotations: { ...meta.annotations } }),
      ...(meta?.finalizers && { finalizers: [...meta.finalizers] }),
      ownerReferences: [ref],
    },
    spec,
  };
}

/**
 * updateStorage: a volume per claim template, mounting the ordinal's claim, then the template's other volumes.
 * Upstream ranges over a Go map, so the claim volumes come in no fixed order; here in template order.
 */
function podVolumes(set: StatefulSet, ordinal: number, current: readonly Volume[]): Volume[] {
  const templates = set.spec?.volumeClaimTemplates ?? [];
  const names = new Set(templates.map((t) => t.metadata?.name ?? ''));
  const claims: Volume[] = templates.map((t) => ({
    name: t.metadata?.name ?? '',
    persistentVolumeClaim: { claimName: claimName(set, t, ordinal) },
  }));
  return [...claims, ...current.filter((v) => !names.has(v.name))];
}
