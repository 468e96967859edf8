// The LeaderWorkerSet API as its controllers and admission read it, and every name sigs.k8s.io/lws v0.9.0 shares
// with the objects it makes (API leaderworkerset.x-k8s.io/v1: api/leaderworkerset/v1/leaderworkerset_types.go;
// pkg/controllers/leaderworkerset_controller.go and pod_controller.go for reasons, actions and condition texts;
// pkg/utils/accelerators/tpu.go for the TPU names; pkg/webhooks/leaderworkerset_webhook.go for the defaults). The
// LeaderWorkerSet is the apiserver's JSON as read (timestamps are RFC 3339 strings); pods, StatefulSets, Services
// and ControllerRevisions are typed by kube/api/objects.ts.
import type { Condition, CustomResource, ServiceRef } from '../common/custom-resource.js';
import type {
  ControllerRevision,
  IntOrString,
  ObjectMeta,
  PersistentVolumeClaim,
  Pod,
  PodTemplateSpec,
  StatefulSet,
  Time,
} from '../../kube/api/objects.js';

export type { ControllerRevision, IntOrString, PersistentVolumeClaim, Pod, PodTemplateSpec, StatefulSet, Time };

export const LWS_GROUP = 'leaderworkerset.x-k8s.io';
export const LWS_API_VERSION = 'leaderworkerset.x-k8s.io/v1';
export const LWS_KIND = 'LeaderWorkerSet';
export const LWS_RESOURCE = 'leaderworkersets';
/** The key kind of the pod reconciler: its keys name pods with the LeaderWorkerSet name label. */
export const LWS_POD_KEY_KIND = 'LeaderWorkerSetPod';
/** mgr.GetEventRecorder("leaderworkerset"): the component both reconcilers' events carry. */
export const LWS_EVENT_SOURCE = 'leaderworkerset';
/** fieldManager: the server-side apply field manager of the leader StatefulSet. */
export const LWS_FIELD_MANAGER = 'lws';

// Labels and annotations (leaderworkerset_types.go).
/** Annotation on the LeaderWorkerSet (copied to pods): the topology key of 1:1 exclusive group placement. */
export const EXCLUSIVE_KEY_ANNOTATION = 'leaderworkerset.sigs.k8s.io/exclusive-topology';
/** Annotation on the LeaderWorkerSet (copied to pods): the topology key of exclusive subgroup placement. */
export const SUBGROUP_EXCLUSIVE_KEY_ANNOTATION = 'leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology';
/** Label on pods, StatefulSets, Services and ControllerRevisions: the LeaderWorkerSet's name. */
export const SET_NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';
/** Label on pods and worker StatefulSets: the group (leader ordinal). */
export const GROUP_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/group-index';
/** Label on pods: the pod's index in its group, "0" for the leader. */
export const WORKER_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/worker-index';
/** Annotation on pods: spec.leaderWorkerTemplate.size. */
export const SIZE_ANNOTATION = 'leaderworkerset.sigs.k8s.io/size';
/** Annotation on the leader StatefulSet: spec.replicas when it was last applied. */
export const REPLICAS_ANNOTATION = 'leaderworkerset.sigs.k8s.io/replicas';
/** Label on a group's pods and worker StatefulSet: SHA-1 of `<namespace>/<leader pod name>`. */
export const GROUP_UNIQUE_HASH_LABEL = 'leaderworkerset.sigs.k8s.io/group-key';
/** Annotation on worker pods: their leader pod's name. */
export const LEADER_POD_NAME_ANNOTATION = 'leaderworkerset.sigs.k8s.io/leader-name';
/** Label on StatefulSets, pods and ControllerRevisions: the revision key (template hash) they were made from. */
export const REVISION_KEY_LABEL = 'leaderworkerset.sigs.k8s.io/template-revision-hash';
/** Label on pods when subGroupPolicy is set: the pod's subgroup. */
export const SUBGROUP_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/subgroup-index';
/** Annotation on pods: subGroupPolicy.subGroupSize. */
export const SUBGROUP_SIZE_ANNOTATION = 'leaderworkerset.sigs.k8s.io/subgroup-size';
/** Label on pods: the hash shared by a subgroup's pods. */
export const SUBGROUP_UNIQUE_HASH_LABEL = 'leaderworkerset.sigs.k8s.io/subgroup-key';
/** Annotation on leader pods: subGroupPolicy.subGroupPolicyType. */
export const SUBGROUP_POLICY_TYPE_ANNOTATION = 'leaderworkerset.sigs.k8s.io/subgroup-policy-type';
/** Annotation on leader pods, only for UniquePerReplica: the subdomain policy. */
export const SUBDOMAIN_POLICY_ANNOTATION = 'leaderworkerset.sigs.k8s.io/subdomainPolicy';
/** Annotation on the LeaderWorkerSet (any value): RecreateGroupOnPodRestart waits while a pod of the group is pending. */
export const RECREATE_GROUP_AFTER_START_ANNOTATION =
  'leaderworkerset.sigs.k8s.io/experimental-recreate-group-after-start';
/** Annotation on worker pods (accelerators.LeaderRequestsTPUsAnnotationKey): "true" when the leader requests TPUs. */
export const LEADER_REQUESTS_TPUS_ANNOTATION = 'leaderworkerset.sigs.k8s.io/leader-requests-tpus';

/** Environment variables the pod webhook adds to every container (LwsLeaderAddress, LwsGroupSize, LwsWorkerIndex). */
export const EnvVar = {
  LeaderAddress: 'LWS_LEADER_ADDRESS',
  GroupSize: 'LWS_GROUP_SIZE',
  WorkerIndex: 'LWS_WORKER_INDEX',
} as const;

