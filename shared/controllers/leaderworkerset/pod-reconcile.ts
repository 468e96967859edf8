// One pass of lws v0.9.0's PodReconciler.Reconcile (pod_controller.go) for a pod with the LeaderWorkerSet name
// label, as data: the restart policy first (restart-policy.ts: it may delete the group's leader, which ends the
// pass), then, for a leader pod, its group's Service and worker StatefulSet (worker-statefulset.ts planLeaderPod).
import type { Pod } from '../../kube/api/objects.js';
import type { LwsEvent } from './events.js';
import { isLeaderPod } from './group-state.js';
import { restartDecision, type GroupWorld } from './restart-policy.js';
import { planLeaderPod, type LeaderPodPlan, type LeaderPodWorld } from './worker-statefulset.js';
import { SET_NAME_LABEL, WORKER_INDEX_LABEL, type LeaderWorkerSet } from './types.js';

export type PodReconcileWorld = GroupWorld & LeaderPodWorld;

/** What one pod key's observe read: the pod, its LeaderWorkerSet (by the name label) and the rest of its world. */
export type ObservedLwsPod = {
  /** null when it is gone. */
  readonly pod: Pod | null;
  /** null when it is gone, or not read (the pod lacks the labels a reconcile needs). */
  readonly lws: LeaderWorkerSet | null;
  readonly world: PodReconcileWorld;
};

export type PodReconcilePlan =
  /** Nothing to do (the pod or its LeaderWorkerSet is gone, a worker pod, or the leader already being deleted). */
  | { readonly kind: 'none' }
  /** Delete the group's leader pod (foreground, uid precondition), then record the event. */
  | { readonly kind: 'recreateGroup'; readonly leader: Pod; readonly event: LwsEvent }
  /** The leader pod's own work. */
  | { readonly kind: 'leader'; readonly plan: LeaderPodPlan }
  /** Upstream returns this error (retried with backoff). */
  | { readonly kind: 'error'; readonly message: string };

const NONE: PodReconcilePlan = { kind: 'none' };

/** PodReconciler.Reconcile for `pod` (null: gone) and the LeaderWorkerSet its label names (null: gone). */
export function planLwsPod(pod: Pod | null, lws: LeaderWorkerSet | null, world: PodReconcileWorld): PodReconcilePlan {
  if (pod === null) return NONE;
  const labels = pod.metadata?.labels ?? {};
  if ((labels[SET_NAME_LABEL] ?? '') === '') {
    return { kind: 'error', message: 'leaderworkerset.sigs.k8s.io/name label is unexpected missing' };
  }
  if (!(WORKER_INDEX_LABEL in labels)) {
    return { kind: 'error', message: 'leaderworkerset.sigs.k8s.io/worker-index label is unexpected missing' };
  }
  // A LeaderWorkerSet that is gone leaves its pods to the garbage collector.
  if (lws === null) return NONE;
  const decision = restartDecision(lws, pod, world);
  switch (decision.kind) {
    case 'error':
      return decision;
    case 'leaderDeleting':
      return NONE;
    case 'deleteLeader':
      return { kind: 'recreateGroup', leader: decision.leader, event: decision.event };
    case 'none':
      break;
  }
  if (!isLeaderPod(pod)) return NONE;
  return { kind: 'leader', plan: planLeaderPod(lws, pod, world) };
}
