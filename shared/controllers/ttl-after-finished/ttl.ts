// When a finished Job is due for deletion (processTTL, needsCleanup, timeLeft and jobFinishTime of
// ttlafterfinished_controller.go, 1.37). Pure: `now` is given.
//   needs cleanup  spec.ttlSecondsAfterFinished is set and the Job is finished (a Complete or Failed condition
//                  is True: util.IsJobFinished); a Job being deleted is never looked at
//   finish time    the lastTransitionTime of the first Complete or Failed condition that is True; a zero one is an
//                  error (upstream returns it, and the key is retried with backoff)
//   time left      finish + ttl − now. A finish time in the future (clock skew) is not special: upstream only logs
//                  "Found Job finished in the future … Job cleanup will be deferred", and the time left is then
//                  longer than the TTL.
import { ReconcileError } from '../../kube/errors.js';
import { isJobFinished } from '../common/job-api.js';
import { timeMs } from '../common/wire-time.js';
import type { Job } from './types.js';

/** needsCleanup, and not being deleted: the Jobs the controller acts on at all. */
export function needsCleanup(job: Job): boolean {
  return !job.metadata.deletionTimestamp && typeof job.spec.ttlSecondsAfterFinished === 'number' && isJobFinished(job);
}

/** jobFinishTime: ms since the epoch; throws (retryable) when the finishing condition has no transition time. */
export function finishTimeMs(job: Job): number {
  const c = (job.status?.conditions ?? []).find(
    (x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True',
  );
  const ref = `${job.metadata.namespace}/${job.metadata.name}`;
  if (c === undefined) throw new ReconcileError('PlanFailed', `unable to find the status of the finished Job ${ref}`);
  const at = timeMs(c.lastTransitionTime);
  if (at === undefined) throw new ReconcileError('PlanFailed', `unable to find the time when the Job ${ref} finished`);
  return at;
}

/**
 * processTTL: undefined when the Job needs no cleanup (or is being deleted); else the ms left until it expires
 * (≤ 0: expired now).
 */
export function timeLeftMs(job: Job, now: Date): number | undefined {
  if (!needsCleanup(job)) return undefined;
  const ttlMs = (job.spec.ttlSecondsAfterFinished ?? 0) * 1000;
  return finishTimeMs(job) + ttlMs - now.getTime();
}

/**
 * The forwarder's filter (addJob / updateJob: `DeletionTimestamp == nil && needsCleanup(job)`), on an object of
 * any shape: a watch event of a Job yields this controller's key only when it says true. Never throws.
 */
export function isCleanupCandidate(object: unknown): boolean {
  if (typeof object !== 'object' || object === null) return false;
  const o = object as { metadata?: unknown; spec?: unknown; status?: unknown };
  const meta = (typeof o.metadata === 'object' && o.metadata !== null ? o.metadata : {}) as Record<string, unknown>;
  if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) return false;
  const spec = (typeof o.spec === 'object' && o.spec !== null ? o.spec : {}) as Record<string, unknown>;
  if (typeof spec.ttlSecondsAfterFinished !== 'number') return false;
  const status = (typeof o.status === 'object' && o.status !== null ? o.status : {}) as Record<string, unknown>;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as unknown[]) : [];
  return conditions.some((c) => {
    if (typeof c !== 'object' || c === null) return false;
    const { type, status: s } = c as Record<string, unknown>;
    return (type === 'Complete' || type === 'Failed') && s === 'True';
  });
}
