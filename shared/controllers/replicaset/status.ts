// calculateStatus and updateReplicaSetStatus of upstream: counts over the claimed active pods, the terminating
// pods it controls and still selects (DeploymentReplicaSetTerminatingReplicas: beta, on by default since 1.35,
// so 1.37 always reports the field), observedGeneration, and the ReplicaFailure condition.
//
// ReplicaFailure. Upstream computes status after manageReplicas in the same sync, with its error. Here the
// status is an action of the same plan, written last by the writer, and the writer stops at the first failing
// create batch (or delete) and throws before the status write. So:
//   - plan() computes status as if this pass's creates/deletes succeed: ReplicaFailure is removed (upstream,
//     manageReplicasErr == nil). If they do fail, that status is never written.
//   - planManageFailure() computes status with the error message (upstream, manageReplicasErr != nil): it is
//     the status for the runtime to write after a failed apply (see index.ts for the hook it needs).
import { isDeepStrictEqual } from 'node:util';
import type { Pod, ReplicaSet, ReplicaSetCondition, ReplicaSetStatus } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { hasLabels } from '../../kube/meta/label-selector.js';
import { isPodAvailable, isPodReady, soonestAvailabilityMs } from '../pod-utils/pod-state.js';
import { wireTime } from '../common/wire-time.js';
import { desiredReplicas } from './manage.js';
import { REPLICA_FAILURE, Reason, type ManageFailure } from './types.js';

export function calculateStatus(
  rs: ReplicaSet,
  claimed: readonly Pod[],
  terminating: readonly Pod[],
  now: Date,
  failure: ManageFailure | null,
): ReplicaSetStatus {
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  const templateLabels = rs.spec?.template?.metadata?.labels;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of claimed) {
    if (hasLabels(pod.metadata?.labels, templateLabels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, now)) available++;
    }
  }
  const conditions = failureConditions(rs, claimed.length, now, failure);
  return {
    replicas: claimed.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    terminatingReplicas: terminating.length,
    observedGeneration: rs.metadata?.generation ?? 0,
    ...(conditions.length > 0 && { conditions }),
  };
}

/** Sets ReplicaFailure on a failure unless one is there already; removes it after a pass without one. */
function failureConditions(
  rs: ReplicaSet,
  active: number,
  now: Date,
  failure: ManageFailure | null,
): ReplicaSetCondition[] {
  const current = rs.status?.conditions ?? [];
  const existing = current.find((c) => c.type === REPLICA_FAILURE);
  if (failure === null) return current.filter((c) => c.type !== REPLICA_FAILURE);
  if (existing) return [...current];
  const diff = active - desiredReplicas(rs);
  const reason = diff < 0 ? Reason.FailedCreate : diff > 0 ? Reason.FailedDelete : '';
  return [
    ...current,
    {
      type: REPLICA_FAILURE,
      status: 'True',
      lastTransitionTime: wireTime(now),
      reason,
      message: failure.message,
    },
  ];
}

/** The status write, only when something differs from what was observed (upstream's no-op check). */
export function statusAction(rs: ReplicaSet, status: ReplicaSetStatus): Action | null {
  if (isDeepStrictEqual(comparable(rs.status), comparable(status))) return null;
  const object: ReplicaSet = { ...rs, status };
  return { type: 'updateStatus', object };
}

/** Omitted counts are 0 on the wire; terminatingReplicas is a pointer upstream, so unset and 0 differ. */
function comparable(s: ReplicaSetStatus | undefined) {
  return {
    replicas: s?.replicas ?? 0,
    fullyLabeledReplicas: s?.fullyLabeledReplicas ?? 0,
    readyReplicas: s?.readyReplicas ?? 0,
    availableReplicas: s?.availableReplicas ?? 0,
    terminatingReplicas: s?.terminatingReplicas,
    observedGeneration: s?.observedGeneration ?? 0,
    conditions: s?.conditions ?? [],
  };
}

/**
 * Look again when a ready pod becomes available: with minReadySeconds set and ready != available, after the
 * soonest pod's remaining wait, or minReadySeconds when none can be computed (upstream's fallback).
 */
export function availabilityRequeueMs(
  rs: ReplicaSet,
  status: ReplicaSetStatus,
  claimed: readonly Pod[],
  now: Date,
): number | undefined {
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  if (minReadySeconds <= 0 || status.readyReplicas === status.availableReplicas) return undefined;
  return soonestAvailabilityMs(claimed, minReadySeconds, now) ?? minReadySeconds * 1000;
}
