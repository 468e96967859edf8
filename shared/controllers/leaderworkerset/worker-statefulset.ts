// The worker StatefulSet of a group, and what lws v0.9.0's pod reconciler does for a leader pod (pod_controller.go:
// Reconcile after handleRestartPolicy, constructWorkerStatefulSetApplyConfiguration, setNodeSelectorForWorkerPods,
// topologyValueFromPod, and accelerators.AddTPUAnnotations).
//
// The worker StatefulSet is named after its leader pod and controlled by it (it goes when the leader goes), runs
// size - 1 workers in parallel with ordinals from 1, and is built from the revision the leader pod carries, never
// from the LeaderWorkerSet's current template: a group's leader and workers always run one revision, whatever the
// rolling update is doing. It is created once and never updated; a new revision reaches the workers by the leader
// pod being recreated (its StatefulSet's rolling update), which takes the old worker StatefulSet with it.
import type { Pod, StatefulSet } from '../../kube/api/objects.js';
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import { parseGoQuantity } from '../common/go-quantity.js';
import {
  leaderNameAnnotationEvent,
  workerStatefulSetCreatedEvent,
  workerStatefulSetFailedEvent,
  type LwsEvent,
} from './events.js';
import { isPodDeleted, isPodReady } from './group-state.js';
import { groupHeadlessService } from './headless-service.js';
import { claimFields, withMetadata } from './leader-statefulset.js';
import { applyRevision, revisionKeyOf, revisionWithKey } from './revision.js';
import { hasNoWorkers, isSubdomainShared, sizeOf } from './spec-values.js';
import {
  EXCLUSIVE_KEY_ANNOTATION,
  GROUP_INDEX_LABEL,
  GROUP_UNIQUE_HASH_LABEL,
  LEADER_POD_NAME_ANNOTATION,
  LEADER_REQUESTS_TPUS_ANNOTATION,
  REVISION_KEY_LABEL,
  SET_NAME_LABEL,
  SIZE_ANNOTATION,
  StartupPolicy,
  SUBGROUP_EXCLUSIVE_KEY_ANNOTATION,
  SUBGROUP_SIZE_ANNOTATION,
  TPU_RESOURCE_NAME,
  type ControllerRevision,
  type LeaderWorkerSet,
  type Service,
} from './types.js';

type Container = NonNullable<Pod['spec']>['containers'][number];

/** A quantity that is not zero (resource.Quantity IsZero is false; an unparsable one reads as zero). */
function isNonZero(q: unknown): boolean {
  if (typeof q !== 'string' && typeof q !== 'number') return false;
  const parsed = parseGoQuantity(String(q));
  if (parsed === null) return false;
  return parsed.kind === 'int' ? parsed.value !== 0n : parsed.unscaled !== 0n;
}

/** numTPUsRequested is not 0: a google.com/tpu limit, else request, that is not zero. */
function requestsTpus(c: Container): boolean {
  const limit = c.resources?.limits?.[TPU_RESOURCE_NAME];
  if (isNonZero(limit)) return true;
  return isNonZero(c.resources?.requests?.[TPU_RESOURCE_NAME]);
}

/** PodRequestsTPUs: an app or init container requests TPUs. */
export function podRequestsTpus(pod: Pod): boolean {
  return [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].some(requestsTpus);
}

/** The worker pods' annotations (constructWorkerStatefulSetApplyConfiguration's podAnnotations). */
export function workerPodAnnotations(lws: LeaderWorkerSet, leaderPod: Pod): Record<string, string> {
  const annotations: Record<string, string> = {
    [SIZE_ANNOTATION]: String(sizeOf(lws)),
    [LEADER_POD_NAME_ANNOTATION]: leaderPod.metadata?.name ?? '',
  };
  const lwsAnnotations = lws.metadata.annotations ?? {};
  const exclusive = lwsAnnotations[EXCLUSIVE_KEY_ANNOTATION];
  if (exclusive !== undefined && exclusive !== '') annotations[EXCLUSIVE_KEY_ANNOTATION] = exclusive;
  const subGroup = lws.spec.leaderWorkerTemplate.subGroupPolicy;
  if (subGroup !== undefined && subGroup !== null) {
    annotations[SUBGROUP_SIZE_ANNOTATION] = String(subGroup.subGroupSize ?? 0);
    const subExclusive = lwsAnnotations[SUBGROUP_EXCLUSIVE_KEY_ANNOTATION];
    if (subExclusive !== undefined && subExclusive !== '')
      annotations[SUBGROUP_EXCLUSIVE_KEY_ANNOTATION] = subExclusive;
  }
  if (podRequestsTpus(leaderPod)) annotations[LEADER_REQUESTS_TPUS_ANNOTATION] = 'true';
  return annotations;
}

/**
 * constructWorkerStatefulSetApplyConfiguration (with its controller reference to the leader pod): the worker
 * template of `revision` (the leader pod's), sized and annotated by the LeaderWorkerSet as it is now.
 */
