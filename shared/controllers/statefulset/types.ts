// What the StatefulSet planner observes, and the constants of kube-controller-manager 1.37's statefulset-controller
// (pkg/controller/statefulset/stateful_set.go, stateful_set_control.go, stateful_set_utils.go,
// stateful_pod_control.go at v1.37.2).
import type { ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet } from '../../kube/api/objects.js';

export const STS_API_VERSION = 'apps/v1';
export const STS_KIND = 'StatefulSet';
export const STS_EVENT_SOURCE = 'statefulset-controller';

/** apps.StatefulSetRevisionLabel (= ControllerRevisionHashLabelKey). */
export const REVISION_LABEL = 'controller-revision-hash';
/** history.ControllerRevisionHashLabel: a revision's hash, on the ControllerRevision (not on pods). */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';
/** apps.StatefulSetPodNameLabel. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** apps.PodIndexLabel. */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

/** The API default of spec.revisionHistoryLimit. */
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** When a claim of the pod to create is being deleted (upstream: an error, retried with the queue's backoff). */
export const CLAIM_DELETING_RETRY_MS = 5_000;

/**
 * When a pod the set does not own holds the name of a pod to create (upstream: the create fails AlreadyExists, an
 * error retried with the queue's backoff; the pod going away wakes no sync of the set).
 */
export const NAME_TAKEN_RETRY_MS = 5_000;

export const Reason = {
  SuccessfulCreate: 'SuccessfulCreate',
  FailedCreate: 'FailedCreate',
  SuccessfulUpdate: 'SuccessfulUpdate',
  FailedUpdate: 'FailedUpdate',
  SuccessfulDelete: 'SuccessfulDelete',
  FailedDelete: 'FailedDelete',
  ConflictingController: 'ConflictingController',
  AdoptPod: 'AdoptPod',
  ReleasePod: 'ReleasePod',
  AdoptRevision: 'AdoptControllerRevision',
  ReleaseRevision: 'ReleaseControllerRevision',
  CreateRevision: 'CreateControllerRevision',
  UpdateRevision: 'UpdateControllerRevision',
  DeleteRevision: 'DeleteControllerRevision',
  UpdateClaim: 'UpdateClaimOwnerRefs',
} as const;

export const Strategy = { RollingUpdate: 'RollingUpdate', OnDelete: 'OnDelete' } as const;
export const PodManagement = { OrderedReady: 'OrderedReady', Parallel: 'Parallel' } as const;
export const Retention = { Retain: 'Retain', Delete: 'Delete' } as const;

export type ObservedStatefulSet = {
  /** null when the StatefulSet is gone. */
  readonly statefulSet: StatefulSet | null;
  /** Pods of its namespace that it controls or that have no controller (adoption candidates). */
  readonly pods: readonly Pod[];
  /** ControllerRevisions of its namespace that it controls or that have no controller. */
  readonly revisions: readonly ControllerRevision[];
  /** The PersistentVolumeClaims of its namespace (upstream reads each claim by name from its lister). */
  readonly claims: readonly PersistentVolumeClaim[];
  /**
   * The ControllerRevision named for the update revision's hash when none of its revisions holds the template:
   * present means the name is taken (same data: reused; other data: a hash collision); null means it is free.
   */
  readonly nameTaken?: ControllerRevision | null;
  /** RecheckDeletionTimestamp: the StatefulSet read fresh, only when there is an orphan to adopt. */
  readonly adoptionRecheck?: StatefulSet | null;
};
