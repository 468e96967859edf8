// The JobSet success policy (success_policy.go, executeSuccessPolicy of jobset_controller.go, v0.12.0): the
// JobSet completes when as many succeeded Jobs of the current attempt belong to the targeted replicatedJobs
// (none named: all) as the operator asks for: Any → 1, All → every replica of the targeted replicatedJobs. An
// unknown operator asks for 0 (upstream's switch has no default), so any succeeded Job completes the JobSet. No
// successPolicy at all is read as the webhook's default, All (upstream's controller would dereference nil).
import type { ChildJobs } from './child-jobs.js';
import { REPLICATED_JOB_NAME_KEY } from './labels.js';
import { setCompleted, type Pass } from './status.js';
import { Operator, type Job, type JobSet, type ReplicatedJob } from './types.js';

function targets(js: JobSet): readonly string[] {
  return js.spec.successPolicy?.targetReplicatedJobs ?? [];
}

/** jobMatchesSuccessPolicy. */
export function jobMatchesSuccessPolicy(js: JobSet, job: Job): boolean {
  const t = targets(js);
  return t.length === 0 || t.includes(job.metadata.labels?.[REPLICATED_JOB_NAME_KEY] ?? '');
}

/** replicatedJobMatchesSuccessPolicy. */
export function replicatedJobMatchesSuccessPolicy(js: JobSet, rjob: ReplicatedJob): boolean {
  const t = targets(js);
  return t.length === 0 || t.includes(rjob.name);
}

/** numJobsMatchingSuccessPolicy. */
export function numJobsMatchingSuccessPolicy(js: JobSet, jobs: readonly Job[]): number {
  return jobs.filter((j) => jobMatchesSuccessPolicy(js, j)).length;
}

/** numJobsExpectedToSucceed. */
export function numJobsExpectedToSucceed(js: JobSet): number {
  switch (js.spec.successPolicy?.operator ?? Operator.All) {
    case Operator.Any:
      return 1;
    case Operator.All:
      return (js.spec.replicatedJobs ?? [])
        .filter((r) => replicatedJobMatchesSuccessPolicy(js, r))
        .reduce((sum, r) => sum + (r.replicas ?? 0), 0);
    default:
      return 0;
  }
}

/** executeSuccessPolicy: whether the JobSet completed in this pass. */
export function executeSuccessPolicy(pass: Pass, owned: ChildJobs): boolean {
  if (numJobsMatchingSuccessPolicy(pass.js, owned.successful) < numJobsExpectedToSucceed(pass.js)) return false;
  setCompleted(pass);
  return true;
}
