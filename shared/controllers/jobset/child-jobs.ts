// A JobSet's child Jobs: sorted into the current attempt's active, successful and failed Jobs and those of an
// earlier attempt (getChildJobs), and built from a replicatedJob's template (constructJobsFromTemplate,
// constructJob, labelAndAnnotateObject of jobset_controller.go, v0.12.0).
//   name           <jobset>-<replicatedJob>-<index>
//   labels         the template's, then on the Job and on its pod template: jobset-name, jobset-uid,
//                  replicatedjob-name, restart-attempt (status.restarts), job-restart-attempt (RestartJob gate),
//                  replicatedjob-replicas, global-replicas, job-index, job-key, job-global-index, group-name,
//                  group-replicas, job-group-index, and coordinator when spec.coordinator is set
//   annotations    the same keys, plus exclusive-topology (and node-selector) from the JobSet's or the template's
//                  annotations
//   owner          the JobSet, as controller (SetControllerReference)
//   spec           the template's, with suspend = spec.suspend of the JobSet, the pod subdomain when DNS hostnames
//                  are enabled, and with the nodeSelector strategy of exclusive placement a nodeSelector on
//                  namespaced-job and a toleration of the no-schedule taint, and the volumes of the
//                  volumeClaimPolicies' claims its containers mount (volume-claims.ts)
import { ReconcileError } from '../../kube/errors.js';
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import { jsonCopy } from '../common/json-copy.js';
import {
  childJobName,
  COORDINATOR_KEY,
  coordinatorEndpoint,
  EXCLUSIVE_KEY,
  GLOBAL_REPLICAS_KEY,
  globalJobIndex,
  globalReplicas,
  GROUP_NAME_KEY,
  GROUP_REPLICAS_KEY,
  groupJobIndex,
  groupReplicas,
  JOB_GLOBAL_INDEX_KEY,
  JOB_GROUP_INDEX_KEY,
  JOB_INDEX_KEY,
  JOB_KEY,
  JOB_RESTART_ATTEMPT_KEY,
  jobHashKey,
  JOBSET_NAME_KEY,
  JOBSET_UID_KEY,
  NAMESPACED_JOB_KEY,
  namespacedJobName,
  NO_SCHEDULE_TAINT_KEY,
  NODE_SELECTOR_STRATEGY_KEY,
  REPLICATED_JOB_NAME_KEY,
  REPLICATED_JOB_REPLICAS_KEY,
  RESTARTS_KEY,
  subdomainOf,
} from './labels.js';
import {
  JOB_API_VERSION,
  JOB_KIND,
  JOBSET_API_VERSION,
  JOBSET_KIND,
  RestartStrategy,
  type Job,
  type JobSet,
  type PlanOptions,
  type ReplicatedJob,
} from './types.js';
import { addClaimVolumes } from './volume-claims.js';

export type ChildJobs = {
  /** Of the current attempt (restart-attempt = status.restarts, and with RestartJob its own attempt): unfinished. */
  readonly active: Job[];
  readonly successful: Job[];
  readonly failed: Job[];
  /** Of an earlier attempt: to delete. */
  readonly previous: Job[];
};

/** strconv.Atoi: an optional sign and decimal digits, else undefined. */
export function atoi(value: string | undefined): number | undefined {
  if (value === undefined || !/^[+-]?\d+$/.test(value)) return undefined;
  return Number(value);
}

