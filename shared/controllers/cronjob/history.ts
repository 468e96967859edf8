// Finished Jobs past the history limits (cleanupFinishedJobs and removeOldestJobs of cronjob_controllerv2.go, 1.37),
// and the Job delete both it and Replace make (deleteJob).
//   successful  Jobs with a Complete=True condition beyond spec.successfulJobsHistoryLimit
//   failed      Jobs with a Failed=True condition beyond spec.failedJobsHistoryLimit
// The oldest go first (byJobStartTime: status.startTime, a Job without one last, names breaking ties). Neither
// limit set: nothing. Each delete is propagationPolicy Background, as upstream's jobControl.DeleteJob; fleetq adds
// the Job's uid as precondition (upstream deletes by name: "TODO: delete by UID?").
import type { Action } from '../../kube/actions.js';
import { jobDeleteEvents } from './events.js';
import { JOB_KIND, type CronJob, type Job, type ObjectReference } from './types.js';

/** deleteJob: the delete action, and the Job's reference dropped from `active` (as if it succeeds). */
export function deleteJobAction(cj: CronJob, job: Job, active: ObjectReference[]): Action {
  removeFromActive(active, job.metadata.uid ?? '');
  return {
    type: 'delete',
    target: { kind: JOB_KIND, namespace: job.metadata.namespace ?? '', name: job.metadata.name ?? '' },
    uid: job.metadata.uid ?? '',
    propagationPolicy: 'Background',
    reason: 'SuccessfulDelete',
    events: jobDeleteEvents(cj, job.metadata.name ?? ''),
  };
}

/** cleanupFinishedJobs: the deletes, in upstream's order (successful Jobs first, oldest first). */
export function cleanupFinishedJobs(cj: CronJob, jobs: readonly Job[], active: ObjectReference[]): Action[] {
  const { successfulJobsHistoryLimit: succeededLimit, failedJobsHistoryLimit: failedLimit } = cj.spec;
  const limited = (n: number | null | undefined): n is number => typeof n === 'number';
  if (!limited(succeededLimit) && !limited(failedLimit)) return [];
  const succeeded = jobs.filter((j) => finishedType(j) === 'Complete');
  const failed = jobs.filter((j) => finishedType(j) === 'Failed');
  return [
    ...(limited(succeededLimit) ? removeOldest(cj, succeeded, succeededLimit, active) : []),
    ...(limited(failedLimit) ? removeOldest(cj, failed, failedLimit, active) : []),
  ];
}

function removeOldest(cj: CronJob, jobs: readonly Job[], max: number, active: ObjectReference[]): Action[] {
  const toDelete = jobs.length - max;
  if (toDelete <= 0) return [];
  return [...jobs]
    .sort(byStartTime)
    .slice(0, toDelete)
    .map((j) => deleteJobAction(cj, j, active));
}

/** getFinishedStatus / jobutil.FinishedCondition: the first Complete or Failed condition that is True. */
export function finishedType(job: Job): 'Complete' | 'Failed' | undefined {
  const c = (job.status?.conditions ?? []).find(
    (x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True',
  );
  return c?.type as 'Complete' | 'Failed' | undefined;
}

/** jobutil.IsJobSucceeded: a Complete=True condition (whatever comes first). */
export function isSucceeded(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');
}

export function removeFromActive(active: ObjectReference[], uid: string): void {
  for (let i = active.length - 1; i >= 0; i--) if (active[i]!.uid === uid) active.splice(i, 1);
}

/** byJobStartTime.Less. */
function byStartTime(a: Job, b: Job): number {
  const sa = startOf(a);
  const sb = startOf(b);
  if (sa === undefined && sb !== undefined) return 1;
  if (sa !== undefined && sb === undefined) return -1;
  if (sa === sb) return compareNames(a.metadata.name ?? '', b.metadata.name ?? '');
  return (sa ?? 0) - (sb ?? 0);
}

function startOf(job: Job): number | undefined {
  const t = job.status?.startTime;
  if (t === undefined || t === null) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000) * 1000;
}

/** Go's string comparison (bytes, not locale). */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
