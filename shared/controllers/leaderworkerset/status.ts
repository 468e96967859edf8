// The LeaderWorkerSet's status, as lws v0.9.0's updateStatus and updateConditions compute it (with setConditions,
// setCondition, makeCondition and exclusiveConditionTypes, leaderworkerset_controller.go).
//
// readyReplicas counts groups whose leader runs ready and whose worker StatefulSet is ready; updatedReplicas groups
// whose leader and worker StatefulSet carry the current revision key; replicas is the leader StatefulSet's
// status.replicas. One condition set per pass: UpdateInProgress and Progressing while groups in
// [partition, replicas) are not all updated; Available once every group below replicas is ready and those from the
// partition up are updated and ready; Progressing otherwise. Available excludes Progressing and UpdateInProgress.
import type { Pod, StatefulSet } from '../../kube/api/objects.js';
import { ReconcileError } from '../../kube/errors.js';
import { wireTime } from '../common/wire-time.js';
import { conditionEvent, type LwsEvent } from './events.js';
import { atoi, isPodRunningAndReady, isStatefulSetReady, leaderPodsOf } from './group-state.js';
import { revisionKeyOf } from './revision.js';
import { hasNoWorkers, partitionOf, replicasOf } from './spec-values.js';
import {
  ConditionMessage,
  ConditionType,
  GROUP_INDEX_LABEL,
  Reason,
  SET_NAME_LABEL,
  WORKER_INDEX_LABEL,
  type Condition,
  type LeaderWorkerSet,
  type LeaderWorkerSetStatus,
} from './types.js';

type ConditionTypeName = (typeof ConditionType)[keyof typeof ConditionType];

const CONDITION_TEXT: Readonly<Record<ConditionTypeName, readonly [reason: string, message: string]>> = {
  [ConditionType.Available]: [Reason.AllGroupsReady, ConditionMessage.Available],
  [ConditionType.UpdateInProgress]: [Reason.GroupsUpdating, ConditionMessage.UpdateInProgress],
  [ConditionType.Progressing]: [Reason.GroupsProgressing, ConditionMessage.Progressing],
};

/** makeCondition: a True condition of this type with upstream's reason and message. */
export function makeCondition(type: ConditionTypeName, generation: number, now: Date): Condition {
  const [reason, message] = CONDITION_TEXT[type];
  return { type, status: 'True', lastTransitionTime: wireTime(now), observedGeneration: generation, reason, message };
}

/** exclusiveConditionTypes: Available and Progressing, or Available and UpdateInProgress, cannot both be True. */
export function areExclusiveConditionTypes(a: Pick<Condition, 'type'>, b: Pick<Condition, 'type'>): boolean {
  const pair = new Set([a.type, b.type]);
  return (
    pair.has(ConditionType.Available) &&
    (pair.has(ConditionType.Progressing) || pair.has(ConditionType.UpdateInProgress)) &&
    a.type !== b.type
  );
}

/**
 * setCondition: put a (True) condition into `conditions` (changed in place), turning a True exclusive one False;
 * true when anything changed. A condition of the same type is replaced only when its status or observed generation
 * differ; a new one is added only when True.
 */
export function setCondition(conditions: Condition[], next: Condition, now: Date): boolean {
  const incoming = { ...next, lastTransitionTime: wireTime(now) };
  let found = false;
  let changed = false;
  conditions.forEach((current, i) => {
    if (incoming.type === current.type) {
      if (incoming.status !== current.status || incoming.observedGeneration !== current.observedGeneration) {
        conditions[i] = incoming;
        changed = true;
      }
      found = true;
    } else if (
      areExclusiveConditionTypes(current, incoming) &&
      incoming.status === 'True' &&
      current.status === 'True'
    ) {
      conditions[i] = {
        ...current,
        status: 'False',
        lastTransitionTime: wireTime(now),
        observedGeneration: incoming.observedGeneration,
      };
      changed = true;
    }
  });
  if (incoming.status === 'True' && !found) {
    conditions.push(incoming);
    changed = true;
  }
  return changed;
}

/**
 * setConditions: set each condition until one changes something (upstream's `changed || setCondition(…)` stops
 * there; the rest wait for the next pass), then bring every condition's observedGeneration to the generation.
 */
export function setConditions(
  conditions: Condition[],
  next: readonly Condition[],
  generation: number,
  now: Date,
): boolean {
  let changed = false;
  for (const c of next) changed = changed || setCondition(conditions, c, now);
  conditions.forEach((c, i) => {
    if (c.observedGeneration !== generation) {
      conditions[i] = { ...c, observedGeneration: generation };
      changed = true;
    }
  });
  return changed;
}

/** The selector of the scale subresource: the leader pods (labels.Selector's String, keys sorted). */
export function hpaPodSelector(lws: LeaderWorkerSet): string {
  return `${SET_NAME_LABEL}=${lws.metadata.name ?? ''},${WORKER_INDEX_LABEL}=0`;
}

