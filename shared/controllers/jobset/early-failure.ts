// Beyond upstream, opt-in per JobSet: react to a child Job's failure when the Job controller decides it, not when
// the Job's last pod is gone.
//
// The Job controller marks a failing Job in two steps: FailureTarget=True as soon as it decides the Job fails
// (backoffLimit, activeDeadlineSeconds, a FailJob rule of podFailurePolicy…), then, once every pod of the Job has
// terminated, Failed=True with the same reason and message. Upstream's JobSet controller looks only at Failed, so
// a restart waits for the failed Job's other pods to finish their graceful termination (a training job's pods often
// take their whole terminationGracePeriodSeconds to write a checkpoint). With
//   metadata.annotations["fleetq.dev/jobset-restart-on-failure-target"] = "true"
// a child Job with FailureTarget=True and no Failed condition yet is treated as failed, with the FailureTarget's
// reason, message and time, so the failure policy (its rules' onJobFailureReasons and message patterns included)
// decides exactly as it later would, only earlier. Any other value, or none, is upstream's behaviour.
//
// What it does not change: the old attempt's Jobs are still deleted in the foreground, so their pods keep their
// grace period; with restartStrategy Recreate the new attempt's pods may then run beside terminating ones (as
// they do upstream after any restart); BlockingRecreate still waits for them to be gone.
import { finishedType } from './child-jobs.js';
import type { Job, JobSet } from './types.js';

export const RESTART_ON_FAILURE_TARGET = 'fleetq.dev/jobset-restart-on-failure-target';

type JobCondition = NonNullable<NonNullable<Job['status']>['conditions']>[number];

export function restartsOnFailureTarget(js: JobSet): boolean {
  return js.metadata.annotations?.[RESTART_ON_FAILURE_TARGET] === 'true';
}

/**
 * The Jobs as the planner sees them: unchanged without the opt-in; with it, each unfinished Job with
 * FailureTarget=True carries a Failed=True condition copied from it (as the Job controller will write it).
 */
export function withEarlyFailures(js: JobSet, jobs: readonly Job[]): readonly Job[] {
  if (!restartsOnFailureTarget(js)) return jobs;
  return jobs.map((job) => {
    const conditions = job.status?.conditions ?? [];
    const target = conditions.find((c) => c.type === 'FailureTarget' && c.status === 'True');
    if (finishedType(job) !== '' || target === undefined) return job;
    const failed: JobCondition = { ...target, type: 'Failed' };
    return { ...job, status: { ...job.status, conditions: [...conditions, failed] } };
  });
}
