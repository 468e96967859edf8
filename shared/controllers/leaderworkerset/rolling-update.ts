// The leader StatefulSet's partition and replicas during a rolling update, as lws v0.9.0's rollingUpdateParameters
// computes them (leaderworkerset_controller.go, with rollingUpdatePartition, calculateLWSUnreadyReplicas,
// calculateRollingUpdateReplicas and calculateContinuousReadyReplicas).
//
// Groups are updated from the highest ordinal down, by lowering the leader StatefulSet's partition; a group counts
// as updated only when its leader pod and its worker StatefulSet both carry the new revision key, and a worker
// StatefulSet is always built from its leader pod's revision (worker-statefulset.ts), so leader and workers of one
// group never run different revisions. With maxSurge, the leader StatefulSet runs up to replicas + maxSurge groups
// while updating and gives the surge back as updated groups become ready. At rest the partition is
// rollingUpdateConfiguration.partition (0 by default) and replicas is spec.replicas.
import type { StatefulSet } from '../../kube/api/objects.js';
import { ReconcileError } from '../../kube/errors.js';
import { surgeReclaimedEvent, type LwsEvent } from './events.js';
import { atoi, type ReplicaState } from './group-state.js';
import { partitionOf, replicasOf, rolloutBudget } from './spec-values.js';
import { REPLICAS_ANNOTATION, type LeaderWorkerSet } from './types.js';

const nonNegative = (n: number): number => (n < 0 ? 0 : n);

/** calculateContinuousReadyReplicas: the groups from the last ordinal down that are ready and updated, in a row. */
export function continuousReadyReplicas(states: readonly ReplicaState[]): number {
  let count = 0;
  for (let idx = states.length - 1; idx >= 0; idx--) {
    const s = states[idx];
    if (s === undefined || !s.ready || !s.updated) break;
    count++;
  }
  return count;
}

/** calculateLWSUnreadyReplicas: groups below spec.replicas that are missing, not ready or not updated. */
export function unreadyReplicas(states: readonly ReplicaState[], lwsReplicas: number): number {
  let count = 0;
  for (let idx = 0; idx < lwsReplicas; idx++) {
    const s = states[idx];
    if (s === undefined || !s.ready || !s.updated) count++;
  }
  return count;
}

/**
 * calculateRollingUpdateReplicas: replicas + maxSurge while more groups are unready than the surge covers; then
 * only the surge still needed to keep the unready groups within maxUnavailable.
 */
export function rollingUpdateReplicas(
  lwsReplicas: number,
  maxSurge: number,
  maxUnavailable: number,
  unready: number,
): number {
  if (unready <= maxSurge) return lwsReplicas + nonNegative(unready - maxUnavailable);
  return lwsReplicas + maxSurge;
}

/**
 * rollingUpdatePartition: lower the partition by up to `rollingStep` groups past the ready-and-updated tail, raised
 * again by the unready groups below it (so maxUnavailable holds), lowered over groups that are not ready or already
 * updated (updating them costs no availability), and never above the current partition.
 */
export function rollingUpdatePartition(
  states: readonly ReplicaState[],
  stsReplicas: number,
  rollingStep: number,
  currentPartition: number,
): number {
  const stepPartition = nonNegative(stsReplicas - continuousReadyReplicas(states) - rollingStep);
  let unavailable = 0;
  for (let idx = 0; idx < stepPartition; idx++) if (states[idx]?.ready !== true) unavailable++;
  let partition = stepPartition + unavailable;
  for (let idx = Math.min(partition, stsReplicas - 1); idx >= stepPartition; idx--) {
    const s = states[idx];
    if (s === undefined || !s.ready || s.updated) partition = idx;
    else break;
  }
  return Math.min(partition, currentPartition);
}

export type RollingUpdateParameters = {
  readonly partition: number;
  readonly replicas: number;
  /** Surge groups given back (GroupsProgressing, action Delete), recorded as upstream does while computing. */
  readonly events: readonly LwsEvent[];
};

/**
 * rollingUpdateParameters: the leader StatefulSet's partition and replicas. `leaderStatefulSet` is null before it
 * exists; `templateUpdated` says a new revision was made this pass; `states` (replicaStates over the leader
 * StatefulSet's replicas) is read only while a rolling update is under way and the set is not scaling up.
 */
export function rollingUpdateParameters(
  lws: LeaderWorkerSet,
  leaderStatefulSet: StatefulSet | null,
  templateUpdated: boolean,
  states: () => readonly ReplicaState[],
): RollingUpdateParameters {
  const result = computeParameters(lws, leaderStatefulSet, templateUpdated, states);
  // Groups below rollingUpdateConfiguration.partition are never updated.
  return { ...result, partition: Math.max(result.partition, partitionOf(lws)) };
}

function computeParameters(
  lws: LeaderWorkerSet,
  sts: StatefulSet | null,
  templateUpdated: boolean,
  readStates: () => readonly ReplicaState[],
): RollingUpdateParameters {
  const lwsReplicas = replicasOf(lws);
  if (sts === null) return { partition: 0, replicas: lwsReplicas, events: [] };

  const stsReplicas = sts.spec?.replicas ?? 1;
  const { maxSurge, maxUnavailable } = rolloutBudget(lws);
  const burstReplicas = lwsReplicas + maxSurge;
  const name = lws.metadata.name ?? '';
  const want = (unready: number): { replicas: number; events: LwsEvent[] } => {
    const replicas = rollingUpdateReplicas(lwsReplicas, maxSurge, maxUnavailable, unready);
    return { replicas, events: replicas < stsReplicas ? [surgeReclaimedEvent(name, replicas, stsReplicas)] : [] };
  };

  // A new revision: scale first (new groups get the new template from the start), then update.
  if (templateUpdated) {
    const partition = Math.min(lwsReplicas, stsReplicas);
    if (stsReplicas < lwsReplicas) return { partition, replicas: lwsReplicas, events: [] };
    return { partition, ...want(lwsReplicas) };
  }

  const currentPartition = sts.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (currentPartition === 0 && stsReplicas === lwsReplicas) return { partition: 0, replicas: lwsReplicas, events: [] };
  if (stsReplicas < lwsReplicas) return { partition: currentPartition, replicas: lwsReplicas, events: [] };

  const states = readStates();
  const unready = unreadyReplicas(states, lwsReplicas);
  const annotation = sts.metadata?.annotations?.[REPLICAS_ANNOTATION];
  const originalReplicas = atoi(annotation);
  if (originalReplicas === null) {
    throw new ReconcileError(
      'PlanFailed',
      `leader StatefulSet ${name}: annotation ${REPLICAS_ANNOTATION} ${JSON.stringify(annotation ?? '')} is not a number`,
    );
  }
  // spec.replicas changed during the rolling update.
  if (originalReplicas !== lwsReplicas) {
    return { partition: Math.min(currentPartition, burstReplicas), ...want(unready) };
  }
  // Reclaiming surge groups must not break maxUnavailable: each surge group already given back costs a step.
  const rollingStep = maxUnavailable + maxSurge - (burstReplicas - stsReplicas);
  const partition = rollingUpdatePartition(states, stsReplicas, rollingStep, currentPartition);
  return { partition, ...want(unready) };
}
