// ttlSecondsAfterFinished of a finished JobSet (ttl_after_finished.go, v0.12.0): the finish time is the
// lastTransitionTime of its Completed or Failed condition; once the TTL has passed (remaining <= 0) the JobSet is
// deleted with foreground propagation, else the pass looks again when it expires. A finished condition without a
// transition time is upstream's error (retried with backoff).
import { ReconcileError } from '../../kube/errors.js';
import { timeMs } from '../common/wire-time.js';
import { ConditionType, type JobSet } from './types.js';

export type TtlOutcome = { readonly expired: true } | { readonly expired: false; readonly requeueAfter?: number };

/** jobSetFinishTime, in ms. */
export function finishTimeMs(js: JobSet): number {
  const c = (js.status?.conditions ?? []).find(
    (x) => (x.type === ConditionType.Completed || x.type === ConditionType.Failed) && x.status === 'True',
  );
  const ref = `${js.metadata.namespace ?? ''}/${js.metadata.name ?? ''}`;
  if (c === undefined)
    throw new ReconcileError('PlanFailed', `unable to find the status of the finished JobSet ${ref}`);
  const at = timeMs(c.lastTransitionTime);
  if (at === undefined) {
    throw new ReconcileError('PlanFailed', `unable to find the time when the JobSet ${ref} finished`);
  }
  return at;
}

/** executeTTLAfterFinishedPolicy: nothing without a TTL (or when being deleted); else expired, or the time left. */
export function ttlAfterFinished(js: JobSet, now: Date): TtlOutcome {
  const ttl = js.spec.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null) return { expired: false };
  const remaining = finishTimeMs(js) + ttl * 1000 - now.getTime();
  if (js.metadata.deletionTimestamp === undefined && remaining <= 0) return { expired: true };
  return remaining > 0 ? { expired: false, requeueAfter: remaining } : { expired: false };
}
