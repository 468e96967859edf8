// The labels and annotations a JobSet puts on its child Jobs and their pods (jobset_types.go, pkg/constants), the
// child Job's name and the indexes they carry (globalJobIndex, globalReplicas, groupJobIndex, groupReplicas of
// jobset_controller.go, v0.12.0). Every value is a decimal string, as strconv.Itoa makes it.
import { createHash } from 'node:crypto';
import type { JobSet } from './types.js';

export const JOBSET_NAME_KEY = 'jobset.sigs.k8s.io/jobset-name';
export const JOBSET_UID_KEY = 'jobset.sigs.k8s.io/jobset-uid';
export const REPLICATED_JOB_REPLICAS_KEY = 'jobset.sigs.k8s.io/replicatedjob-replicas';
export const GLOBAL_REPLICAS_KEY = 'jobset.sigs.k8s.io/global-replicas';
export const REPLICATED_JOB_NAME_KEY = 'jobset.sigs.k8s.io/replicatedjob-name';
export const JOB_INDEX_KEY = 'jobset.sigs.k8s.io/job-index';
export const JOB_GLOBAL_INDEX_KEY = 'jobset.sigs.k8s.io/job-global-index';
export const JOB_KEY = 'jobset.sigs.k8s.io/job-key';
export const COORDINATOR_KEY = 'jobset.sigs.k8s.io/coordinator';
export const GROUP_NAME_KEY = 'jobset.sigs.k8s.io/group-name';
export const GROUP_REPLICAS_KEY = 'jobset.sigs.k8s.io/group-replicas';
export const JOB_GROUP_INDEX_KEY = 'jobset.sigs.k8s.io/job-group-index';
/** constants.RestartsKey: the JobSet restart attempt (status.restarts) a Job was created in. */
export const RESTARTS_KEY = 'jobset.sigs.k8s.io/restart-attempt';
/** constants.JobRestartAttemptKey: the Job's own restart attempt (RestartJob feature gate). */
export const JOB_RESTART_ATTEMPT_KEY = 'jobset.sigs.k8s.io/job-restart-attempt';
export const EXCLUSIVE_KEY = 'alpha.jobset.sigs.k8s.io/exclusive-topology';
export const NODE_SELECTOR_STRATEGY_KEY = 'alpha.jobset.sigs.k8s.io/node-selector';
export const NAMESPACED_JOB_KEY = 'alpha.jobset.sigs.k8s.io/namespaced-job';
export const NO_SCHEDULE_TAINT_KEY = 'alpha.jobset.sigs.k8s.io/no-schedule';

/** placement.GenJobName: `<jobset>-<replicatedJob>-<index>`. */
export function childJobName(jobSetName: string, replicatedJobName: string, jobIndex: number): string {
  return `${jobSetName}-${replicatedJobName}-${jobIndex}`;
}

/** jobHashKey: the hex SHA-1 of `<namespace>/<jobName>` (40 characters, a valid label value). */
export function jobHashKey(namespace: string, jobName: string): string {
  return createHash('sha1').update(`${namespace}/${jobName}`).digest('hex');
}

/** namespacedJobName: `<namespace>_<jobName>` ('/' is not allowed in label values). */
export function namespacedJobName(namespace: string, jobName: string): string {
  return `${namespace}_${jobName}`;
}

const replicasOf = (r: { replicas?: number }): number => r.replicas ?? 0;

/** globalJobIndex: the Job's index across every replicatedJob, in spec order; '' for an unknown replicatedJob. */
export function globalJobIndex(js: JobSet, replicatedJobName: string, jobIndex: number): string {
  let seen = 0;
  for (const rjob of js.spec.replicatedJobs ?? []) {
    if (rjob.name === replicatedJobName) return String(seen + jobIndex);
    seen += replicasOf(rjob);
  }
  return '';
}

/** globalReplicas: the Jobs of every replicatedJob. */
export function globalReplicas(js: JobSet): string {
  return String((js.spec.replicatedJobs ?? []).reduce((sum, r) => sum + replicasOf(r), 0));
}

/** groupJobIndex: the Job's index across the replicatedJobs of its group; '' when not found. */
export function groupJobIndex(js: JobSet, groupName: string, replicatedJobName: string, jobIndex: number): string {
  let seen = 0;
  for (const rjob of js.spec.replicatedJobs ?? []) {
    if ((rjob.groupName ?? '') !== groupName) continue;
    if (rjob.name === replicatedJobName) return String(seen + jobIndex);
    seen += replicasOf(rjob);
  }
  return '';
}

/** groupReplicas: the Jobs of the replicatedJobs of a group. */
export function groupReplicas(js: JobSet, groupName: string): string {
  return String(
    (js.spec.replicatedJobs ?? [])
      .filter((r) => (r.groupName ?? '') === groupName)
      .reduce((s, r) => s + replicasOf(r), 0),
  );
}

/** GetSubdomain: network.subdomain, else the JobSet's name (the webhook cannot default it under generateName). */
export function subdomainOf(js: JobSet): string {
  const subdomain = js.spec.network?.subdomain;
  return subdomain !== undefined && subdomain !== '' ? subdomain : (js.metadata.name ?? '');
}

/** CoordinatorEndpoint: `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>.<subdomain>` (spec.coordinator is set). */
export function coordinatorEndpoint(js: JobSet): string {
  const c = js.spec.coordinator;
  return `${js.metadata.name ?? ''}-${c?.replicatedJob ?? ''}-${c?.jobIndex ?? 0}-${c?.podIndex ?? 0}.${subdomainOf(js)}`;
}
