// What the JobSet controller observes, and the names it shares with sigs.k8s.io/jobset v0.12.0 (API
// jobset.x-k8s.io/v1alpha2, pkg/constants). The JobSet is the apiserver's JSON as read (timestamps are RFC 3339
// strings), typed as far as the planner reads it; its Jobs are typed by common/job-api.ts.
import type { Condition, CustomResource, ServiceRef } from '../common/custom-resource.js';
import type { PersistentVolumeClaim } from '../../kube/api/objects.js';
import type { Job, JobSpec, Time, WireObjectMeta } from '../common/job-api.js';

export type { Job, JobSpec, PersistentVolumeClaim, Time };

export const JOBSET_API_VERSION = 'jobset.x-k8s.io/v1alpha2';
export const JOBSET_KIND = 'JobSet';
export const JOB_API_VERSION = 'batch/v1';
export const JOB_KIND = 'Job';
export const SERVICE_KIND = 'Service';
export const CLAIM_KIND = 'PersistentVolumeClaim';
/** mgr.GetEventRecorder("jobset"): the component its events carry. */
export const JOBSET_EVENT_SOURCE = 'jobset';
/** jobset.JobSetControllerName: the spec.managedBy value (or none) this controller reconciles. */
export const JOBSET_CONTROLLER_NAME = 'jobset.sigs.k8s.io/jobset-controller';

export const ConditionType = {
  Completed: 'Completed',
  Failed: 'Failed',
  Suspended: 'Suspended',
  Restarting: 'RestartingJobSet',
  StartupPolicyInProgress: 'StartupPolicyInProgress',
  StartupPolicyCompleted: 'StartupPolicyCompleted',
} as const;

export const FailurePolicyAction = {
  FailJobSet: 'FailJobSet',
  RestartJobSet: 'RestartJobSet',
  RestartJobSetAndIgnoreMaxRestarts: 'RestartJobSetAndIgnoreMaxRestarts',
  RestartJob: 'RestartJob',
  RestartJobAndIgnoreMaxRestarts: 'RestartJobAndIgnoreMaxRestarts',
} as const;

export const RestartStrategy = {
  Recreate: 'Recreate',
  BlockingRecreate: 'BlockingRecreate',
  InPlaceRestart: 'InPlaceRestart',
} as const;

export const Operator = { All: 'All', Any: 'Any' } as const;
export const StartupPolicyOrder = { AnyOrder: 'AnyOrder', InOrder: 'InOrder' } as const;
export const DependsOnStatus = { Ready: 'Ready', Complete: 'Complete' } as const;

/** metav1.Condition. */
export type { Condition };

export type JobTemplateSpec = {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; [other: string]: unknown };
  spec: JobSpec;
};

export type DependsOn = { name: string; status: string };

export type ReplicatedJob = {
  name: string;
  groupName?: string;
  template: JobTemplateSpec;
  /** Defaulted to 1 by the webhook; absent reads as 0, as Go's int32 does. */
  replicas?: number;
  dependsOn?: DependsOn[];
};

export type Network = { enableDNSHostnames?: boolean; subdomain?: string; publishNotReadyAddresses?: boolean };

export type FailurePolicyRule = {
  name: string;
  action: string;
  onJobFailureReasons?: string[];
  onJobFailureMessagePatterns?: string[];
  targetReplicatedJobs?: string[];
};

export type FailurePolicy = { maxRestarts?: number; restartStrategy?: string; rules?: FailurePolicyRule[] };

export type SuccessPolicy = { operator: string; targetReplicatedJobs?: string[] };

export type StartupPolicy = { startupPolicyOrder: string };

export type Coordinator = { replicatedJob: string; jobIndex?: number; podIndex?: number };

export type JobSetSpec = {
  replicatedJobs?: ReplicatedJob[];
  network?: Network;
  successPolicy?: SuccessPolicy;
  failurePolicy?: FailurePolicy;
  startupPolicy?: StartupPolicy;
  suspend?: boolean;
  coordinator?: Coordinator;
  managedBy?: string;
  ttlSecondsAfterFinished?: number;
  volumeClaimPolicies?: VolumeClaimPolicy[];
  [other: string]: unknown;
};

/** A claim template: a PersistentVolumeClaim as far as the planner reads it (its name, labels, annotations, spec). */
export type ClaimTemplate = {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
};

/** volumeClaimPolicies[]: shared claims the replicatedJobs may mount, and whether they go with the JobSet. */
export type VolumeClaimPolicy = {
  templates?: ClaimTemplate[];
  retentionPolicy?: { whenDeleted?: string };
};

export type ReplicatedJobStatus = {
  name: string;
  ready: number;
  succeeded: number;
  failed: number;
  active: number;
  suspended: number;
  jobRestarts?: number[];
  jobRestartsCountTowardsMax?: number[];
};