/** The finished condition type of a Job (JobFinished): 'Complete', 'Failed' or '' when unfinished. */
export function finishedType(job: Job): string {
  const c = (job.status?.conditions ?? []).find(
    (x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True',
  );
  return c?.type ?? '';
}

function badLabel(job: Job, why: string): ReconcileError {
  return new ReconcileError('PlanFailed', `child Job ${job.metadata.name ?? ''}: ${why}`);
}

/**
 * getChildJobs: Jobs whose restart-attempt label is below status.restarts are previous; with RestartJob, so are
 * those whose job-restart-attempt is below the replicatedJob's jobRestarts[index]. A label that does not parse
 * (or with RestartJob a missing replicatedjob-name or job-index, or an index past jobRestarts) fails the pass, as
 * upstream's error does (retried with backoff).
 */
export function classifyChildJobs(js: JobSet, jobs: readonly Job[], options: PlanOptions): ChildJobs {
  const out: ChildJobs = { active: [], successful: [], failed: [], previous: [] };
  const restarts = js.status?.restarts ?? 0;
  for (const job of jobs) {
    const labels = job.metadata.labels ?? {};
    const attempt = atoi(labels[RESTARTS_KEY]);
    if (attempt === undefined) throw badLabel(job, `invalid value for label ${RESTARTS_KEY}, must be integer`);
    if (attempt < restarts) {
      out.previous.push(job);
      continue;
    }
    if (options.restartJob === true) {
      const rjobName = labels[REPLICATED_JOB_NAME_KEY];
      if (rjobName === undefined) throw badLabel(job, `missing label ${REPLICATED_JOB_NAME_KEY}`);
      const indexLabel = labels[JOB_INDEX_KEY];
      if (indexLabel === undefined) throw badLabel(job, `missing label ${JOB_INDEX_KEY}`);
      const index = atoi(indexLabel);
      if (index === undefined) throw badLabel(job, `invalid value for label ${JOB_INDEX_KEY}, must be integer`);
      const own = labels[JOB_RESTART_ATTEMPT_KEY];
      // A Job from before the label existed stays (upstream logs it); its recreation will carry the label.
      if (own !== undefined) {
        const ownAttempt = atoi(own);
        if (ownAttempt === undefined) {
          throw badLabel(job, `invalid value for label ${JOB_RESTART_ATTEMPT_KEY}, must be integer`);
        }
        const targets = jobRestartsOf(js, rjobName);
        if (index < 0 || index >= targets.length) {
          throw badLabel(job, `job index ${index} is out of bounds for replicated job ${rjobName}`);
        }
        if (ownAttempt < (targets[index] ?? 0)) {
          out.previous.push(job);
          continue;
        }
      }
    }
    const type = finishedType(job);
    if (type === '') out.active.push(job);
    else if (type === 'Failed') out.failed.push(job);
    else out.successful.push(job);
  }
  return out;
}

function replicasOf(js: JobSet, replicatedJobName: string): number {
  return (js.spec.replicatedJobs ?? []).find((r) => r.name === replicatedJobName)?.replicas ?? 0;
}

/** getJobRestarts: status jobRestarts of a replicatedJob, or as many zeros as it has replicas. */
export function jobRestartsOf(js: JobSet, replicatedJobName: string): number[] {
  const s = (js.status?.replicatedJobsStatus ?? []).find((r) => r.name === replicatedJobName);
  if (s?.jobRestarts && s.jobRestarts.length > 0) return [...s.jobRestarts];
  return new Array<number>(replicasOf(js, replicatedJobName)).fill(0);
}

/** getJobRestartsCountTowardsMax: likewise. */
export function jobRestartsCountTowardsMaxOf(js: JobSet, replicatedJobName: string): number[] {
  const s = (js.status?.replicatedJobsStatus ?? []).find((r) => r.name === replicatedJobName);
  if (s?.jobRestartsCountTowardsMax && s.jobRestartsCountTowardsMax.length > 0) {
    return [...s.jobRestartsCountTowardsMax];
  }
  return new Array<number>(replicasOf(js, replicatedJobName)).fill(0);
}

export function isDnsHostnamesEnabled(js: JobSet): boolean {
  return js.spec.network?.enableDNSHostnames === true;
}

export function isJobSetSuspended(js: JobSet): boolean {
  return js.spec.suspend === true;
}

export function isJobSuspended(job: Job): boolean {
  return job.spec.suspend === true;
}

/**
 * constructJobsFromTemplate: the Jobs of a replicatedJob that do not exist in any bucket (by name); none at all
 * while Jobs of an earlier attempt remain under BlockingRecreate.
 */
export function jobsToCreate(js: JobSet, rjob: ReplicatedJob, owned: ChildJobs, options: PlanOptions): Job[] {
  if (owned.previous.length > 0 && js.spec.failurePolicy?.restartStrategy === RestartStrategy.BlockingRecreate) {
    return [];
  }
  const existing = new Set(
    [...owned.active, ...owned.successful, ...owned.failed, ...owned.previous].map((j) => j.metadata.name),
  );
  const jobs: Job[] = [];
  for (let i = 0; i < (rjob.replicas ?? 0); i++) {
    if (existing.has(childJobName(js.metadata.name ?? '', rjob.name, i))) continue;
    jobs.push(constructJob(js, rjob, i, options));
  }
  return jobs;
}

type Meta = { labels?: Record<string, string>; annotations?: Record<string, string> };

/** labelAndAnnotateObject. */
function labelAndAnnotate(meta: Meta, js: JobSet, rjob: ReplicatedJob, index: number, options: PlanOptions): void {
  const ns = js.metadata.namespace ?? '';
  const jobName = childJobName(js.metadata.name ?? '', rjob.name, index);
  const group = rjob.groupName ?? '';
  const keys: Record<string, string> = {
    [JOBSET_NAME_KEY]: js.metadata.name ?? '',
    [JOBSET_UID_KEY]: js.metadata.uid ?? '',
    [REPLICATED_JOB_NAME_KEY]: rjob.name,
    [RESTARTS_KEY]: String(js.status?.restarts ?? 0),
    ...(options.restartJob === true && {
      [JOB_RESTART_ATTEMPT_KEY]: String(jobRestartsOf(js, rjob.name)[index] ?? 0),
    }),
    [REPLICATED_JOB_REPLICAS_KEY]: String(rjob.replicas ?? 0),
    [GLOBAL_REPLICAS_KEY]: globalReplicas(js),
    [JOB_INDEX_KEY]: String(index),
    [JOB_KEY]: jobHashKey(ns, jobName),
    [JOB_GLOBAL_INDEX_KEY]: globalJobIndex(js, rjob.name, index),
    [GROUP_NAME_KEY]: group,
    [GROUP_REPLICAS_KEY]: groupReplicas(js, group),
    [JOB_GROUP_INDEX_KEY]: groupJobIndex(js, group, rjob.name, index),
    ...(js.spec.coordinator !== undefined &&
      js.spec.coordinator !== null && { [COORDINATOR_KEY]: coordinatorEndpoint(js) }),
  };
  const labels = { ...(meta.labels ?? {}), ...keys };
  const annotations: Record<string, string> = { ...(meta.annotations ?? {}), ...keys };
  const jsAnnotations = js.metadata.annotations ?? {};
  const exclusiveOf = (source: Record<string, string>): void => {
    const domain = source[EXCLUSIVE_KEY];
    if (domain === undefined) return;
    annotations[EXCLUSIVE_KEY] = domain;
    const strategy = source[NODE_SELECTOR_STRATEGY_KEY];
    if (strategy !== undefined) annotations[NODE_SELECTOR_STRATEGY_KEY] = strategy;
  };
  exclusiveOf(jsAnnotations);
  exclusiveOf(rjob.template.metadata?.annotations ?? {});
  meta.labels = labels;
  meta.annotations = annotations;
}

/** constructJob, with the controller reference createJobs sets. */
export function constructJob(js: JobSet, rjob: ReplicatedJob, index: number, options: PlanOptions): Job {
  const tmeta = rjob.template.metadata ?? {};
  const jobMeta: Meta = {
    ...(tmeta.labels !== undefined && { labels: { ...tmeta.labels } }),
    ...(tmeta.annotations !== undefined && { annotations: { ...tmeta.annotations } }),
  };
  labelAndAnnotate(jobMeta, js, rjob, index, options);
  const spec = jsonCopy(rjob.template.spec ?? {});
  const template = (spec.template ??= {});
  const podMeta = (template.metadata ??= {}) as Meta;
  labelAndAnnotate(podMeta, js, rjob, index, options);
  const podSpec = (template.spec ??= { containers: [] });
  if (isDnsHostnamesEnabled(js)) podSpec.subdomain = subdomainOf(js);
  const name = childJobName(js.metadata.name ?? '', rjob.name, index);
  const namespace = js.metadata.namespace ?? '';
  const annotations = jobMeta.annotations ?? {};
  if (annotations[EXCLUSIVE_KEY] !== undefined && annotations[NODE_SELECTOR_STRATEGY_KEY] !== undefined) {
    podSpec.nodeSelector = {
      ...(podSpec.nodeSelector ?? {}),
      [NAMESPACED_JOB_KEY]: namespacedJobName(namespace, name),
    };
    podSpec.tolerations = [
      ...(podSpec.tolerations ?? []),
      { key: NO_SCHEDULE_TAINT_KEY, operator: 'Exists', effect: 'NoSchedule' },
    ];
  }
  spec.suspend = isJobSetSuspended(js);
  const job: Job = {
    apiVersion: JOB_API_VERSION,
    kind: JOB_KIND,
    metadata: {
      name,
      namespace,
      labels: jobMeta.labels ?? {},
      annotations,
      ownerReferences: [
        newControllerRef({
          apiVersion: JOBSET_API_VERSION,
          kind: JOBSET_KIND,
          name: js.metadata.name ?? '',
          uid: js.metadata.uid ?? '',
        }),
      ],
    },
    spec,
  };
  if ((js.spec.volumeClaimPolicies ?? []).length > 0) addClaimVolumes(job, js);
  return job;
}
