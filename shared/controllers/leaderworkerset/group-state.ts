// What lws v0.9.0 reads off a group's pods and worker StatefulSet: pkg/utils/pod (ContainerRestarted, PodDeleted,
// LeaderPod, PodRunningAndReady, IsPodReady), pkg/utils/statefulset (GetParentNameAndOrdinal, StatefulsetReady),
// pkg/utils (SortByIndex, Sha1Hash) and the reconciler's getReplicaStates: per group, whether its leader and worker
// StatefulSet are ready and on the current revision.
import { createHash } from 'node:crypto';
import type { Pod, StatefulSet } from '../../kube/api/objects.js';
import { revisionKeyOf } from './revision.js';
import { hasNoWorkers } from './spec-values.js';
import { GROUP_INDEX_LABEL, SET_NAME_LABEL, WORKER_INDEX_LABEL, type LeaderWorkerSet } from './types.js';

/** LeaderPod: worker index "0". */
export const isLeaderPod = (pod: Pod): boolean => pod.metadata?.labels?.[WORKER_INDEX_LABEL] === '0';

/** PodDeleted: a deletion timestamp is set. */
export const isPodDeleted = (pod: Pod): boolean =>
  pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;

/** IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).find((c) => c.type === 'Ready')?.status === 'True';
}

/** PodRunningAndReady: phase Running and Ready. */
export const isPodRunningAndReady = (pod: Pod): boolean => pod.status?.phase === 'Running' && isPodReady(pod);

/** ContainerRestarted: a Running or Pending pod with an init or app container restarted at least once. */
export function hasContainerRestarted(pod: Pod): boolean {
  const phase = pod.status?.phase;
  if (phase !== 'Running' && phase !== 'Pending') return false;
  const restarted = (s: { restartCount?: number }[] | undefined) => (s ?? []).some((c) => (c.restartCount ?? 0) > 0);
  return restarted(pod.status?.initContainerStatuses) || restarted(pod.status?.containerStatuses);
}

/** StatefulsetReady: every replica available and the update finished (current = update revision). */
export function isStatefulSetReady(sts: StatefulSet): boolean {
  return (
    (sts.spec?.replicas ?? 1) === (sts.status?.availableReplicas ?? 0) &&
    (sts.status?.currentRevision ?? '') === (sts.status?.updateRevision ?? '')
  );
}

/** GetParentNameAndOrdinal: `<parent>-<ordinal>` split at its last dash; ordinal -1 when the name has none. */
export function parentNameAndOrdinal(name: string): { parent: string; ordinal: number } {
  const m = /^(.*)-([0-9]+)$/.exec(name);
  if (m === null) return { parent: '', ordinal: -1 };
  const ordinal = Number(m[2]);
  // strconv.ParseInt(…, 10, 32): out of int32 range leaves the ordinal -1 (the parent is still returned).
  return { parent: m[1] ?? '', ordinal: ordinal <= 2147483647 ? ordinal : -1 };
}

/** genGroupUniqueKey (pod webhook): the hex SHA-1 of `<namespace>/<leader pod name>`, the group-key label. */
export function groupUniqueKey(namespace: string, leaderPodName: string): string {
  return createHash('sha1').update(`${namespace}/${leaderPodName}`).digest('hex');
}

/** strconv.Atoi: an optional sign and decimal digits, else null. */
export function atoi(s: string | undefined): number | null {
  if (s === undefined || !/^[+-]?[0-9]+$/.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

/** SortByIndex: `length` slots, each item put at its index (an item without one, or past the end, left out; the last wins). */
export function sortByIndex<T>(items: readonly T[], indexOf: (item: T) => number | null, length: number): (T | null)[] {
  const slots: (T | null)[] = Array.from({ length: Math.max(length, 0) }, () => null);
  for (const item of items) {
    const index = indexOf(item);
    if (index === null || index < 0 || index >= length) continue;
    slots[index] = item;
  }
  return slots;
}

const groupIndexOf = (o: { metadata?: { labels?: Record<string, string> } }): number | null =>
  atoi(o.metadata?.labels?.[GROUP_INDEX_LABEL]);

/** The leader pods of a LeaderWorkerSet: its name label and worker index "0" (the reconciler's list selector). */
export function leaderPodsOf(lws: LeaderWorkerSet, pods: readonly Pod[]): Pod[] {
  return pods.filter(
    (p) =>
      p.metadata?.labels?.[SET_NAME_LABEL] === lws.metadata.name && p.metadata?.labels?.[WORKER_INDEX_LABEL] === '0',
  );
}

/** The StatefulSets carrying its name label (the leader StatefulSet among them; it has no group index). */
export function statefulSetsOf(lws: LeaderWorkerSet, statefulSets: readonly StatefulSet[]): StatefulSet[] {
  return statefulSets.filter((s) => s.metadata?.labels?.[SET_NAME_LABEL] === lws.metadata.name);
}

export type ReplicaState = {
  /** The leader pod runs and is ready, and the worker StatefulSet (if any) is ready. */
  readonly ready: boolean;
  /** The leader pod and the worker StatefulSet (if any) carry the revision key. */
  readonly updated: boolean;
};

/**
 * getReplicaStates: one state per leader StatefulSet replica. A group whose leader pod or worker StatefulSet is not
 * the one named `<lws>-<index>` (not created yet, or being rebuilt) is neither ready nor updated.
 */
export function replicaStates(
  lws: LeaderWorkerSet,
  stsReplicas: number,
  revisionKey: string,
  pods: readonly Pod[],
  statefulSets: readonly StatefulSet[],
): ReplicaState[] {
  const sortedPods = sortByIndex(leaderPodsOf(lws, pods), groupIndexOf, stsReplicas);
  const sortedSts = sortByIndex(statefulSetsOf(lws, statefulSets), groupIndexOf, stsReplicas);
  const noWorkers = hasNoWorkers(lws);
  const states: ReplicaState[] = [];
  for (let idx = 0; idx < stsReplicas; idx++) {
    const nominated = `${lws.metadata.name ?? ''}-${idx}`;
    const pod = sortedPods[idx] ?? null;
    const sts = sortedSts[idx] ?? null;
    if (pod?.metadata?.name !== nominated || (!noWorkers && sts?.metadata?.name !== nominated)) {
      states.push({ ready: false, updated: false });
      continue;
    }
    const leaderUpdated = revisionKeyOf(pod) === revisionKey;
    const leaderReady = isPodRunningAndReady(pod);
    if (noWorkers || sts === null) {
      states.push({ ready: leaderReady, updated: leaderUpdated });
      continue;
    }
    states.push({
      ready: leaderReady && isStatefulSetReady(sts),
      updated: leaderUpdated && revisionKeyOf(sts) === revisionKey,
    });
  }
  return states;
}
