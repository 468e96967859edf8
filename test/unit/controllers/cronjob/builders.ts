// Builders for CronJob planner tests: a CronJob and its Jobs described by what the controller reads, and a fixed
// clock (mid-minute, so a `*/5 * * * *` run at 10:00 is due 30 s late and the next is 10:05).
import type { CronJob, Job, ObjectReference, ObservedCronJob } from '../../../../shared/controllers/cronjob/types.js';

export const NOW = new Date('2026-03-10T10:00:30Z');
export const NS = 'ns';
export const CJ = 'backup';
export const CJ_UID = 'uid-cj';

/** A wire time `s` seconds after NOW (negative: before), whole seconds as the apiserver writes it. */
export const at = (s: number): string =>
  new Date(Math.floor(NOW.getTime() / 1000 + s) * 1000).toISOString().replace('.000Z', 'Z');
/** An RFC 3339 time as the apiserver writes it. */
export const wire = (iso: string): string => new Date(iso).toISOString().replace('.000Z', 'Z');
export const ms = (iso: string): number => Date.parse(iso);
/** getJobName's suffix: minutes since the epoch. */
export const minutes = (iso: string): number => Math.floor(Date.parse(iso) / 60_000);
export const runName = (iso: string): string => `${CJ}-${minutes(iso)}`;

export type CronJobOptions = {
  schedule?: string;
  timeZone?: string;
  policy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  deadline?: number;
  lastSchedule?: string;
  lastSuccessful?: string;
  active?: ObjectReference[];
  succeededLimit?: number | null;
  failedLimit?: number | null;
  created?: string;
  deleting?: boolean;
};

export function aCronJob(o: CronJobOptions = {}): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name: CJ,
      namespace: NS,
      uid: CJ_UID,
      resourceVersion: '10',
      creationTimestamp: o.created ?? '2026-03-10T09:00:00Z',
      ...(o.deleting && { deletionTimestamp: at(-1) }),
    },
    spec: {
      schedule: o.schedule ?? '*/5 * * * *',
      ...(o.timeZone !== undefined && { timeZone: o.timeZone }),
      concurrencyPolicy: o.policy ?? 'Allow',
      suspend: o.suspend ?? false,
      ...(o.deadline !== undefined && { startingDeadlineSeconds: o.deadline }),
      successfulJobsHistoryLimit: o.succeededLimit === undefined ? 3 : o.succeededLimit,
      failedJobsHistoryLimit: o.failedLimit === undefined ? 1 : o.failedLimit,
      jobTemplate: {
        metadata: { labels: { app: 'backup' }, annotations: { team: 'ops' } },
        spec: {
          backoffLimit: 2,
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
        },
      },
    },
    status: {
      ...(o.active !== undefined && { active: o.active }),
      ...(o.lastSchedule !== undefined && { lastScheduleTime: wire(o.lastSchedule) }),
      ...(o.lastSuccessful !== undefined && { lastSuccessfulTime: wire(o.lastSuccessful) }),
    },
  };
}

export type JobOptions = {
  uid?: string;
  /** Controlled by the CronJob (default), by another owner, or by nothing. */
  owner?: string | null;
  finished?: 'Complete' | 'Failed';
  start?: string;
  completion?: string;
};

export function aJob(name: string, o: JobOptions = {}): Job {
  const owner = o.owner === undefined ? CJ_UID : o.owner;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: NS,
      uid: o.uid ?? `uid-${name}`,
      resourceVersion: '20',
      ...(owner !== null && {
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: CJ, uid: owner, controller: true }],
      }),
    },
    spec: {},
    status: {
      ...(o.start !== undefined && { startTime: wire(o.start) }),
      ...(o.completion !== undefined && { completionTime: wire(o.completion) }),
      ...(o.finished !== undefined && {
        conditions: [
          { type: o.finished, status: 'True', lastTransitionTime: wire(o.completion ?? o.start ?? NOW.toISOString()) },
        ],
      }),
    },
  };
}

/** status.active's reference to a Job. */
export function ref(job: Job): ObjectReference {
  return {
    kind: 'Job',
    namespace: NS,
    name: job.metadata.name ?? '',
    uid: job.metadata.uid ?? '',
    apiVersion: 'batch/v1',
    resourceVersion: job.metadata.resourceVersion ?? '',
  };
}

export function observed(
  cronJob: CronJob | null,
  jobs: Job[] = [],
  extra: Partial<Pick<ObservedCronJob, 'fresh' | 'jobsByName' | 'existing'>> = {},
): ObservedCronJob {
  return { namespace: NS, name: CJ, cronJob, jobs, existing: null, ...extra };
}
