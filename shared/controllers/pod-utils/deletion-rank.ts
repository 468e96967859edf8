// Which pods to delete first when scaling down: controller.ActivePodsWithRanks.Less and
// replicaset.getPodsRankedByRelatedPodsOnSameNode, as kube-controller-manager 1.37 runs them (PodDeletionCost
// on, LogarithmicScaleDown GA). Rules, in turn, until one decides:
//   1. unassigned before assigned            5. more related active pods on the same node first
//   2. Pending < Unknown < Running           6. both ready: ready for less time first (log2 buckets, uid tiebreak)
//   3. not ready before ready                7. more container restarts first (regular, then sidecar containers)
//   4. lower pod-deletion-cost first         8. newer first (log2 buckets of age, uid tiebreak)
// Log buckets are floor(log2(age in nanoseconds)) as upstream computes them on time.Duration, so that
// pods fall into the same buckets here as there.
import type { Pod } from '../../kube/api/objects.js';
import { isPodActive, isPodReady, podReadySinceMs, PodPhase } from './pod-state.js';
import { timeMs } from '../common/wire-time.js';

export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

const PHASE_ORDINAL: Readonly<Record<string, number>> = {
  [PodPhase.Pending]: 0,
  [PodPhase.Unknown]: 1,
  [PodPhase.Running]: 2,
};
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const NS_PER_MS = 1_000_000;

export type RankedPod = { readonly pod: Pod; /** related active pods on the same node */ readonly rank: number };

/**
 * The first `count` pods to delete. `relatedPods` are the pods of every ReplicaSet with the same controller
 * (getIndirectlyRelatedPods); empty for a ReplicaSet without a controller, so rule 5 then never decides.
 */
export function podsToDelete(pods: readonly Pod[], relatedPods: readonly Pod[], count: number, now: Date): Pod[] {
  if (count >= pods.length) return pods.slice(0, count);
  return rankPodsForDeletion(pods, relatedPods, now)
    .slice(0, count)
    .map((r) => r.pod);
}

/** getPodsRankedByRelatedPodsOnSameNode, sorted: the pod to delete first comes first. */
export function rankPodsForDeletion(pods: readonly Pod[], relatedPods: readonly Pod[], now: Date): RankedPod[] {
  const onNode = new Map<string, number>();
  for (const p of relatedPods) {
    if (!isPodActive(p)) continue;
    const node = p.spec?.nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  const nowMs = now.getTime();
  // Array.prototype.sort is stable: pods that no rule tells apart keep their listed order.
  return ranked.sort((a, b) => (deleteFirst(a, b, nowMs) ? -1 : deleteFirst(b, a, nowMs) ? 1 : 0));
}

/** ActivePodsWithRanks.Less: true when `a` should be deleted before `b`. */
export function deleteFirst(a: RankedPod, b: RankedPod, nowMs: number): boolean {
  const nodeA = a.pod.spec?.nodeName ?? '';
  const nodeB = b.pod.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '';

  const phaseA = PHASE_ORDINAL[a.pod.status?.phase ?? ''] ?? 0;
  const phaseB = PHASE_ORDINAL[b.pod.status?.phase ?? ''] ?? 0;
  if (phaseA !== phaseB) return phaseA < phaseB;

  const readyA = isPodReady(a.pod);
  const readyB = isPodReady(b.pod);
  if (readyA !== readyB) return !readyA;

  const costA = podDeletionCost(a.pod);
  const costB = podDeletionCost(b.pod);
  if (costA !== costB) return costA < costB;

  if (a.rank !== b.rank) return a.rank > b.rank;

  if (readyA && readyB) {
    const t1 = podReadySinceMs(a.pod);
    const t2 = podReadySinceMs(b.pod);
    if (t1 !== t2) return newerInLogBuckets(a.pod, t1, b.pod, t2, nowMs);
  }

  const [regularA, sidecarA] = maxContainerRestarts(a.pod);
  const [regularB, sidecarB] = maxContainerRestarts(b.pod);
  if (regularA !== regularB) return regularA > regularB;
  if (sidecarA !== sidecarB) return sidecarA > sidecarB;

  const c1 = timeMs(a.pod.metadata?.creationTimestamp);
  const c2 = timeMs(b.pod.metadata?.creationTimestamp);
  if (c1 !== c2) return newerInLogBuckets(a.pod, c1, b.pod, c2, nowMs);
  return false;
}

/** Rules 6 and 8: a zero time sorts first; otherwise the younger log2 bucket, then the smaller uid. */
function newerInLogBuckets(a: Pod, t1: number | undefined, b: Pod, t2: number | undefined, nowMs: number): boolean {
  if (t1 === undefined || t2 === undefined) return t1 === undefined; // afterOrZero
  const diff = logBucket(nowMs - t1) - logBucket(nowMs - t2);
  if (diff === 0) return (a.metadata?.uid ?? '') < (b.metadata?.uid ?? '');
  return diff < 0;
}

function logBucket(ageMs: number): number {
  return ageMs > 0 ? Math.floor(Math.log2(ageMs * NS_PER_MS)) : -1;
}

/**
 * helper.GetDeletionCostFromPodAnnotations: an int32 in canonical decimal form ("0", "-5", "12"; not "+1" or
 * "007"); anything else counts as 0.
 */
export function podDeletionCost(pod: Pod): number {
  const raw = pod.metadata?.annotations?.[POD_DELETION_COST];
  if (raw === undefined) return 0;
  const first = raw[0];
  const validFirst = first === '-' || raw === '0' || (first !== undefined && first >= '1' && first <= '9');
  if (!validFirst || !/^-?[0-9]+$/.test(raw)) return 0;
  const n = Number(raw);
  return n >= INT32_MIN && n <= INT32_MAX ? n : 0;
}

/** The highest restart count among regular containers, and among restartable init (sidecar) containers. */
export function maxContainerRestarts(pod: Pod): [number, number] {
  let regular = 0;
  for (const c of pod.status?.containerStatuses ?? []) regular = Math.max(regular, c.restartCount ?? 0);
  const sidecars = new Set(
    (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name),
  );
  let sidecar = 0;
  for (const c of pod.status?.initContainerStatuses ?? []) {
    if (sidecars.has(c.name)) sidecar = Math.max(sidecar, c.restartCount ?? 0);
  }
  return [regular, sidecar];
}
