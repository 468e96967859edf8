// The StatefulSet planner (StatefulSetController.sync → UpdateStatefulSet): claim, revisions, the replica slots
// in ordinal order and the condemned pods, the rolling update, status, history truncation. Pure: observed state
// and `now` in, actions out.
//
// Where a stateless pass differs in mechanism from upstream's sync (same outcome):
// - A pass that adopts or releases does only that and continues at once (requeueAfter 0).
// - A pod whose claims are missing gets them in one pass and is created by the next one that finds them all
//   (upstream creates the claims, then the pod, in one call); claim ownerReferences for the retention policy
//   are set by the pass after the pod exists (upstream: right after the create, with the pod's uid).
// - A raised collisionCount is written alone; the next pass names the revision with it.
import type { ControllerRevision, Pod, StatefulSet } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { selectorOf } from '../../kube/meta/label-selector.js';
import { canAdopt, claimActions, claimObjects } from '../common/claim.js';
import type { PlanResult } from '../controller.js';
import { sortControllerRevisions } from '../common/controller-history.js';
import { pinEventType, withPinCondition } from '../common/fleet-pin-condition.js';
import { pinOf } from '../../rollouts/pin.js';
import { stsEvent } from './events.js';
import { frozenView, statefulSetGate } from './fleet-pin.js';
import { nameOf, statefulSetRevisions, templateOf, truncateHistory } from './history.js';
import {
  CLAIM_REVISIONS,
  endOrdinal,
  newStatefulPod,
  podClaimOptions,
  ordinalOf,
  revisionOfPod,
  startOrdinal,
} from './identity.js';
import { claimRetentionUpdates, deletePod, processCondemned, processReplica, type Ctx, type Step } from './replicas.js';
import { rollingDeletes } from './rolling.js';
import { collisionAction, countReplicas, isUnavailable, newStatus, statusAction } from './status.js';
import { PodManagement, STS_API_VERSION, STS_KIND, Strategy, type ObservedStatefulSet } from './types.js';

export function planStatefulSet(o: ObservedStatefulSet, now: Date): PlanResult {
  const set = o.statefulSet;
  if (set === null) return { actions: [] }; // gone: the garbage collector deletes its pods and revisions
  const deleting = !!set.metadata?.deletionTimestamp;

  const selects = selectorOf(set.spec?.selector);
  const revs = claimObjects<ControllerRevision>(set, o.revisions, selects, CLAIM_REVISIONS);
  const pods = claimObjects<Pod>(set, o.pods, selects, podClaimOptions(set));
  if (!deleting && revs.adopt.length + pods.adopt.length + revs.release.length + pods.release.length > 0) {
    if (revs.adopt.length + pods.adopt.length > 0 && !canAdopt(set, o.adoptionRecheck)) {
      return { actions: [], requeueAfter: 0 }; // deleted or replaced since it was read: look again
    }
    const owner = {
      apiVersion: STS_API_VERSION,
      kind: STS_KIND,
      name: set.metadata?.name ?? '',
      uid: set.metadata?.uid ?? '',
    };
    return {
      actions: [...claimActions(owner, 'ControllerRevision', revs), ...claimActions(owner, 'Pod', pods)],
      requeueAfter: 0,
    };
  }

  const sorted = sortControllerRevisions(revs.claimed);
  const revisions = statefulSetRevisions(set, sorted, o.nameTaken);
  if (revisions.kind === 'collision') return { actions: [collisionAction(set)], requeueAfter: 0 };
  // The fleet rollout pin decides which revision pods are rolled to (fleet-pin.ts); without it, upstream's.
  const hasCurrent = sorted.some((cr) => nameOf(cr) === set.status?.currentRevision);
  const gate = statefulSetGate(set, pinOf(set), sorted, revisions.current, hasCurrent, revisions.update, pods.claimed);
  const current = nameOf(revisions.current);
  const update = gate.statusUpdate;
  const minReadySeconds = set.spec?.minReadySeconds ?? 0;

  // A frozen pass works on the set with its partition at replicas; the status is the set's own.
  const working = gate.frozen ? frozenView(set) : set;
  const { replicas, planned, condemned } = slots(working, pods.claimed, gate.current, gate.update);
  const c: Ctx = {
    set: working,
    claims: new Map(o.claims.map((pvc) => [pvc.metadata?.name ?? '', pvc])),
    takenNames: new Set(o.pods.filter((p) => !pods.claimed.includes(p)).map((p) => p.metadata?.name ?? '')),
    monotonic: set.spec?.podManagementPolicy !== PodManagement.Parallel,
    minReadySeconds,
    now,
  };
  const rollTo = gate.rolls && gate.update !== null ? nameOf(gate.update) : null;
  const work: Work = deleting ? { actions: [], updateDeletes: 0 } : converge(c, replicas, planned, condemned, rollTo);

  const counts = countReplicas([...replicas, ...condemned], minReadySeconds, current, update, now);
  counts.currentReplicas -= work.updateDeletes; // status.CurrentReplicas-- per pod deleted for the update
  const computed = newStatus(set, counts, current, update, set.status?.collisionCount ?? 0);
  const pinned = withPinCondition(computed.conditions, gate.verdict, now, gate.admittedMessage);
  const { conditions: _previous, ...rest } = computed;
  const status = { ...rest, ...(pinned.conditions && { conditions: pinned.conditions }) };
  const event =
    pinned.event && stsEvent(set, pinEventType(pinned.event.reason), pinned.event.reason, pinned.event.message);
  const write = statusAction(set, status, event);
  const live = new Set([
    current,
    update,
    ...(gate.update ? [nameOf(gate.update)] : []),
    ...pods.claimed.map(revisionOfPod),
  ]);
  const actions: Action[] = [
    ...revisions.actions,
    ...work.actions,
    ...truncateHistory(set, sorted, live),
    ...(write ? [write] : []),
  ];
  const requeue = [
    work.retryMs,
    minReadySeconds > 0 && status.availableReplicas !== (set.spec?.replicas ?? 1) ? minReadySeconds * 1000 : undefined,
  ].filter((v): v is number => v !== undefined);
  return requeue.length === 0 ? { actions } : { actions, requeueAfter: Math.min(...requeue) };
}

