// What the Deployment controller observes and the names it shares with kube-controller-manager.
// Objects are the apiserver's JSON as read (timestamps are RFC 3339 strings): their metadata, selectors and
// templates are kube/api's wire types; the Deployment and ReplicaSet are typed as far as we use them.
import type { IntOrString, LabelSelector, ObjectMeta, PodTemplateSpec, Time } from '../../kube/api/objects.js';

export type {
  IntOrString,
  LabelSelector,
  LabelSelectorRequirement,
  ObjectMeta,
  OwnerReference,
  Time,
} from '../../kube/api/objects.js';

export type Condition = {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastUpdateTime?: Time;
  lastTransitionTime?: Time;
};

export type DeploymentSpec = {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  strategy?: {
    type?: string;
    rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString };
  };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
  [other: string]: unknown;
};

export type DeploymentStatus = {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  terminatingReplicas?: number;
  conditions?: Condition[];
  collisionCount?: number;
};

export type Deployment = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: DeploymentSpec;
  status?: DeploymentStatus;
};

export type ReplicaSetSpec = {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
};

export type ReplicaSetStatus = {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  terminatingReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
};

export type ReplicaSet = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: ReplicaSetSpec;
  status?: ReplicaSetStatus;
};

export type Pod = {
  metadata: ObjectMeta;
  status?: { phase?: string };
};

export type ObservedDeployment = {
  readonly namespace: string;
  readonly name: string;
  /** null when the Deployment is gone. */
  readonly deployment: Deployment | null;
  /** Every ReplicaSet of the namespace: the planner claims (adopts / releases) as ControllerRefManager does. */
  readonly replicaSets: readonly ReplicaSet[];
  /**
   * Pods controlled by the Deployment's ReplicaSets, read only when a Recreate rollout must know that no old
   * pod runs any more; null when not read.
   */
  readonly pods: readonly Pod[] | null;
  /** API reads this observation cost (the deployment-controller reads from informers; we read live). */
  readonly reads: number;
};

export const Strategy = { RollingUpdate: 'RollingUpdate', Recreate: 'Recreate' } as const;

export const Annotation = {
  Revision: 'deployment.kubernetes.io/revision',
  RevisionHistory: 'deployment.kubernetes.io/revision-history',
  DesiredReplicas: 'deployment.kubernetes.io/desired-replicas',
  MaxReplicas: 'deployment.kubernetes.io/max-replicas',
  DeprecatedRollbackTo: 'deprecated.deployment.rollback.to',
  LastAppliedConfig: 'kubectl.kubernetes.io/last-applied-configuration',
} as const;

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

export const ConditionType = {
  Available: 'Available',
  Progressing: 'Progressing',
  ReplicaFailure: 'ReplicaFailure',
} as const;

export const Reason = {
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  FailedRSCreate: 'ReplicaSetCreateError',
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  DeploymentPaused: 'DeploymentPaused',
  DeploymentResumed: 'DeploymentResumed',
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

export const MAX_INT32 = 2147483647;
/** sync.go maxRevHistoryLengthInChars */
export const MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000;
/** validation.DNS1123SubdomainMaxLength */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
