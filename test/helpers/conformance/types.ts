// The data a conformance scenario is made of, and what one side (a cluster + namespace) looks like when
// sampled. Objects are the raw JSON of the API (timestamps are strings), read through KubeRest so no
// field the client library does not know yet (terminatingReplicas, …) is lost.
export type Labels = Record<string, string>;

export type ObjectMeta = {
  name?: string;
  finalizers?: string[];
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Labels;
  annotations?: Labels;
  ownerReferences?: OwnerRef[];
};

export type OwnerRef = {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
};

export type Condition = {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
};

export type PodTemplate = { metadata?: { labels?: Labels; annotations?: Labels }; spec?: Record<string, unknown> };

export type IntOrString = number | string;

export type Deployment = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: {
    replicas?: number;
    selector: { matchLabels?: Labels };
    template: PodTemplate;
    strategy?: {
      type?: 'RollingUpdate' | 'Recreate';
      rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString };
    };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    progressDeadlineSeconds?: number;
    paused?: boolean;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    terminatingReplicas?: number;
    collisionCount?: number;
    conditions?: Condition[];
  };
};

export type ReplicaSet = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: { replicas?: number; minReadySeconds?: number; selector: { matchLabels?: Labels }; template: PodTemplate };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    terminatingReplicas?: number;
    conditions?: Condition[];
  };
};

export type Job = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: {
    parallelism?: number;
    completions?: number;
    completionMode?: 'NonIndexed' | 'Indexed';
    backoffLimit?: number;
    activeDeadlineSeconds?: number;
    suspend?: boolean;
    manualSelector?: boolean;
    selector?: { matchLabels?: Labels };
    ttlSecondsAfterFinished?: number;
    template: PodTemplate;
  };
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    ready?: number;
    terminating?: number;
    completedIndexes?: string;
    failedIndexes?: string;
    uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
    startTime?: string;
    completionTime?: string;
    conditions?: Condition[];
  };
};

/** A CronJob (the CronJob scenarios): the fields the harness writes and reads. */
export type CronJob = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: {
    schedule: string;
    timeZone?: string;
    concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
    suspend?: boolean;
    startingDeadlineSeconds?: number;
    successfulJobsHistoryLimit?: number;
    failedJobsHistoryLimit?: number;
    jobTemplate: { metadata?: { labels?: Labels; annotations?: Labels }; spec: Job['spec'] };
  };
  status?: {
    active?: Array<{ kind?: string; name?: string; namespace?: string; uid?: string }>;
    lastScheduleTime?: string;
    lastSuccessfulTime?: string;
  };
};

/** A DaemonSet (the DaemonSet scenarios): the fields the harness writes and reads. */
export type DaemonSet = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: {
    selector: { matchLabels?: Labels };
    template: PodTemplate;
    updateStrategy?: {
      type?: 'RollingUpdate' | 'OnDelete';
      rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString };
    };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
  };
  status?: {
    observedGeneration?: number;
    desiredNumberScheduled?: number;
    currentNumberScheduled?: number;
    numberMisscheduled?: number;
    numberReady?: number;
    numberAvailable?: number;
    numberUnavailable?: number;
    updatedNumberScheduled?: number;
    collisionCount?: number;
  };
};

/** A StatefulSet (the StatefulSet scenarios): the fields the harness writes and reads. */
export type StatefulSet = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: {
    replicas?: number;
    serviceName?: string;
    selector: { matchLabels?: Labels };
    template: PodTemplate;
    podManagementPolicy?: 'OrderedReady' | 'Parallel';
    updateStrategy?: {
      type?: 'RollingUpdate' | 'OnDelete';
      rollingUpdate?: { partition?: number; maxUnavailable?: IntOrString };
    };
    ordinals?: { start?: number };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    currentReplicas?: number;
    updatedReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
    collisionCount?: number;
  };
};

/** A ControllerRevision (a DaemonSet's or StatefulSet's history). */
export type ControllerRevision = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  data?: unknown;
  revision: number;
};

