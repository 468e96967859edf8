// controller.ActivePods.Less: the order in which the Job controller deletes surplus pods (earlier stages first).
// Rules in turn: unassigned before assigned; Pending < Unknown < Running; not ready before ready; both ready:
// ready more recently first (a zero time first); more container restarts first (regular, then sidecar); newer
// creation first (a zero time first).
import type { Pod } from '../../kube/api/objects.js';
import { maxContainerRestarts } from './deletion-rank.js';
import { isPodReady, podReadySinceMs, PodPhase } from './pod-state.js';
import { timeMs } from '../common/wire-time.js';

const PHASE_ORDINAL: Readonly<Record<string, number>> = {
  [PodPhase.Pending]: 0,
  [PodPhase.Unknown]: 1,
  [PodPhase.Running]: 2,
};

export function activePodLess(a: Pod, b: Pod): boolean {
  const nodeA = a.spec?.nodeName ?? '';
  const nodeB = b.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '';
  const phaseA = PHASE_ORDINAL[a.status?.phase ?? ''] ?? 0;
  const phaseB = PHASE_ORDINAL[b.status?.phase ?? ''] ?? 0;
  if (phaseA !== phaseB) return phaseA < phaseB;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return !readyA;
  if (readyA && readyB) {
    const t1 = podReadySinceMs(a);
    const t2 = podReadySinceMs(b);
    if (t1 !== t2) return afterOrZero(t1, t2);
  }
  const [regularA, sidecarA] = maxContainerRestarts(a);
  const [regularB, sidecarB] = maxContainerRestarts(b);
  if (regularA !== regularB) return regularA > regularB;
  if (sidecarA !== sidecarB) return sidecarA > sidecarB;
  const c1 = timeMs(a.metadata?.creationTimestamp);
  const c2 = timeMs(b.metadata?.creationTimestamp);
  if (c1 !== c2) return afterOrZero(c1, c2);
  return false;
}

/** The pods sorted by activePodLess (stable: pods no rule tells apart keep their order). */
export function sortActivePods(pods: readonly Pod[]): Pod[] {
  return [...pods].sort((a, b) => (activePodLess(a, b) ? -1 : activePodLess(b, a) ? 1 : 0));
}

function afterOrZero(t1: number | undefined, t2: number | undefined): boolean {
  if (t1 === undefined || t2 === undefined) return t1 === undefined;
  return t1 > t2;
}
