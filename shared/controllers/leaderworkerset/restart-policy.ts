// Group recreation, as lws v0.9.0's pod reconciler decides it (pod_controller.go: handleRestartPolicy,
// pendingPodsInGroup, workerPodBelongsToLeader).
//
// Under RecreateGroupOnPodRestart and RecreateGroupAfterStart, a pod of a group that was deleted or had a container
// restart (init containers included, while Running or Pending) makes the controller delete the group's leader pod
// with foreground propagation: its worker StatefulSet and their pods go with it, and the leader StatefulSet makes
// a new leader (whose pod reconcile makes new workers). RecreateGroupAfterStart (or the
// experimental-recreate-group-after-start annotation under RecreateGroupOnPodRestart) waits while the group is not
// fully started: a pod is missing or Pending. None (and the deprecated Default) leaves a failed pod to its
// StatefulSet. A worker pod acts only on the leader of its own group incarnation: same revision key, and owned by
// the leader's current worker StatefulSet (or directly by the leader pod).
import type { Pod, StatefulSet } from '../../kube/api/objects.js';
import { controllerRefOf } from '../../kube/meta/controller-ref.js';
import { recreateGroupEvent, type LwsEvent } from './events.js';
import { hasContainerRestarted, isLeaderPod, isPodDeleted, parentNameAndOrdinal } from './group-state.js';
import { revisionKeyOf } from './revision.js';
import { sizeOf } from './spec-values.js';
import {
  GROUP_INDEX_LABEL,
  RECREATE_GROUP_AFTER_START_ANNOTATION,
  RestartPolicy,
  SET_NAME_LABEL,
  type LeaderWorkerSet,
} from './types.js';

/** What handleRestartPolicy reads besides the pod and its LeaderWorkerSet. */
export type GroupWorld = {
  /** The pods of the namespace with the pod's set name and group index labels (pendingPodsInGroup's list). */
  readonly groupPods: readonly Pod[];
  /** For a worker pod: the pod named by its name's parent (`<lws>-<group>`), null when not found. */
  readonly leader?: Pod | null;
  /** For a worker pod controlled by a StatefulSet: that StatefulSet read by name, null when not found. */
  readonly ownerStatefulSet?: StatefulSet | null;
};

export type RestartDecision =
  /** Nothing to do: the reconcile goes on (a leader pod's worker StatefulSet). */
  | { readonly kind: 'none' }
  /** The leader is already being deleted: the reconcile stops. */
  | { readonly kind: 'leaderDeleting' }
  /** Delete the leader pod (foreground; precondition its uid), then record the event; the reconcile stops. */
  | { readonly kind: 'deleteLeader'; readonly leader: Pod; readonly event: LwsEvent }
  /** Upstream returns this error (retried with backoff). */
  | { readonly kind: 'error'; readonly message: string };

const NONE: RestartDecision = { kind: 'none' };

/** The policy recreates groups (RecreateGroupOnPodRestart or RecreateGroupAfterStart). */
export function recreatesGroups(lws: LeaderWorkerSet): boolean {
  const policy = lws.spec.leaderWorkerTemplate.restartPolicy;
  return policy === RestartPolicy.RecreateGroupOnPodRestart || policy === RestartPolicy.RecreateGroupAfterStart;
}

/** pendingPodsInGroup: the group does not have `size` pods, or one of them is Pending. */
export function hasPendingPodsInGroup(groupPods: readonly Pod[], size: number): boolean {
  if (groupPods.length !== size) return true;
  return groupPods.some((p) => p.status?.phase === 'Pending');
}

/** The pods of the pod's group: its set name and group index (the selector pendingPodsInGroup lists with). */
export function groupPodsOf(pod: Pod, pods: readonly Pod[]): Pod[] {
  const labels = pod.metadata?.labels ?? {};
  const name = labels[SET_NAME_LABEL] ?? '';
  const group = labels[GROUP_INDEX_LABEL] ?? '';
  return pods.filter(
    (p) =>
      p.metadata?.namespace === pod.metadata?.namespace &&
      (p.metadata?.labels?.[SET_NAME_LABEL] ?? '') === name &&
      (p.metadata?.labels?.[GROUP_INDEX_LABEL] ?? '') === group,
  );
}

