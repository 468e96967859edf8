// Pod re-creation backoff (backoff_utils.go), kept without state. Upstream keeps a per-Job record in memory
// (failures since the last success, and the last failure's time), fed with the pods each sync sees finish; it is
// lost when kube-controller-manager restarts. fleetq computes the same two numbers from the pods the Job still
// has: the failed pods that finished after its latest succeeded pod, and the latest of their finish times. The
// delay is 10 s doubled per further failure, capped at 10 minutes (MaxJobPodFailureBackOff in 1.37; the API
// documentation's "6 minutes" is the cap reached by the seventh failure: 10·2⁵ s = 320 s, then 600 s).
import type { ContainerStatus, Pod } from '../../kube/api/objects.js';
import { podReadyCondition } from '../pod-utils/pod-state.js';
import { timeMs } from '../common/wire-time.js';
import { hasTrackingFinalizer, isPodFailed, isPodSucceeded } from './job-pods.js';
import { MAX_POD_FAILURE_BACKOFF_MS, POD_FAILURE_BACKOFF_MS, type Job } from './types.js';

export type BackoffRecord = {
  readonly failuresAfterLastSuccess: number;
  /** ms since the epoch; undefined without failures. */
  readonly lastFailureTime: number | undefined;
};

/**
 * getFinishedTime (ms): the latest finishedAt of the containers when all have terminated (restartable init
 * containers included), else the Ready=False condition's transition, else deletionTimestamp minus the grace
 * period, else creation.
 */
export function finishedTimeMs(pod: Pod): number {
  const fromContainers = containersFinishedMs(pod);
  if (fromContainers !== undefined) return fromContainers;
  const ready = podReadyCondition(pod);
  const readyFalse = ready?.status === 'False' ? timeMs(ready.lastTransitionTime) : undefined;
  if (readyFalse !== undefined) return readyFalse;
  const deleted = timeMs(pod.metadata?.deletionTimestamp);
  if (deleted !== undefined) return deleted - (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
  return timeMs(pod.metadata?.creationTimestamp) ?? 0;
}

function containersFinishedMs(pod: Pod): number | undefined {
  const sidecars = new Set(
    (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name),
  );
  const statuses: ContainerStatus[] = [
    ...(pod.status?.containerStatuses ?? []),
    ...(pod.status?.initContainerStatuses ?? []).filter((s) => sidecars.has(s.name)),
  ];
  let latest: number | undefined;
  for (const s of statuses) {
    const at = timeMs(s.state?.terminated?.finishedAt);
    if (at === undefined) return undefined;
    if (latest === undefined || at > latest) latest = at;
  }
  return latest;
}

/**
 * The record from the Job's pods. A pod counts as failed when its phase is Failed, or when it is being deleted
 * without having succeeded while it still carries the tracking finalizer (the controller removes the finalizer
 * before deleting a pod it no longer wants, so such a pod failed by itself or was evicted).
 */
export function backoffRecordOf(job: Job, pods: readonly Pod[]): BackoffRecord {
  let lastSuccess: number | undefined;
  for (const p of pods) {
    if (!isPodSucceeded(p)) continue;
    const t = finishedTimeMs(p);
    if (lastSuccess === undefined || t > lastSuccess) lastSuccess = t;
  }
  let failures = 0;
  let lastFailure: number | undefined;
  for (const p of pods) {
    const failed = p.status?.phase === 'Failed' || (isPodFailed(p, job) && hasTrackingFinalizer(p));
    if (!failed) continue;
    const t = finishedTimeMs(p);
    if (lastSuccess !== undefined && t <= lastSuccess) continue;
    failures++;
    if (lastFailure === undefined || t > lastFailure) lastFailure = t;
  }
  return { failuresAfterLastSuccess: failures, lastFailureTime: lastFailure };
}

/** The delay after `failures` consecutive failures: 10 s, doubled per further failure, capped. */
export function backoffDelayMs(failures: number): number {
  if (failures <= 0) return 0;
  let delay = POD_FAILURE_BACKOFF_MS;
  for (let i = 1; i < failures; i++) {
    delay *= 2;
    if (delay >= MAX_POD_FAILURE_BACKOFF_MS) return MAX_POD_FAILURE_BACKOFF_MS;
  }
  return delay;
}

/** getRemainingTimeForFailuresCount: how long pod creation must still wait at `now` (ms, 0 = not at all). */
export function remainingBackoffMs(record: BackoffRecord, now: Date): number {
  if (record.failuresAfterLastSuccess === 0 || record.lastFailureTime === undefined) return 0;
  const delay = backoffDelayMs(record.failuresAfterLastSuccess);
  const elapsed = now.getTime() - record.lastFailureTime;
  return delay < elapsed ? 0 : delay - elapsed;
}
