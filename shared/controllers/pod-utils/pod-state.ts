// Pod predicates shared by the workload planners, as pkg/api/v1/pod and pkg/controller/controller_utils.go
// define them: active, terminating, ready, available (ready for minReadySeconds), and when a ready pod
// will become available. Pure: `now` is always an argument.
import type { Pod, PodCondition } from '../../kube/api/objects.js';
import { timeMs } from '../common/wire-time.js';

export const PodPhase = {
  Pending: 'Pending',
  Running: 'Running',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Unknown: 'Unknown',
} as const;

/** Succeeded or Failed: the pod will never run again. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === PodPhase.Succeeded || phase === PodPhase.Failed;
}

/** controller.IsPodActive: not terminal and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  return !isPodTerminal(pod) && !pod.metadata?.deletionTimestamp;
}

/** controller.IsPodTerminating: being deleted but not yet terminal. */
export function isPodTerminating(pod: Pod): boolean {
  return !isPodTerminal(pod) && !!pod.metadata?.deletionTimestamp;
}

export function podReadyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return podReadyCondition(pod)?.status === 'True';
}

/** When the pod last became Ready (ms), or undefined if it is not ready or the time is unset. */
export function podReadySinceMs(pod: Pod): number | undefined {
  const c = podReadyCondition(pod);
  return c?.status === 'True' ? timeMs(c.lastTransitionTime) : undefined;
}

/**
 * podutil.IsPodAvailable: ready, and either minReadySeconds is 0 or the pod has been ready for strictly
 * longer than minReadySeconds at `now`.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: Date): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = podReadySinceMs(pod);
  return since !== undefined && since + minReadySeconds * 1000 < now.getTime();
}

/**
 * controller.nextPodAvailabilityCheck: for a ready pod that is not yet available, the ms until it will be;
 * undefined when there is nothing to wait for.
 */
export function msUntilAvailable(pod: Pod, minReadySeconds: number, now: Date): number | undefined {
  if (minReadySeconds <= 0 || !isPodReady(pod)) return undefined;
  const since = podReadySinceMs(pod);
  if (since === undefined) return undefined;
  const wait = since + minReadySeconds * 1000 - now.getTime();
  return wait > 0 ? wait : undefined;
}

/** controller.FindMinNextPodAvailabilityCheck: the soonest of msUntilAvailable over the pods. */
export function soonestAvailabilityMs(pods: readonly Pod[], minReadySeconds: number, now: Date): number | undefined {
  let soonest: number | undefined;
  for (const pod of pods) {
    const wait = msUntilAvailable(pod, minReadySeconds, now);
    if (wait !== undefined && (soonest === undefined || wait < soonest)) soonest = wait;
  }
  return soonest;
}
