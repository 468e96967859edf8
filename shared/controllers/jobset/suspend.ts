// Suspending and resuming a JobSet's Jobs (suspendJobs, resumeJobsIfNecessary and resumeJob of
// jobset_controller.go, v0.12.0), on the active Jobs of the current attempt:
//   suspended JobSet  → every active Job not suspended is updated with spec.suspend true; Suspended True
//                       (SuspendedJobs), RestartingJobSet False (JobSetSuspended)
//   otherwise         → per replicatedJob in spec order, skipping one whose dependsOn is not reached (and with
//                       InOrder one whose Jobs have all started): its suspended Jobs are resumed; with InOrder the
//                       pass stops after the first such replicatedJob (StartupPolicyInProgress True). Having gone
//                       through them all: Suspended False (ResumeJobs)
// Resuming a Job merges into its pod template the replicatedJob template's labels, annotations, nodeSelector,
// tolerations and schedulingGates (what Kueue may change while the JobSet is suspended), then sets suspend false.
// Where fleetq differs: upstream first clears a started Job's status.startTime with a status write and then
// updates the Job in the same pass; the writer puts status writes last, and the second write would carry a stale
// resourceVersion, so a Job with a startTime gets only the status write here (`requeue`), and its update comes in
// the next pass, once the cache has the Job without a startTime.
import { jsonCopy } from '../common/json-copy.js';
import { isJobSuspended, type ChildJobs } from './child-jobs.js';
import { REPLICATED_JOB_NAME_KEY } from './labels.js';
import { allReplicasStarted, dependencyReachedStatus, isInOrderStartup } from './startup-policy.js';
import { setInOrderInProgress, setResumed, setSuspended, statusOf, type Pass } from './status.js';
import type { Job, ReplicatedJob, ReplicatedJobStatus } from './types.js';

export const UPDATE_REASON = { Suspend: 'SuspendJob', Resume: 'ResumeJob', ClearStartTime: 'ClearStartTime' } as const;

/** suspendJobs. */
export function suspendJobs(pass: Pass, active: readonly Job[]): void {
  for (const job of active) {
    if (isJobSuspended(job)) continue;
    const object = jsonCopy(job);
    object.spec.suspend = true;
    pass.actions.push({ type: 'update', object, reason: UPDATE_REASON.Suspend });
  }
  setSuspended(pass);
}

/** resumeJobsIfNecessary; returns whether a Job's startTime was cleared (the pass must look again). */
export function resumeJobsIfNecessary(
  pass: Pass,
  owned: ChildJobs,
  statuses: readonly ReplicatedJobStatus[],
): { requeue: boolean } {
  const inOrder = isInOrderStartup(pass.js);
  const byReplicatedJob = new Map<string, Job[]>();
  for (const job of owned.active) {
    const name = job.metadata.labels?.[REPLICATED_JOB_NAME_KEY] ?? '';
    byReplicatedJob.set(name, [...(byReplicatedJob.get(name) ?? []), job]);
  }
  const replicasSoFar = new Map<string, number>();
  let requeue = false;
  for (const rjob of pass.js.spec.replicatedJobs ?? []) {
    replicasSoFar.set(rjob.name, rjob.replicas ?? 0);
    if (!dependencyReachedStatus(rjob, replicasSoFar, statuses)) continue;
    if (inOrder && allReplicasStarted(rjob.replicas ?? 0, statusOf(statuses, rjob.name))) continue;
    for (const job of byReplicatedJob.get(rjob.name) ?? []) {
      if (!isJobSuspended(job)) continue;
      if (resumeJob(pass, job, rjob)) requeue = true;
    }
    if (inOrder) {
      setInOrderInProgress(pass);
      return { requeue };
    }
  }
  setResumed(pass);
  return { requeue };
}

/** resumeJob; true when only the startTime was cleared in this pass. */
function resumeJob(pass: Pass, job: Job, rjob: ReplicatedJob): boolean {
  if (job.status?.startTime !== undefined && job.status.startTime !== null) {
    const object = jsonCopy(job);
    delete object.status?.startTime;
    pass.actions.push({ type: 'updateStatus', object });
    return true;
  }
  const object = jsonCopy(job);
  const template = (object.spec.template ??= {});
  const from = rjob.template.spec?.template;
  if (job.metadata.labels?.[REPLICATED_JOB_NAME_KEY]) {
    const meta = (template.metadata ??= {});
    const spec = (template.spec ??= { containers: [] });
    setOrOmit(meta, 'labels', { ...(meta.labels ?? {}), ...(from?.metadata?.labels ?? {}) });
    setOrOmit(meta, 'annotations', { ...(meta.annotations ?? {}), ...(from?.metadata?.annotations ?? {}) });
    setOrOmit(spec, 'nodeSelector', { ...(spec.nodeSelector ?? {}), ...(from?.spec?.nodeSelector ?? {}) });
    setOrOmit(spec, 'tolerations', mergeSlices(spec.tolerations ?? [], from?.spec?.tolerations ?? []));
    setOrOmit(spec, 'schedulingGates', mergeSlices(spec.schedulingGates ?? [], from?.spec?.schedulingGates ?? []));
  }
  object.spec.suspend = false;
  pass.actions.push({ type: 'update', object, reason: UPDATE_REASON.Resume });
  return false;
}

/** A merged map or list as Go serializes it (omitempty): absent when empty. */
function setOrOmit<T extends object, K extends keyof T>(target: T, key: K, value: T[K] & object): void {
  if (Object.keys(value).length === 0) delete target[key];
  else target[key] = value;
}

/**
 * collections.MergeSlices: the union without duplicates. Upstream's order is a Go map's (random); here the first
 * list's order, then what the second adds. Equality is by value (Go compares a toleration's tolerationSeconds
 * pointer by address, so two equal tolerations with tolerationSeconds both stay there).
 */
export function mergeSlices<T>(a: readonly T[], b: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of [...a, ...b]) {
    const key = JSON.stringify(item);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}
