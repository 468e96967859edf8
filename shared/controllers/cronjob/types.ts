// What the CronJob controller observes, and the names it shares with kube-controller-manager's cronjob-controller
// (pkg/controller/cronjob, 1.37). The CronJob is the apiserver's JSON as read (timestamps are RFC 3339 strings),
// typed as far as the planner uses it; its Jobs are typed by common/job-api.ts.
import type { Job, JobSpec, WireObjectMeta } from '../common/job-api.js';

export type { Job };

export type Time = string;

export const ConcurrencyPolicy = { Allow: 'Allow', Forbid: 'Forbid', Replace: 'Replace' } as const;

/** corev1.ObjectReference as ref.GetReference makes it for a Job (status.active). */
export type ObjectReference = {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
};

export type CronJobSpec = {
  schedule: string;
  timeZone?: string | null;
  startingDeadlineSeconds?: number | null;
  concurrencyPolicy?: string;
  suspend?: boolean | null;
  jobTemplate: {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; [other: string]: unknown };
    spec?: JobSpec;
  };
  successfulJobsHistoryLimit?: number | null;
  failedJobsHistoryLimit?: number | null;
  [other: string]: unknown;
};

export type CronJobStatus = {
  active?: ObjectReference[] | null;
  lastScheduleTime?: Time | null;
  lastSuccessfulTime?: Time | null;
  [other: string]: unknown;
};

export type CronJob = {
  apiVersion?: string;
  kind?: string;
  metadata: WireObjectMeta;
  spec: CronJobSpec;
  status?: CronJobStatus;
};

export type ObservedCronJob = {
  readonly namespace: string;
  readonly name: string;
  /** The CronJob as the view has it (the cache's copy, or live); null when it is gone. */
  readonly cronJob: CronJob | null;
  /** The Jobs whose controller reference names it (the jobControllerUID index), whatever their state. */
  readonly jobs: readonly Job[];
  /**
   * The CronJob read again, uncached (syncCronJob's GetCronJob), only when one of its unfinished Jobs is missing
   * from status.active; null when it is gone by then.
   */
  readonly fresh?: CronJob | null;
  /**
   * Jobs read live by name (jobControl.GetJob), null when not found: an active reference whose Job the jobs above
   * lack (is it really gone?), and with concurrencyPolicy Replace and a run due, every active Job (to delete).
   */
  readonly jobsByName?: Readonly<Record<string, Job | null>>;
  /** With a run due: the Job that has the run's name, if any (its create would be refused AlreadyExists). */
  readonly existing?: Job | null;
};

export const CRONJOB_API_VERSION = 'batch/v1';
export const CRONJOB_KIND = 'CronJob';
export const JOB_API_VERSION = 'batch/v1';
export const JOB_KIND = 'Job';
export const CRONJOB_EVENT_SOURCE = 'cronjob-controller';

/** batchv1.CronJobScheduledTimestampAnnotation (CronJobsScheduledAnnotation, GA 1.32). */
export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** nextScheduleDelta: a requeue for the next run comes this long after it (NTP skew). */
export const NEXT_SCHEDULE_DELTA_MS = 100;
/** More missed start times than this: TooManyMissedTimes. */
export const MANY_MISSED = 100;

export const Reason = {
  SuccessfulCreate: 'SuccessfulCreate',
  FailedCreate: 'FailedCreate',
  SuccessfulDelete: 'SuccessfulDelete',
  FailedDelete: 'FailedDelete',
  FailedGet: 'FailedGet',
  SawCompletedJob: 'SawCompletedJob',
  UnexpectedJob: 'UnexpectedJob',
  MissingJob: 'MissingJob',
  JobAlreadyActive: 'JobAlreadyActive',
  MissSchedule: 'MissSchedule',
  TooManyMissedTimes: 'TooManyMissedTimes',
  UnknownTimeZone: 'UnknownTimeZone',
  UnsupportedSchedule: 'UnsupportedSchedule',
  UnparseableSchedule: 'UnparseableSchedule',
  InvalidSchedule: 'InvalidSchedule',
} as const;