export type Pod = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: Record<string, unknown>;
  status?: {
    phase?: string;
    conditions?: Condition[];
    containerStatuses?: Array<Record<string, unknown> & { ready?: boolean }>;
  };
};

export type KubeEvent = {
  metadata: ObjectMeta;
  involvedObject: { kind?: string; name?: string; uid?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  source?: { component?: string };
  reportingComponent?: string;
};

/**
 * One poll of a side, listed in the order of the conformance plug-ins' lists (conformance/client.ts pluginLists:
 * owners before what they own, so a Job's status is read before its pods and a pod it counts is already terminal
 * in the same sample); `at` is after the last list. The base kinds keep typed fields (filled by their plug-ins'
 * lists polled always); a kind without one goes to `custom`.
 */
export type Snapshot = {
  readonly at: number;
  /** The side's namespace: what keeps an invariant's memory of one side apart from the other's. */
  readonly namespace?: string;
  readonly deployments: readonly Deployment[];
  readonly replicaSets: readonly ReplicaSet[];
  readonly jobs: readonly Job[];
  readonly pods: readonly Pod[];
  /** Listed (before the Jobs) only once the scenario created a CronJob on the side. */
  readonly cronJobs?: readonly CronJob[];
  /** Listed (with their ControllerRevisions, after the pods) only once the scenario created a DaemonSet. */
  readonly daemonSets?: readonly DaemonSet[];
  readonly controllerRevisions?: readonly ControllerRevision[];
  /** Listed (ControllerRevisions with them) only once the scenario created a StatefulSet. */
  readonly statefulSets?: readonly StatefulSet[];
  /** Lists of kinds the fields above lack (a plug-in's CRD kind: conformance/plugin.ts), by kind. */
  readonly custom?: Readonly<Record<string, readonly KubeJson[]>>;
};

/** An object of a kind the harness has no type for (a plug-in's CRD kind), as the API returns it. */
export type KubeJson = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

/** What a predicate returns: true when satisfied, else false or a string saying what is still missing. */
export type Check = boolean | string;

export type Invariant = {
  readonly name: string;
  /** A violation must last this long (consecutive samples) to count; 0 = every sample must hold. */
  readonly graceMs: number;
  /** null when the sample satisfies the invariant, else a description of the violation. */
  check(s: Snapshot): string | null;
};

export type ObjectKind = 'Deployment' | 'ReplicaSet' | 'Job' | 'Pod';

/** Which pods an action touches: chosen the same way on both sides (sorted by creation, then name). */
export type PodFilter = {
  /** Owner: a Deployment's ReplicaSet by revision (`web@2`), or a ReplicaSet or Job name, or 'orphan'. */
  readonly owner?: string;
  /** A DaemonSet's pods: the node a pod is for (spec.nodeName, else its node-affinity pin). */
  readonly node?: string;
  /** A Job's pods: the completion index (label batch.kubernetes.io/job-completion-index). */
  readonly index?: number;
  /** Only pods in this phase (kwok's outcome stages end Running pods only). */
  readonly phase?: string;
  readonly ready?: boolean;
  readonly image?: string;
  readonly count?: number;
  /** Default 'oldest'. */
  readonly pick?: 'oldest' | 'newest';
};

export type Step =
  | {
      readonly do: 'create';
      readonly objects: readonly (Deployment | ReplicaSet | Job | Pod | CronJob | DaemonSet | StatefulSet | KubeJson)[];
    }
  /** Read-modify-replace of an object of any kind (retried on 409): what a plug-in's scenarios change. */
  | {
      readonly do: 'updateObject';
      readonly kind: string;
      readonly name: string;
      readonly mutate: (object: KubeJson) => void;
    }
  /** Read-modify-replace of a Job (retried on 409): suspend, resume, parallelism. */
  | { readonly do: 'updateJob'; readonly name: string; readonly mutate: (job: Job) => void }
  /** Read-modify-replace of a DaemonSet (retried on 409): template, update strategy. */
  | { readonly do: 'updateDaemonSet'; readonly name: string; readonly mutate: (ds: DaemonSet) => void }
  /** Read-modify-replace of a StatefulSet (retried on 409): replicas, template, update strategy. */
  | { readonly do: 'updateStatefulSet'; readonly name: string; readonly mutate: (set: StatefulSet) => void }
  /** Read-modify-replace of a CronJob (retried on 409): suspend, resume, schedule. */
  | { readonly do: 'updateCronJob'; readonly name: string; readonly mutate: (cronJob: CronJob) => void }
  /**
   * Ends pods through the sandbox's kwok outcome stages (infra/sandbox/stages/pod-outcome.yaml): annotates
   * `fleetq.dev/sandbox-outcome` (and `fleetq.dev/sandbox-exit-code`) on Running pods chosen by the filter.
   */
  | {
      readonly do: 'endPods';
      readonly filter: PodFilter;
      readonly outcome: 'Succeeded' | 'Failed';
      readonly exitCode?: number;
    }
  /**
   * Fails Running pods chosen by the filter with one status write, as a kubelet reports a terminal pod: phase
   * Failed, every container terminated with `exitCode` (default 1), Ready False, plus `conditions` (e.g.
   * DisruptionTarget), which kwok's outcome stages cannot set. kwok leaves the pod alone afterwards.
   */
  | {
      readonly do: 'failPods';
      readonly filter: PodFilter;
      readonly exitCode?: number;
      readonly conditions?: readonly Condition[];
    }
  /** Read-modify-replace (retried on 409). */
  | {
      readonly do: 'update';
      readonly kind: 'Deployment' | 'ReplicaSet';
      readonly name: string;
      readonly mutate: Mutate;
    }
  | {
      readonly do: 'scale';
      readonly kind: 'Deployment' | 'ReplicaSet';
      readonly name: string;
      readonly replicas: number;
    }
  /** A kubectl command, `{ns}` replaced by the side's namespace; `expectFailure` when a non-zero exit is the point. */
  | {
      readonly do: 'kubectl';
      readonly args: readonly string[];
      /** Undefined: the exit code is only recorded; true/false: a non-zero exit is (not) the point. */
      readonly expectFailure?: boolean;
      /** Record exit code and output under this name; recordings are compared across sides at the end. */
      readonly record?: string;
      /** Which stdout lines to record: the last (final status; progress lines depend on timing) or all. */
      readonly lines?: 'last' | 'all';
    }
  /** A step run on one side only (for the harness' own negative checks). */
  | { readonly do: 'on'; readonly side: 'a' | 'b'; readonly step: Step }
  | { readonly do: 'deletePods'; readonly filter: PodFilter }
  | { readonly do: 'setPodsReady'; readonly filter: PodFilter; readonly ready: boolean }
  | { readonly do: 'relabelPods'; readonly filter: PodFilter; readonly labels: Labels }
  | { readonly do: 'delete'; readonly kind: string; readonly name: string }
  | {
      readonly do: 'waitFor';
      readonly what: string;
      readonly until: (s: Snapshot) => Check;
      readonly timeoutMs?: number;
    }
  /** Both sides settle (unchanged for a while) and must then agree; the last step of every scenario is one. */
  | {
      readonly do: 'compare';
      readonly label: string;
      readonly timeoutMs?: number;
      /** Path prefixes left out of this comparison, each with the reason in the scenario's comment. */
      readonly ignore?: readonly string[];
    }
  | { readonly do: 'arm' | 'disarm'; readonly invariant: Invariant };

export type Mutate = (obj: Deployment & ReplicaSet) => void;

/**
 * The controller a scenario is about (TTLAfterFinished: Jobs, with fleetq's Job and TTL controllers both): the kind
 * of a registered conformance plug-in (conformance/plugins.ts).
 */
export type ScenarioKind = string;

export type Scenario = {
  readonly name: string;
  readonly kind: ScenarioKind;
  readonly description: string;
  readonly steps: readonly Step[];
  /** Sampled on every poll from the first step to the last. */
  readonly invariants: readonly Invariant[];
};