/**
 * The replica slots in ordinal order (a pod, or the pod to create: newVersionedStatefulSetPod, at the current
 * revision below the partition), and the condemned pods, highest ordinal first. A pod whose name has no ordinal
 * is ignored.
 */
function slots(
  set: StatefulSet,
  pods: readonly Pod[],
  current: ControllerRevision | null,
  update: ControllerRevision | null,
) {
  const start = startOrdinal(set);
  const end = endOrdinal(set);
  const byOrdinal = new Map<number, Pod>();
  const condemned: Pod[] = [];
  for (const pod of pods) {
    const ord = ordinalOf(pod);
    if (ord >= start && ord <= end) byOrdinal.set(ord, pod);
    else if (ord >= 0) condemned.push(pod);
  }
  condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
  const rolling = set.spec?.updateStrategy?.type ?? Strategy.RollingUpdate;
  const partition = set.spec?.updateStrategy?.rollingUpdate;
  const currentCount = set.status?.currentReplicas ?? 0;
  const planned = new Set<Pod>();
  const replicas: Pod[] = [];
  for (let ord = start; ord <= end; ord++) {
    const found = byOrdinal.get(ord);
    if (found) {
      replicas.push(found);
      continue;
    }
    const atCurrent =
      (rolling === Strategy.RollingUpdate && partition === undefined && ord < start + currentCount) ||
      (partition !== undefined && ord < start + (partition.partition ?? 0));
    const revision = atCurrent ? current : update;
    if (revision === null) continue; // held by a fleet rollout pin that names no revision to make pods from
    const pod = newStatefulPod(set, templateOf(revision), ord, nameOf(revision));
    planned.add(pod);
    replicas.push(pod);
  }
  return { replicas, planned, condemned };
}

type Work = { readonly actions: Action[]; readonly updateDeletes: number; readonly retryMs?: number };

/** updateStatefulSet from the replicas on: stops where OrderedReady must wait, or on upstream's errors. */
function converge(
  c: Ctx,
  replicas: readonly Pod[],
  planned: ReadonlySet<Pod>,
  condemned: readonly Pod[],
  update: string | null,
): Work {
  const actions: Action[] = [];
  let retryMs: number | undefined;
  const result = (updateDeletes = 0): Work => ({
    actions,
    updateDeletes,
    ...(retryMs !== undefined && { retryMs }),
  });
  const stops = (s: Step): boolean => {
    actions.push(...s.actions);
    if (s.retryMs !== undefined) retryMs = Math.min(retryMs ?? s.retryMs, s.retryMs);
    return c.monotonic ? s.exit : (s.failed ?? false);
  };
  for (const pod of replicas) if (stops(processReplica(c, pod, planned.has(pod)))) return result();
  // The condemned pods' claims first, alone: a pod deleted while its claim's update failed would leave the claim
  // without the pod as owner for good (upstream's fixPodClaim error ends the sync before any deletion).
  const fixes = condemned.flatMap((pod) => claimRetentionUpdates(c, pod, false));
  if (fixes.length > 0) {
    actions.push(...fixes);
    retryMs = 0;
    return result();
  }
  const unhealthy = (p: Pod) => isUnavailable(p, c.minReadySeconds, c.now);
  const firstUnhealthy = replicas.find(unhealthy) ?? [...condemned].reverse().find(unhealthy);
  for (const pod of condemned) if (stops(processCondemned(c, pod, firstUnhealthy))) return result();
  if ((c.set.spec?.updateStrategy?.type ?? Strategy.RollingUpdate) !== Strategy.RollingUpdate || update === null) {
    return result();
  }
  const deletes = rollingDeletes(c.set, replicas, update, c.minReadySeconds, c.now);
  actions.push(...deletes.map((pod) => deletePod(c.set, pod)));
  return result(deletes.length);
}
