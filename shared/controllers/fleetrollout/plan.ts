// The FleetRollout controller's pure plan: the wave planner (rollouts/plan.ts) on what was observed, then
//   1. the ledger: the status write (the commit point), carrying the planner's Events on the FleetRollout;
//   2. the pins: each cluster's target annotated with what the new ledger admits (rollouts/gate.ts), as writes to
//      those clusters, applied by the runtime only after the status write succeeded.
// A pass that dies between the two is repaired by the next, which computes the same pins from the stored ledger.
// The finalizer keeps the rollout until its pins are off every cluster: a deleted rollout releases its targets to
// their own controllers instead of leaving them held.
import type { Action } from '../../kube/actions.js';
import { EventType, regardingObject, type EventSpec } from '../../kube/events/types.js';
import type { ApiObject } from '../../kube/meta/object.js';
import { desiredPin, pinPatch, type DesiredPin } from '../../rollouts/gate.js';
import { PIN_ROLLOUT_ANNOTATION } from '../../rollouts/pin.js';
import { plan as planWaves } from '../../rollouts/plan.js';
import { selectClusters } from '../../rollouts/select.js';
import {
  FLEET_ROLLOUT_API_VERSION,
  FLEET_ROLLOUT_KIND,
  type ClusterRecord,
  type FleetRolloutStatus,
} from '../../rollouts/types.js';
import type { GaugeSample, PlanResult, RemoteActions } from '../controller.js';
import { FLEET_ROLLOUT_FINALIZER, type ObservedFleetRollout, type TargetState } from './observe.js';

/** How often a rollout looks at its targets while a cluster is admitted and not done (failures are seen by this). */
export const IN_FLIGHT_LOOK_MS = 2_000;
/** How often it looks otherwise (a new template revision in some cluster is seen by this). */
export const IDLE_LOOK_MS = 10_000;

export const EVENT_SOURCE = 'fleetrollout-controller';

export function planFleetRollout(observed: ObservedFleetRollout, now: Date): PlanResult {
  if (observed.state === 'gone') return { actions: [] };
  if (observed.state === 'invalid') {
    return {
      actions: [{ type: 'event', event: rolloutEvent(observed.object, 'Warning', 'InvalidSpec', observed.message) }],
    };
  }
  const { object, rollout, targets } = observed;
  const name = `${rollout.metadata.namespace}/${rollout.metadata.name}`;

  if (observed.deleting) {
    // Pins off first (every cluster whose target names this rollout), then the finalizer, in a later pass.
    const remote = unpin(name, rollout.spec.target, targets);
    if (remote.length > 0) return { actions: [], remote, requeueAfter: IN_FLIGHT_LOOK_MS };
    if (!observed.hasFinalizer) return { actions: [] };
    return { actions: [finalizerUpdate(object, false)] };
  }
  if (!observed.hasFinalizer) return { actions: [finalizerUpdate(object, true)], requeueAfter: 0 };

  const result = planWaves({ rollout, clusters: observed.clusters, observations: observed.observations, now });
  const actions: Action[] = [];
  if (result.statusChanged) {
    actions.push({
      type: 'updateStatus',
      object: { ...object, status: result.status } as ApiObject,
      events: { onSuccess: result.events.map((e) => rolloutEvent(object, e.type, e.reason, e.message)) },
    });
  }
  const selected = new Set(selectClusters(observed.clusters, rollout.spec.clusters).map((c) => c.name));
  const byCluster = new Map(observed.observations.map((o) => [o.cluster, o]));
  const remote: RemoteActions[] = [];
  for (const t of targets) {
    if (!t.present) continue;
    const ours = t.annotations[PIN_ROLLOUT_ANNOTATION] === name;
    // A target another rollout pins is left to it (two rollouts of one workload: the first keeps it).
    if (!ours && t.annotations[PIN_ROLLOUT_ANNOTATION] !== undefined) continue;
    const desired: DesiredPin | undefined = selected.has(t.cluster)
      ? desiredPin(result.status, t.cluster, byCluster.get(t.cluster))
      : undefined;
    if (desired === undefined && !ours) continue;
    const patch = pinPatch(name, t.annotations, desired);
    if (patch !== undefined) remote.push({ cluster: t.cluster, actions: [pinAction(rollout.spec.target, t, patch)] });
  }
  const inFlight = (result.status.revisions?.at(-1)?.clusters ?? []).some(
    (r) => r.admittedAt !== undefined && r.verdict === undefined,
  );
  const look = inFlight ? IN_FLIGHT_LOOK_MS : IDLE_LOOK_MS;
  return {
    actions,
    ...(remote.length > 0 && { remote }),
    requeueAfter: Math.min(look, result.requeueAfterMs ?? look),
    gauges: gaugesOf(rollout.metadata, result.status, now),
  };
}

