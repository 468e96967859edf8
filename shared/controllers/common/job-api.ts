// The batch/v1 Job as the apiserver's JSON has it (timestamps are RFC 3339 strings), typed as far as the Job,
// CronJob and TTL-after-finished controllers read it, and util.IsJobFinished, which all three use.
import type { ObjectMeta, PodTemplateSpec, Time } from '../../kube/api/objects.js';

export type { Time } from '../../kube/api/objects.js';

/** An object's metadata as the apiserver's JSON has it (kube/api's ObjectMeta); Job and CronJob share it. */
export type WireObjectMeta = ObjectMeta;

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
  template?: PodTemplateSpec;
  completionMode?: string;
  suspend?: boolean;
  podReplacementPolicy?: string;
  podFailurePolicy?: PodFailurePolicy;
  successPolicy?: SuccessPolicy;
  managedBy?: string;
  /** Read by the TTL-after-finished controller, not by the Job controller. */
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
/** batch/v1 SuccessPolicy (Indexed Jobs only). */
export type SuccessPolicy = { rules?: { succeededIndexes?: string; succeededCount?: number }[] };

export type Job = {
  apiVersion?: string;
  kind?: string;
  metadata: WireObjectMeta;
  spec: JobSpec;
  status?: JobStatus;
};

/** util.IsJobFinished: Complete or Failed is True. */
export function isJobFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
}
