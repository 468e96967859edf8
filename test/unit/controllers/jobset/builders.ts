// Builders for JobSet planner tests, after upstream's testutils (MakeJobSet, MakeReplicatedJob, MakeJob): a JobSet
// and its child Jobs described by what the controller reads, and a fixed clock.
import {
  childJobName,
  JOB_INDEX_KEY,
  REPLICATED_JOB_NAME_KEY,
  RESTARTS_KEY,
} from '../../../../shared/controllers/jobset/labels.js';
import type {
  Condition,
  Job,
  JobSet,
  JobSetSpec,
  JobSetStatus,
  ObservedJobSet,
  ReplicatedJob,
} from '../../../../shared/controllers/jobset/types.js';

export const NOW = new Date('2026-03-10T10:00:30Z');
export const NS = 'default';
export const JS = 'test-jobset';
export const JS_UID = 'uid-js';

/** A wire time `s` seconds after NOW (negative: before). */
export const at = (s: number): string =>
  new Date(Math.floor(NOW.getTime() / 1000 + s) * 1000).toISOString().replace('.000Z', 'Z');

export function aReplicatedJob(name: string, replicas = 1, extra: Partial<ReplicatedJob> = {}): ReplicatedJob {
  return {
    name,
    replicas,
    template: {
      spec: {
        parallelism: 1,
        completions: 1,
        template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } },
      },
    },
    ...extra,
  };
}

export function aJobSet(
  spec: Partial<JobSetSpec> = {},
  status: JobSetStatus = {},
  meta: Partial<JobSet['metadata']> = {},
): JobSet {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name: JS, namespace: NS, uid: JS_UID, resourceVersion: '10', generation: 1, ...meta },
    spec: { replicatedJobs: [aReplicatedJob('replicated-job')], ...spec },
    status: { restarts: 0, ...status },
  };
}

export type JobState =
  | { kind: 'active'; ready?: number; active?: number; suspended?: boolean; startTime?: string }
  | { kind: 'succeeded' }
  | { kind: 'failed'; at?: string; reason?: string; message?: string };

/** A child Job as the JobSet created it: the labels the controller reads, and a state. */
export function aChildJob(
  rjob: string,
  index: number,
  state: JobState = { kind: 'active' },
  o: { restarts?: number; labels?: Record<string, string>; deleting?: boolean; parallelism?: number } = {},
): Job {
  const name = childJobName(JS, rjob, index);
  const conditions: NonNullable<NonNullable<Job['status']>['conditions']> = [];
  if (state.kind === 'succeeded') conditions.push({ type: 'Complete', status: 'True', lastTransitionTime: at(-10) });
  if (state.kind === 'failed') {
    conditions.push({
      type: 'Failed',
      status: 'True',
      lastTransitionTime: state.at ?? at(-10),
      reason: state.reason ?? 'BackoffLimitExceeded',
      message: state.message ?? 'Job has reached the specified backoff limit',
    });
  }
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      resourceVersion: '5',
      labels: {
        [REPLICATED_JOB_NAME_KEY]: rjob,
        [JOB_INDEX_KEY]: String(index),
        [RESTARTS_KEY]: String(o.restarts ?? 0),
        ...o.labels,
      },
      ownerReferences: [
        { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: JS, uid: JS_UID, controller: true },
      ],
      ...(o.deleting === true && { deletionTimestamp: at(-1) }),
    },
    spec: {
      parallelism: o.parallelism ?? 1,
      completions: 1,
      suspend: state.kind === 'active' && state.suspended === true,
      template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
    status: {
      ...(conditions.length > 0 && { conditions }),
      ...(state.kind === 'active' && {
        ready: state.ready ?? 0,
        active: state.active ?? 0,
        ...(state.startTime !== undefined && { startTime: state.startTime }),
      }),
      ...(state.kind === 'succeeded' && { succeeded: 1 }),
      ...(state.kind === 'failed' && { failed: 1 }),
    },
  };
}

export function observed(
  jobSet: JobSet | null,
  jobs: Job[] = [],
  service?: ObservedJobSet['service'],
  claims?: ObservedJobSet['claims'],
): ObservedJobSet {
  return {
    namespace: NS,
    name: JS,
    jobSet,
    jobs,
    ...(service !== undefined && { service }),
    ...(claims !== undefined && { claims }),
  };
}

export function cond(type: string, status: 'True' | 'False', reason: string, message = ''): Condition {
  return { type, status, reason, message, lastTransitionTime: at(-100) };
}