const CLUSTER_STATES = ['Waiting', 'InFlight', 'Succeeded', 'Failed', 'RolledBack'] as const;

/**
 * fleetq_fleetrollout_clusters: the current revision's clusters per state; fleetq_fleetrollout_wave_seconds: per
 * wave of it, from its first admission to its last verdict (to now while it runs; absent before it starts).
 */
function gaugesOf(
  meta: { readonly namespace: string; readonly name: string },
  status: FleetRolloutStatus,
  now: Date,
): GaugeSample[] {
  const entry = status.revisions?.at(-1);
  const rows = entry?.clusters ?? [];
  const base = { namespace: meta.namespace, rollout: meta.name };
  const stateOf = (r: ClusterRecord) => r.verdict ?? (r.admittedAt === undefined ? 'Waiting' : 'InFlight');
  const samples: GaugeSample[] = CLUSTER_STATES.map((state) => ({
    name: 'fleetq_fleetrollout_clusters',
    help: "Clusters of a FleetRollout's current revision by state: Waiting, InFlight, Succeeded, Failed, RolledBack",
    labels: { ...base, state },
    value: rows.filter((r) => stateOf(r) === state).length,
  }));
  for (const wave of new Set(rows.map((r) => r.wave))) {
    const of = rows.filter((r) => r.wave === wave);
    const admitted = of.flatMap((r) => (r.admittedAt === undefined ? [] : [Date.parse(r.admittedAt)]));
    if (admitted.length === 0) continue;
    const done = of.every((r) => r.verdictAt !== undefined);
    const end = done ? Math.max(...of.map((r) => Date.parse(r.verdictAt ?? ''))) : now.getTime();
    samples.push({
      name: 'fleetq_fleetrollout_wave_seconds',
      help: "Time of each wave of a FleetRollout's current revision, from its first admission to its last verdict (to now while it runs)",
      labels: { ...base, wave },
      value: Math.max(0, (end - Math.min(...admitted)) / 1000),
    });
  }
  return samples;
}

function unpin(name: string, target: TargetRef, targets: readonly TargetState[]): RemoteActions[] {
  return targets.flatMap((t) => {
    if (!t.present || t.annotations[PIN_ROLLOUT_ANNOTATION] !== name) return [];
    const patch = pinPatch(name, t.annotations, undefined);
    return patch === undefined ? [] : [{ cluster: t.cluster, actions: [pinAction(target, t, patch)] }];
  });
}

type TargetRef = { readonly kind: string; readonly namespace: string; readonly name: string };

function pinAction(target: TargetRef, t: TargetState, annotations: Record<string, string | null>): Action {
  return {
    type: 'patch',
    target,
    patch: { metadata: { uid: t.uid, annotations } },
    reason: annotations[PIN_ROLLOUT_ANNOTATION] === null ? 'fleet rollout pin removed' : 'fleet rollout pin',
    ignore: ['NotFound', 'Invalid'],
  };
}

function finalizerUpdate(object: ApiObject, add: boolean): Action {
  const meta = object.metadata ?? {};
  const others = (meta.finalizers ?? []).filter((f) => f !== FLEET_ROLLOUT_FINALIZER);
  return {
    type: 'update',
    object: { ...object, metadata: { ...meta, finalizers: add ? [...others, FLEET_ROLLOUT_FINALIZER] : others } },
    reason: add ? 'fleet rollout finalizer added' : 'fleet rollout pins removed everywhere: finalizer removed',
  };
}

function rolloutEvent(object: ApiObject, type: 'Normal' | 'Warning', reason: string, message: string): EventSpec {
  return {
    regarding: regardingObject(FLEET_ROLLOUT_KIND, FLEET_ROLLOUT_API_VERSION, object.metadata),
    source: EVENT_SOURCE,
    type: type === 'Warning' ? EventType.Warning : EventType.Normal,
    reason,
    message,
  };
}
