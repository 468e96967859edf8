// What the DaemonSet planner observes, and the constants of kube-controller-manager 1.37's daemonset-controller
// (pkg/controller/daemon/daemon_controller.go, update.go, util/daemonset_util.go at v1.37.2).
import type { ControllerRevision, DaemonSet, Node, Pod } from '../../kube/api/objects.js';

/** daemon.BurstReplicas: at most this many creates and this many deletes per pass; requeueAfter 0 continues. */
export const BURST_REPLICAS = 250;

/** failedPodsBackoff = flowcontrol.NewBackOff(1s, 15min) (cmd/kube-controller-manager/app/apps.go). */
export const FAILED_POD_BACKOFF_INITIAL_MS = 1_000;
export const FAILED_POD_BACKOFF_MAX_MS = 15 * 60_000;

export const DS_API_VERSION = 'apps/v1';
export const DS_KIND = 'DaemonSet';
export const DS_EVENT_SOURCE = 'daemonset-controller';

/** apps.DefaultDaemonSetUniqueLabelKey (= ControllerRevisionHashLabelKey). */
export const REVISION_HASH_LABEL = 'controller-revision-hash';
/** extensions.DaemonSetTemplateGenerationKey: the legacy pod label. */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** apps.DeprecatedTemplateGeneration: the legacy DaemonSet annotation the pod label copies. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/**
 * Where fleetq keeps upstream's in-memory failedPodsBackoff (a flowcontrol.Backoff per DaemonSet uid,
 * observedGeneration and node): on the DaemonSet itself, so that any handler sees it (see backoff.ts).
 */
export const FAILED_POD_BACKOFF_ANNOTATION = 'fleetq.dev/failed-pod-backoff';

export const Reason = {
  SuccessfulCreate: 'SuccessfulCreate',
  FailedCreate: 'FailedCreate',
  SuccessfulDelete: 'SuccessfulDelete',
  FailedDelete: 'FailedDelete',
  SelectingAll: 'SelectingAll',
  FailedDaemonPod: 'FailedDaemonPod',
  SucceededDaemonPod: 'SucceededDaemonPod',
  AdoptPod: 'AdoptPod',
  ReleasePod: 'ReleasePod',
  AdoptRevision: 'AdoptControllerRevision',
  ReleaseRevision: 'ReleaseControllerRevision',
  CreateRevision: 'CreateControllerRevision',
  UpdateRevision: 'UpdateControllerRevision',
  DeleteRevision: 'DeleteControllerRevision',
  RelabelPod: 'RelabelPod',
  RecordBackoff: 'RecordFailedPodBackoff',
} as const;

export const Strategy = { RollingUpdate: 'RollingUpdate', OnDelete: 'OnDelete' } as const;

export type ObservedDaemonSet = {
  /** null when the DaemonSet is gone. */
  readonly daemonSet: DaemonSet | null;
  /** Every Node of the cluster (upstream's nodeLister.List: the cache answers it, no API request). */
  readonly nodes: readonly Node[];
  /** Pods of its namespace that it controls or that have no controller (adoption candidates). */
  readonly pods: readonly Pod[];
  /** ControllerRevisions of its namespace that it controls or that have no controller. */
  readonly revisions: readonly ControllerRevision[];
  /**
   * The ControllerRevision named `<ds>-<hash>` when no revision it controls matches its template: present
   * (another's, or another template's) means a hash collision; null means the name is free.
   */
  readonly nameTaken?: ControllerRevision | null;
  /** RecheckDeletionTimestamp: the DaemonSet read fresh, only when there is an orphan to adopt. */
  readonly adoptionRecheck?: DaemonSet | null;
};