export type JobSetStatus = {
  conditions?: Condition[];
  restarts?: number;
  restartsCountTowardsMax?: number;
  terminalState?: string;
  replicatedJobsStatus?: ReplicatedJobStatus[];
  previousInPlaceRestartAttempt?: number;
  currentInPlaceRestartAttempt?: number;
  [other: string]: unknown;
};

export type JobSet = CustomResource<WireObjectMeta, JobSetSpec, JobSetStatus>;

/** The headless Service as far as the planner reads it (only whether it exists). */
export type Service = ServiceRef<WireObjectMeta>;

export type ObservedJobSet = {
  readonly namespace: string;
  readonly name: string;
  /** The JobSet as the view has it; null when it is gone. */
  readonly jobSet: JobSet | null;
  /** The Jobs in its namespace whose controller reference names its uid (upstream's JobsIndexByJobSetKey). */
  readonly jobs: readonly Job[];
  /**
   * The Service named by its subdomain (GetSubdomain), read only when network.enableDNSHostnames is true:
   * null when it does not exist, undefined when not read.
   */
  readonly service?: Service | null;
  /**
   * The claims its volumeClaimPolicies name (`<template>-<jobset>`), by name: null when missing. Read only when it
   * has volumeClaimPolicies.
   */
  readonly claims?: Readonly<Record<string, PersistentVolumeClaim | null>>;
  /**
   * True when the JobSet was suspended and resumed again before this pass read it, while Jobs of it still run
   * unsuspended (observe.ts suspensionMissed): the pass suspends them as the suspended state's pass would have.
   */
  readonly missedSuspension?: boolean;
};

/** Feature gates of pkg/features that change what the controller does (all alpha, off by default upstream). */
export type PlanOptions = {
  /** RestartJob: per-Job restarts (job-restart-attempt, the RestartJob* failure policy actions). */
  readonly restartJob?: boolean;
};

export const Reason = {
  ReachedMaxRestarts: 'ReachedMaxRestarts',
  FailedJobs: 'FailedJobs',
  AllJobsCompleted: 'AllJobsCompleted',
  JobCreationFailed: 'JobCreationFailed',
  HeadlessServiceCreationFailed: 'HeadlessServiceCreationFailed',
  PVCCreationFailed: 'PVCCreationFailed',
  InOrderStartupPolicyInProgress: 'InOrderStartupPolicyInProgress',
  InOrderStartupPolicyCompleted: 'InOrderStartupPolicyCompleted',
  RestartingDefaultFailurePolicy: 'DefaultFailurePolicy',
  RestartingJobsReady: 'JobsReady',
  RestartingJobSetFailed: 'JobSetFailed',
  RestartingJobSetCompleted: 'JobSetCompleted',
  RestartingJobSetSuspended: 'JobSetSuspended',
  SuspendedJobs: 'SuspendedJobs',
  ResumeJobs: 'ResumeJobs',
  FailJobSetAction: 'FailJobSetFailurePolicyAction',
  RestartJobSetAction: 'RestartJobSetFailurePolicyAction',
  RestartJobSetAndIgnoreMaxRestartsAction: 'RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction',
  RestartJobAction: 'RestartJobFailurePolicyAction',
  RestartJobAndIgnoreMaxRestartsAction: 'RestartJobAndIgnoreMaxRestartsFailurePolicyAction',
} as const;

export const Message = {
  ReachedMaxRestarts: 'jobset failed due to reaching max number of restarts',
  FailedJobs: 'jobset failed due to one or more job failures',
  AllJobsCompleted: 'jobset completed successfully',
  InOrderStartupPolicyInProgress: 'in order startup policy is in progress',
  InOrderStartupPolicyCompleted: 'in order startup policy has completed',
  RestartingJobsReady: 'all jobs are ready',
  RestartingJobSetFailed: 'jobset failed',
  Suspended: 'jobset is suspended',
  Resumed: 'jobset is resumed',
  FailJobSetAction: 'applying FailJobSet failure policy action',
  RestartJobSetAction: 'applying RestartJobSet failure policy action',
  RestartJobSetAndIgnoreMaxRestartsAction: 'applying RestartJobSetAndIgnoreMaxRestarts failure policy action',
  RestartJobAction: 'applying RestartJob failure policy action',
  RestartJobAndIgnoreMaxRestartsAction: 'applying RestartJobAndIgnoreMaxRestarts failure policy action',
} as const;

/** RestartingJobSetReasonFailurePolicyFormat. */
export function failurePolicyRuleReason(ruleName: string): string {
  return `FailurePolicy_${ruleName}`;
}