/** The TPU environment of pkg/utils/accelerators (pods that request google.com/tpu). */
export const TpuEnvVar = {
  WorkerHostNames: 'TPU_WORKER_HOSTNAMES',
  ProcessAddresses: 'TPU_PROCESS_ADDRESSES',
  ProcessPort: 'TPU_PROCESS_PORT',
  WorkerId: 'TPU_WORKER_ID',
  Name: 'TPU_NAME',
} as const;
export const TPU_RESOURCE_NAME = 'google.com/tpu';
export const TPU_PROCESS_DEFAULT_PORT = 8476;

export const SubGroupPolicyType = { LeaderWorker: 'LeaderWorker', LeaderExcluded: 'LeaderExcluded' } as const;
export const SubdomainPolicy = { Shared: 'Shared', UniquePerReplica: 'UniquePerReplica' } as const;
export const RolloutStrategyType = { RollingUpdate: 'RollingUpdate' } as const;
export const RestartPolicy = {
  RecreateGroupOnPodRestart: 'RecreateGroupOnPodRestart',
  RecreateGroupAfterStart: 'RecreateGroupAfterStart',
  /** Deprecated; the webhook rewrites it to None. */
  Default: 'Default',
  None: 'None',
} as const;
export const StartupPolicy = { LeaderReady: 'LeaderReady', LeaderCreated: 'LeaderCreated' } as const;

export const ConditionType = {
  Available: 'Available',
  Progressing: 'Progressing',
  UpdateInProgress: 'UpdateInProgress',
} as const;

/** Event and condition reasons (leaderworkerset_controller.go; RecreateGroup is pod_controller.go's literal). */
export const Reason = {
  FailedCreate: 'FailedCreate',
  FailedUpdate: 'FailedUpdate',
  GroupsProgressing: 'GroupsProgressing',
  GroupsUpdating: 'GroupsUpdating',
  CreatingRevision: 'CreatingRevision',
  RecreateGroup: 'RecreateGroup',
  /** makeCondition's reason for Available (not an event constant upstream, a literal). */
  AllGroupsReady: 'AllGroupsReady',
} as const;

/** The events.k8s.io action of each event (Create, Update, Delete). */
export const EventAction = { Create: 'Create', Update: 'Update', Delete: 'Delete' } as const;

/** makeCondition's messages. */
export const ConditionMessage = {
  Available: 'All replicas are ready',
  UpdateInProgress: 'Rolling Upgrade is in progress',
  Progressing: 'Replicas are progressing',
} as const;

/** metav1.Condition. */
export type { Condition };

export type SubGroupPolicy = {
  /** CRD default LeaderWorker. */
  subGroupPolicyType?: string;
  subGroupSize?: number;
};

/** appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy. */
export type ClaimRetentionPolicy = { whenDeleted?: string; whenScaled?: string };

export type LeaderWorkerTemplate = {
  /** Absent: the leader uses workerTemplate. */
  leaderTemplate?: PodTemplateSpec;
  workerTemplate: PodTemplateSpec;
  /** Pods per group, leader included (CRD default 1). */
  size?: number;
  /** CRD and webhook default RecreateGroupOnPodRestart; the webhook turns Default into None. */
  restartPolicy?: string;
  subGroupPolicy?: SubGroupPolicy;
  volumeClaimTemplates?: PersistentVolumeClaim[];
  persistentVolumeClaimRetentionPolicy?: ClaimRetentionPolicy;
  [other: string]: unknown;
};

export type RollingUpdateConfiguration = {
  /** Groups below this ordinal are not updated (CRD default 0). */
  partition?: number;
  /** Rounded down from a percentage of spec.replicas (CRD default 1). */
  maxUnavailable?: IntOrString;
  /** Rounded up from a percentage of spec.replicas (CRD default 0). */
  maxSurge?: IntOrString;
};

export type RolloutStrategy = {
  /** Only RollingUpdate (CRD and webhook default). */
  type?: string;
  /** The webhook defaults it to {maxUnavailable: 1, maxSurge: 0, partition: 0}. */
  rollingUpdateConfiguration?: RollingUpdateConfiguration;
};

export type NetworkConfig = {
  /** Shared or UniquePerReplica; the webhook defaults it (and a missing networkConfig) to Shared. */
  subdomainPolicy?: string;
};

export type LeaderWorkerSetSpec = {
  /** Groups (CRD default 1). */
  replicas?: number;
  leaderWorkerTemplate: LeaderWorkerTemplate;
  rolloutStrategy?: RolloutStrategy;
  /** LeaderCreated (CRD default) or LeaderReady. */
  startupPolicy?: string;
  networkConfig?: NetworkConfig;
  [other: string]: unknown;
};

export type LeaderWorkerSetStatus = {
  conditions?: Condition[];
  /** Groups whose leader and worker StatefulSet are ready (updated or not). */
  readyReplicas?: number;
  /** Groups whose leader and worker StatefulSet carry the current revision (ready or not). */
  updatedReplicas?: number;
  /** The leader StatefulSet's status.replicas. */
  replicas?: number;
  /** The scale subresource's selector: the leader pods. */
  hpaPodSelector?: string;
  observedGeneration?: number;
  [other: string]: unknown;
};

export type LeaderWorkerSet = CustomResource<ObjectMeta, LeaderWorkerSetSpec, LeaderWorkerSetStatus>;

/** The headless Service as far as the controller reads it (whether it exists, and its owner). */
export type Service = ServiceRef<ObjectMeta>;