export function workerStatefulSet(leaderPod: Pod, lws: LeaderWorkerSet, revision: ControllerRevision): StatefulSet {
  const restored = applyRevision(lws, revision);
  const podLabels = leaderPod.metadata?.labels ?? {};
  const podName = leaderPod.metadata?.name ?? '';
  const selector = {
    [GROUP_INDEX_LABEL]: podLabels[GROUP_INDEX_LABEL] ?? '',
    [SET_NAME_LABEL]: lws.metadata.name ?? '',
    [GROUP_UNIQUE_HASH_LABEL]: podLabels[GROUP_UNIQUE_HASH_LABEL] ?? '',
  };
  const labels = { ...selector, [REVISION_KEY_LABEL]: revisionKeyOf(leaderPod) };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: podName,
      namespace: leaderPod.metadata?.namespace,
      labels,
      ownerReferences: [
        newControllerRef({ apiVersion: 'v1', kind: 'Pod', name: podName, uid: leaderPod.metadata?.uid ?? '' }),
      ],
    },
    spec: {
      serviceName: isSubdomainShared(lws) ? (lws.metadata.name ?? '') : podName,
      replicas: sizeOf(lws) - 1,
      podManagementPolicy: 'Parallel',
      template: withMetadata(
        restored.spec.leaderWorkerTemplate.workerTemplate,
        labels,
        workerPodAnnotations(lws, leaderPod),
      ),
      ordinals: { start: 1 },
      selector: { matchLabels: selector },
      ...claimFields(lws),
    } as StatefulSet['spec'],
  };
}

/** setNodeSelectorForWorkerPods: the workers pinned to the leader's topology domain (merged into the nodeSelector). */
export function withTopologySelector(sts: StatefulSet, topologyKey: string, topologyValue: string): StatefulSet {
  const spec = sts.spec!;
  const podSpec = spec.template.spec!;
  return {
    ...sts,
    spec: {
      ...spec,
      template: {
        ...spec.template,
        spec: { ...podSpec, nodeSelector: { ...podSpec.nodeSelector, [topologyKey]: topologyValue } },
      },
    },
  };
}

/** What the pod reconciler reads for a leader pod besides the pod and its LeaderWorkerSet. */
export type LeaderPodWorld = {
  /** The LeaderWorkerSet's ControllerRevisions (of its namespace). */
  readonly revisions: readonly ControllerRevision[];
  /** A Service named after the leader pod exists (read only under UniquePerReplica). */
  readonly groupServiceExists: boolean;
  /** A StatefulSet named after the leader pod exists. */
  readonly workerStatefulSetExists: boolean;
  /**
   * The labels of the node the leader pod runs on, read only with exclusive placement and a scheduled leader:
   * null when the node is not found.
   */
  readonly leaderNodeLabels?: Readonly<Record<string, string>> | null;
};

export type LeaderPodPlan = {
  /** Events to record with no write of their own. */
  readonly events: readonly LwsEvent[];
  /** The group's headless Service to create (UniquePerReplica, none of that name yet). */
  readonly createService?: Service;
  /** The worker StatefulSet to create, and the events of its create (success; failure other than AlreadyExists). */
  readonly createWorkerStatefulSet?: {
    readonly object: StatefulSet;
    readonly onSuccess: LwsEvent;
    readonly onFailure: (err: string) => LwsEvent;
  };
  /** Look again after this many ms (the leader's revision does not exist yet). */
  readonly requeueAfterMs?: number;
  /** Upstream returns this error (the reconcile is retried with backoff). */
  readonly error?: string;
};

/** How soon the pod reconciler looks again when the leader's revision is not there yet. */
export const REVISION_WAIT_MS = 1_000;

/**
 * The pod reconciler for a leader pod whose group was not recreated: the per-group Service, then the worker
 * StatefulSet once the leader may have workers (not being deleted, size > 1, ready under LeaderReady, its revision
 * known, and scheduled under exclusive placement).
 */
export function planLeaderPod(lws: LeaderWorkerSet, pod: Pod, world: LeaderPodWorld): LeaderPodPlan {
  const podName = pod.metadata?.name ?? '';
  const leaderName = pod.metadata?.annotations?.[LEADER_POD_NAME_ANNOTATION];
  if (leaderName !== undefined && leaderName !== '') {
    // A leader pod with the workers' annotation: StatefulSet start ordinals are missing, and creating workers
    // would loop.
    return { events: [leaderNameAnnotationEvent(pod.metadata?.namespace ?? '', podName)] };
  }
  const service = world.groupServiceExists ? null : groupHeadlessService(lws, pod);
  const withService = service === null ? {} : { createService: service };
  const done: LeaderPodPlan = { events: [], ...withService };

  if (isPodDeleted(pod) || hasNoWorkers(lws)) return done;
  if (lws.spec.startupPolicy === StartupPolicy.LeaderReady && !isPodReady(pod)) return done;
  const revision = revisionWithKey(lws, world.revisions, revisionKeyOf(pod));
  if (revision === null) return { ...done, requeueAfterMs: REVISION_WAIT_MS };
  let sts = workerStatefulSet(pod, lws, revision);

  const topologyKey = lws.metadata.annotations?.[EXCLUSIVE_KEY_ANNOTATION];
  if (topologyKey !== undefined) {
    if ((pod.spec?.nodeName ?? '') === '') return done;
    const nodeLabels = world.leaderNodeLabels;
    // A node that is not found gives the value '' (upstream ignores NotFound there).
    if (nodeLabels !== null && nodeLabels !== undefined && !(topologyKey in nodeLabels)) {
      return { ...done, error: 'node does not have topology label: ' };
    }
    sts = withTopologySelector(sts, topologyKey, nodeLabels?.[topologyKey] ?? '');
  }

  if (world.workerStatefulSetExists) return done;
  return {
    ...done,
    createWorkerStatefulSet: {
      object: sts,
      onSuccess: workerStatefulSetCreatedEvent(podName),
      onFailure: (err) => workerStatefulSetFailedEvent(podName, err),
    },
  };
}
