// What the Job controller observes, and the names it shares with kube-controller-manager's job-controller (1.37).
// The Job is the apiserver's JSON as read (timestamps are RFC 3339 strings), typed as far as the planner uses it;
// pods are kube/api's Pod, their JSON too.
import type { Pod } from '../../kube/api/objects.js';
import type { Job } from '../common/job-api.js';

// The batch/v1 Job itself is common/job-api.ts's (the CronJob and TTL controllers read Jobs too).
export type {
  Job,
  JobCondition,
  JobConditionType,
  JobSpec,
  JobStatus,
  PodFailurePolicy,
  PodFailurePolicyRule,
  SuccessPolicy,
  Time,
  UncountedTerminatedPods,
  WireObjectMeta,
} from '../common/job-api.js';

export const PodFailurePolicyAction = {
  FailJob: 'FailJob',
  FailIndex: 'FailIndex',
  Ignore: 'Ignore',
  Count: 'Count',
} as const;
export type PodFailurePolicyAction = (typeof PodFailurePolicyAction)[keyof typeof PodFailurePolicyAction];

export const PodReplacementPolicy = { TerminatingOrFailed: 'TerminatingOrFailed', Failed: 'Failed' } as const;

export type ObservedJob = {
  readonly namespace: string;
  readonly name: string;
  /** null when the Job is gone. */
  readonly job: Job | null;
  /**
   * With a Job: its pods and the namespace's orphans (FilterPodsByOwner with orphans, as getPodsForJob lists them),
   * terminal pods included. Without one: the namespace's pods whose controller reference names a Job of this name
   * and that still carry the tracking finalizer (upstream's orphan-pod queue removes it).
   */
  readonly pods: readonly Pod[];
  /**
   * With a Job: the namespace's terminating pods whose controller reference names a Job of this name under another
   * uid (a Job deleted and created again with the same name) and that still carry the tracking finalizer. Upstream's
   * orphan-pod worker removes it: resolveControllerRef finds no Job of that uid.
   */
  readonly replacedJobPods?: readonly Pod[];
  /** RecheckDeletionTimestamp: the Job read again (uncached) after the pods, only when an orphan is to be adopted. */
  readonly adoptionRecheck?: Job | null;
};

export const JOB_API_VERSION = 'batch/v1';
export const JOB_KIND = 'Job';
export const JOB_EVENT_SOURCE = 'job-controller';

/** batch.JobTrackingFinalizer. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** batch.JobCompletionIndexAnnotation (also the label's key since PodIndexLabel, GA 1.32). */
export const COMPLETION_INDEX_KEY = 'batch.kubernetes.io/job-completion-index';
export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';
/** batch.JobIndexFailureCountAnnotation and batch.JobIndexIgnoredFailureCountAnnotation (backoffLimitPerIndex). */
export const INDEX_FAILURE_COUNT_KEY = 'batch.kubernetes.io/job-index-failure-count';
export const INDEX_IGNORED_FAILURE_COUNT_KEY = 'batch.kubernetes.io/job-index-ignored-failure-count';
/** batch.JobControllerName: the built-in controller's spec.managedBy value. */
export const BUILT_IN_MANAGER = 'kubernetes.io/job-controller';
/** fleetq's own spec.managedBy value: a Job naming it is fleetq's on any cluster. */
export const FLEETQ_MANAGER = 'fleetq.dev/job-controller';

export const CompletionMode = { NonIndexed: 'NonIndexed', Indexed: 'Indexed' } as const;

/** MaxUncountedPods: at most this many uids enter status.uncountedTerminatedPods per pass. */
export const MAX_UNCOUNTED_PODS = 500;
/** MaxPodCreateDeletePerSync. */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
/** DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff (ms). */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;
/** SyncJobBatchPeriod: a delayed sync is never sooner than this (ms). */
export const SYNC_BATCH_PERIOD_MS = 1_000;

export const Reason = {
  SuccessfulCreate: 'SuccessfulCreate',
  FailedCreate: 'FailedCreate',
  SuccessfulDelete: 'SuccessfulDelete',
  FailedDelete: 'FailedDelete',
  Completed: 'Completed',
  TooManySucceededPods: 'TooManySucceededPods',
  Suspended: 'Suspended',
  Resumed: 'Resumed',
  UnknownCompletionMode: 'UnknownCompletionMode',
  AdoptPod: 'AdoptPod',
  ReleasePod: 'ReleasePod',
  RemoveTrackingFinalizer: 'RemoveTrackingFinalizer',
  /** fleetq's own (KEP-4443 ahead of upstream): the rule-names annotation is malformed and ignored. */
  InvalidPodFailurePolicyRuleNames: 'InvalidPodFailurePolicyRuleNames',
} as const;

export const ConditionReason = {
  BackoffLimitExceeded: 'BackoffLimitExceeded',
  DeadlineExceeded: 'DeadlineExceeded',
  CompletionsReached: 'CompletionsReached',
  PodFailurePolicy: 'PodFailurePolicy',
  MaxFailedIndexesExceeded: 'MaxFailedIndexesExceeded',
  FailedIndexes: 'FailedIndexes',
  SuccessPolicy: 'SuccessPolicy',
  JobSuspended: 'JobSuspended',
  JobResumed: 'JobResumed',
} as const;