/**
 * The group a pod deleted a moment ago was in, as far as the pods now there tell: `groupPods` with the deleted pod in
 * place of any pod of its name (its replacement, made since).
 */
export function groupAsDeleted(deleted: Pod, groupPods: readonly Pod[]): Pod[] {
  const name = deleted.metadata?.name;
  return [...groupPods.filter((p) => p.metadata?.name !== name), deleted];
}

/**
 * workerPodBelongsToLeader: the worker pod is controlled by the leader pod itself, or by a StatefulSet (the one read
 * by name has the controller reference's uid) that the leader pod controls.
 */
export function workerPodBelongsToLeader(
  pod: Pod,
  leader: Pod,
  ownerStatefulSet: StatefulSet | null | undefined,
): boolean {
  const owner = controllerRefOf(pod);
  if (owner === undefined) return false;
  const leaderName = leader.metadata?.name ?? '';
  const leaderUid = leader.metadata?.uid ?? '';
  if (owner.kind === 'Pod') return owner.name === leaderName && owner.uid === leaderUid;
  if (owner.kind !== 'StatefulSet') return false;
  if (ownerStatefulSet === null || ownerStatefulSet === undefined) return false;
  if ((ownerStatefulSet.metadata?.uid ?? '') !== owner.uid) return false;
  const stsOwner = controllerRefOf(ownerStatefulSet);
  return (
    stsOwner !== undefined && stsOwner.kind === 'Pod' && stsOwner.name === leaderName && stsOwner.uid === leaderUid
  );
}

/** handleRestartPolicy: whether this pod's state makes the controller recreate its group. */
export function restartDecision(lws: LeaderWorkerSet, pod: Pod, world: GroupWorld): RestartDecision {
  if (!recreatesGroups(lws)) return NONE;
  if (!hasContainerRestarted(pod) && !isPodDeleted(pod)) return NONE;

  const pending = hasPendingPodsInGroup(world.groupPods, sizeOf(lws));
  const waitsForStart =
    lws.spec.leaderWorkerTemplate.restartPolicy === RestartPolicy.RecreateGroupAfterStart ||
    RECREATE_GROUP_AFTER_START_ANNOTATION in (lws.metadata.annotations ?? {});
  if (pending && waitsForStart) return NONE;

  let leader: Pod;
  if (!isLeaderPod(pod)) {
    const { ordinal } = parentNameAndOrdinal(pod.metadata?.name ?? '');
    if (ordinal === -1) return { kind: 'error', message: `parsing pod name for pod ${pod.metadata?.name ?? ''}` };
    // Not found: the leader is gone and its workers are still being deleted.
    if (world.leader === null || world.leader === undefined) return NONE;
    leader = world.leader;
    // Another revision: this pod is about to be replaced by one with the leader's key.
    if (revisionKeyOf(leader) !== revisionKeyOf(pod)) return NONE;
    // A worker of an earlier incarnation of the group, still being deleted.
    if (!workerPodBelongsToLeader(pod, leader, world.ownerStatefulSet)) return NONE;
  } else {
    leader = pod;
  }
  if (isPodDeleted(leader)) return { kind: 'leaderDeleting' };
  return {
    kind: 'deleteLeader',
    leader,
    event: recreateGroupEvent(
      pod.metadata?.name ?? '',
      leader.metadata?.name ?? '',
      leader.metadata?.labels?.[GROUP_INDEX_LABEL] ?? '',
    ),
  };
}

/** The name of a worker pod's leader (`<lws>-<group>`), or null for a name without an ordinal. */
export function leaderNameOf(pod: Pod): string | null {
  const { parent, ordinal } = parentNameAndOrdinal(pod.metadata?.name ?? '');
  return ordinal === -1 ? null : parent;
}
