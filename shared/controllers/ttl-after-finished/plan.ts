// The TTL-after-finished planner (processJob and processTTL of ttlafterfinished_controller.go, 1.37), pure: what
// was observed and `now` in, at most one action out.
//   the Job gone                        → nothing (NotFound is done)
//   being deleted, not finished, no TTL → nothing, and no requeue: an event of the Job brings its key back
//   not yet expired                     → requeueAfter the time left (AddAfter), rounded up to whole ms
//   expired                             → check the fresh copy (observe read it uncached) the same way, then
//                                         delete it: precondition its uid, propagationPolicy Foreground (the Job
//                                         stays, marked for deletion, until the garbage collector has deleted its
//                                         pods). The fresh copy may be another Job of the same name (recreated);
//                                         upstream deletes it if it too has expired, and so does this.
// A finish time in the future (clock skew) only defers the delete (the time left is longer than the TTL).
// Upstream records no Kubernetes Event for any of this (its recorder is made but never used), so neither does
// this; its only trace is the metric job_deletion_duration_seconds, which fleetq does not have.
import type { Action } from '../../kube/actions.js';
import type { PlanResult } from '../controller.js';
import { timeLeftMs } from './ttl.js';
import { JOB_KIND, TTL_EXPIRED, type Job, type ObservedTtlJob } from './types.js';

export function planTtlJob(o: ObservedTtlJob, now: Date): PlanResult {
  if (o.job === null) return { actions: [] };
  const cached = timeLeftMs(o.job, now);
  if (cached === undefined) return { actions: [] };
  if (cached > 0) return { actions: [], requeueAfter: Math.ceil(cached) };
  // Due by this clock but not by observe's (it ran a moment earlier): look again at once, reading fresh.
  if (o.fresh === undefined) return { actions: [], requeueAfter: 0 };
  if (o.fresh === null) return { actions: [] };
  const fresh = timeLeftMs(o.fresh, now);
  if (fresh === undefined) return { actions: [] };
  if (fresh > 0) return { actions: [], requeueAfter: Math.ceil(fresh) };
  return { actions: [deleteJob(o.fresh)] };
}

function deleteJob(job: Job): Action {
  return {
    type: 'delete',
    target: { kind: JOB_KIND, namespace: job.metadata.namespace ?? '', name: job.metadata.name ?? '' },
    uid: job.metadata.uid ?? '',
    propagationPolicy: 'Foreground',
    reason: TTL_EXPIRED,
  };
}