export type StatusResult = {
  /** The status to write (Update of the whole object), or undefined when nothing changed. */
  readonly status?: LeaderWorkerSetStatus;
  /** Every group below replicas is updated and ready, with partition 0: the old revisions can go. */
  readonly updateDone: boolean;
  /** Recorded when the conditions changed. */
  readonly events: readonly LwsEvent[];
};

/**
 * updateStatus: the status from the leader StatefulSet, the leader pods and the worker StatefulSets (by name; the
 * one of a leader pod is the pod's name, and a leader without one is left out).
 */
export function computeStatus(
  lws: LeaderWorkerSet,
  leaderStatefulSet: StatefulSet,
  pods: readonly Pod[],
  workerStatefulSets: ReadonlyMap<string, StatefulSet>,
  revisionKey: string,
  now: Date,
): StatusResult {
  const old = lws.status ?? {};
  const status: LeaderWorkerSetStatus = { ...old, conditions: (old.conditions ?? []).map((c) => ({ ...c })) };
  const generation = lws.metadata.generation ?? 0;
  let changed = false;

  const stsReplicas = leaderStatefulSet.status?.replicas ?? 0;
  if ((old.replicas ?? 0) !== stsReplicas) {
    status.replicas = stsReplicas;
    changed = true;
  }
  if ((old.observedGeneration ?? 0) !== generation) {
    status.observedGeneration = generation;
    changed = true;
  }
  if ((old.hpaPodSelector ?? '') === '') {
    status.hpaPodSelector = hpaPodSelector(lws);
    changed = true;
  }

  const replicas = replicasOf(lws);
  const partition = partitionOf(lws);
  const noWorkers = hasNoWorkers(lws);
  let ready = 0;
  let updated = 0;
  let readyNonBurst = 0;
  let partitionedCurrentNonBurst = 0;
  let partitionedUpdatedNonBurst = 0;
  let partitionedUpdatedAndReady = 0;
  for (const pod of leaderPodsOf(lws, pods)) {
    const index = atoi(pod.metadata?.labels?.[GROUP_INDEX_LABEL]);
    if (index === null) {
      throw new ReconcileError('PlanFailed', `leader pod ${pod.metadata?.name ?? ''}: group index is not a number`);
    }
    const sts = noWorkers ? null : (workerStatefulSets.get(pod.metadata?.name ?? '') ?? null);
    if (!noWorkers && sts === null) continue;
    const nonBurst = index < replicas;
    const partitioned = nonBurst && index >= partition;
    if (partitioned) partitionedCurrentNonBurst++;
    const isReady = (sts === null || isStatefulSetReady(sts)) && isPodRunningAndReady(pod);
    const isUpdated = (sts === null || revisionKeyOf(sts) === revisionKey) && revisionKeyOf(pod) === revisionKey;
    if (isReady) ready++;
    if (isUpdated) {
      updated++;
      if (partitioned) partitionedUpdatedNonBurst++;
    }
    if (nonBurst && isReady) readyNonBurst++;
    if (partitioned && isReady && isUpdated) partitionedUpdatedAndReady++;
  }

  if ((old.readyReplicas ?? 0) !== ready) {
    status.readyReplicas = ready;
    changed = true;
  }
  if ((old.updatedReplicas ?? 0) !== updated) {
    status.updatedReplicas = updated;
    changed = true;
  }

  const next =
    partitionedUpdatedNonBurst < partitionedCurrentNonBurst
      ? [
          makeCondition(ConditionType.UpdateInProgress, generation, now),
          makeCondition(ConditionType.Progressing, generation, now),
        ]
      : readyNonBurst === replicas && partitionedUpdatedAndReady === partitionedCurrentNonBurst
        ? [makeCondition(ConditionType.Available, generation, now)]
        : [makeCondition(ConditionType.Progressing, generation, now)];
  const conditions = status.conditions ?? [];
  const conditionsChanged = setConditions(conditions, next, generation, now);
  const first = next[0]!;
  const events = conditionsChanged ? [conditionEvent(first.reason, first.message, ready, replicas)] : [];
  const updateDone = partition === 0 && partitionedUpdatedAndReady === replicas;

  if (!changed && !conditionsChanged) return { updateDone, events };
  return { status: asGoEncodes({ ...status, conditions }), updateDone, events };
}

/**
 * The status as upstream's Update sends it: encoding/json leaves out the omitempty fields of LeaderWorkerSetStatus
 * that are zero (replicas, readyReplicas, updatedReplicas, observedGeneration, an empty hpaPodSelector or
 * conditions), so a count that drops to 0 is removed from the object, not written as 0.
 */
function asGoEncodes(status: LeaderWorkerSetStatus): LeaderWorkerSetStatus {
  const out: LeaderWorkerSetStatus = { ...status };
  for (const k of ['replicas', 'readyReplicas', 'updatedReplicas', 'observedGeneration'] as const)
    if (out[k] === 0) delete out[k];
  if (out.hpaPodSelector === '') delete out.hpaPodSelector;
  if (out.conditions?.length === 0) delete out.conditions;
  return out;
}
