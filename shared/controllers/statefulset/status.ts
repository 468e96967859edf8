// Status (computeReplicaStatus, completeUpdate, inconsistentStatus): counts over the pods, the current and update
// revisions, collisionCount and observedGeneration; written through the status subresource only when a compared
// field differs (inconsistentStatus does not compare collisionCount: a raised one is written on its own, see
// collisionAction).
import type { Pod, StatefulSet, StatefulSetStatus } from '../../kube/api/objects.js';
import { isDeepStrictEqual } from 'node:util';
import type { Action } from '../../kube/actions.js';
import type { EventSpec } from '../../kube/events/types.js';
import { isPodAvailable, isPodReady } from '../pod-utils/pod-state.js';
import { replicasOf, revisionOfPod } from './identity.js';

export const isCreated = (p: Pod): boolean => (p.status?.phase ?? '') !== '';
export const isTerminating = (p: Pod): boolean => !!p.metadata?.deletionTimestamp;
export const isRunningAndReady = (p: Pod): boolean => p.status?.phase === 'Running' && isPodReady(p);
export const isAvailable = (p: Pod, minReadySeconds: number, now: Date): boolean =>
  isPodAvailable(p, minReadySeconds, now);
/** isUnavailable: not available, or terminating. */
export const isUnavailable = (p: Pod, minReadySeconds: number, now: Date): boolean =>
  !isPodAvailable(p, minReadySeconds, now) || isTerminating(p);

export type Counts = {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
};

/** computeReplicaStatus over every pod given. */
export function countReplicas(
  pods: readonly Pod[],
  minReadySeconds: number,
  current: string,
  update: string,
  now: Date,
): Counts {
  const c: Counts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
  for (const pod of pods) {
    if (isCreated(pod)) c.replicas++;
    if (isRunningAndReady(pod)) {
      c.readyReplicas++;
      if (isAvailable(pod, minReadySeconds, now)) c.availableReplicas++;
    }
    if (isCreated(pod) && !isTerminating(pod)) {
      if (revisionOfPod(pod) === current) c.currentReplicas++;
      if (revisionOfPod(pod) === update) c.updatedReplicas++;
    }
  }
  return c;
}

/** The status a sync computes, completeUpdate applied. */
export function newStatus(
  set: StatefulSet,
  counts: Counts,
  current: string,
  update: string,
  collisionCount: number,
): StatefulSetStatus {
  const status: StatefulSetStatus = {
    observedGeneration: set.metadata?.generation ?? 0,
    currentRevision: current,
    updateRevision: update,
    collisionCount,
    ...counts,
    ...(set.status?.conditions && { conditions: set.status.conditions }),
  };
  const replicas = replicasOf(set);
  if (counts.updatedReplicas === replicas && counts.readyReplicas === replicas && counts.replicas === replicas) {
    status.currentReplicas = counts.updatedReplicas;
    status.currentRevision = update;
  }
  return status;
}

/** inconsistentStatus: a newer generation, or any count, revision or the conditions differ. */
export function isStatusChanged(set: StatefulSet, s: StatefulSetStatus): boolean {
  const o = set.status ?? { replicas: 0 };
  const n = (v: number | undefined) => v ?? 0;
  return (
    n(s.observedGeneration) > n(o.observedGeneration) ||
    s.replicas !== n(o.replicas) ||
    n(s.currentReplicas) !== n(o.currentReplicas) ||
    n(s.readyReplicas) !== n(o.readyReplicas) ||
    n(s.updatedReplicas) !== n(o.updatedReplicas) ||
    (s.currentRevision ?? '') !== (o.currentRevision ?? '') ||
    n(s.availableReplicas) !== n(o.availableReplicas) ||
    (s.updateRevision ?? '') !== (o.updateRevision ?? '') ||
    !isDeepStrictEqual(s.conditions, o.conditions)
  );
}

export function statusAction(set: StatefulSet, status: StatefulSetStatus, event?: EventSpec): Action | null {
  if (!isStatusChanged(set, status)) return null;
  const object: StatefulSet = { ...set, apiVersion: 'apps/v1', kind: 'StatefulSet', status };
  return { type: 'updateStatus', object, ...(event && { events: { onSuccess: [event] } }) };
}

/** CreateControllerRevision's hash collision: collisionCount raised, the rest of the status as it was. */
export function collisionAction(set: StatefulSet): Action {
  const status = { ...set.status, collisionCount: (set.status?.collisionCount ?? 0) + 1 } as StatefulSetStatus;
  const object: StatefulSet = { ...set, apiVersion: 'apps/v1', kind: 'StatefulSet', status };
  return { type: 'updateStatus', object };
}
