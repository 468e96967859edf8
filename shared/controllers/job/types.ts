// What the Job controller observes, and the names it shares with kube-controller-manager's job-controller (1.37).
// The Job is the apiserver's JSON as read (timestamps are RFC 3339 strings), typed as far as the planner uses it;
// pods are client-node's V1Pod (the shared pod helpers read their times as Date or string alike).
import type { V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { OwnerReference } from '../../kube/meta/controller-ref.js';

export type Time = string;

/** An object's metadata as the apiserver's JSON has it (timestamps as RFC 3339 strings); Job and CronJob share it. */
export type WireObjectMeta = {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time;
  deletionTimestamp?: Time;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  [other: string]: unknown;
};

export type JobConditionType = 'Suspended' | 'Complete' | 'Failed' | 'FailureTarget' | 'SuccessCriteriaMet';

export type JobCondition = {
  type: JobConditionType | string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: Time;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
};

export type UncountedTerminatedPods = { succeeded?: string[]; failed?: string[] };

export type JobStatus = {
  conditions?: JobCondition[];
  startTime?: Time;
  completionTime?: Time;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  completedIndexes?: string;
  failedIndexes?: string;
  uncountedTerminatedPods?: UncountedTerminatedPods;
  ready?: number;
  [other: string]: unknown;
};

export type JobSpec = {
  parallelism?: number;
  completions?: number;
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  backoffLimitPerIndex?: number;
  maxFailedIndexes?: number;
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  manualSelector?: boolean;
  template?: V1PodTemplateSpec;
  completionMode?: string;
  suspend?: boolean;
  podReplacementPolicy?: string;
  podFailurePolicy?: PodFailurePolicy;
  successPolicy?: SuccessPolicy;
  managedBy?: string;
  /** Read by the TTL-after-finished controller (controllers/ttl-after-finished/), not by this one. */
  ttlSecondsAfterFinished?: number;
  [other: string]: unknown;
};

/** batch/v1 PodFailurePolicy (rules are evaluated in order; the first match wins). */
export type PodFailurePolicy = { rules?: PodFailurePolicyRule[] };
export type PodFailurePolicyRule = {
  /** KEP-4443's field, not in the 1.37 API: read first once an apiserver serves it (rule-names.ts). */
  name?: string;
  /** FailJob | FailIndex | Ignore | Count; an unknown action skips the rule. */
  action: string;
  onExitCodes?: { containerName?: string; operator: string; values?: number[] };
  /** status defaults to True (apiserver). */
  onPodConditions?: { type: string; status?: string }[];
};
export const PodFailurePolicyAction = {
  FailJob: 'FailJob',
  FailIndex: 'FailIndex',
  Ignore: 'Ignore',
  Count: 'Count',
} as const;
export type PodFailurePolicyAction = (typeof PodFailurePolicyAction)[keyof typeof PodFailurePolicyAction];

/** batch/v1 SuccessPolicy (Indexed Jobs only). */
export type SuccessPolicy = { rules?: { succeededIndexes?: string; succeededCount?: number }[] };

export const PodReplacementPolicy = { TerminatingOrFailed: 'TerminatingOrFailed', Failed: 'Failed' } as const;

export type Job = {
  apiVersion?: string;
  kind?: string;
  metadata: WireObjectMeta;
  spec: JobSpec;
  status?: JobStatus;
};

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
  readonly pods: readonly V1Pod[];
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
