// The FleetRollout controller's pure plan: the finalizer first, then the ledger (status, with the rollout's
// Events) and the pins each cluster's target should carry; pins off everywhere before the finalizer goes.
import { describe, expect, it } from '@jest/globals';
import type { FleetCluster } from '../../../../shared/controllers/controller.js';
import type { Action } from '../../../../shared/kube/actions.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import {
  FLEET_ROLLOUT_FINALIZER,
  type ObservedFleetRollout,
  type TargetState,
} from '../../../../shared/controllers/fleetrollout/observe.js';
import { IDLE_LOOK_MS, IN_FLIGHT_LOOK_MS, planFleetRollout } from '../../../../shared/controllers/fleetrollout/plan.js';
import type { ClusterObservation } from '../../../../shared/rollouts/observation.js';
import {
  PIN_ADMITTED_ANNOTATION,
  PIN_FROZEN_ANNOTATION,
  PIN_ROLLOUT_ANNOTATION,
} from '../../../../shared/rollouts/pin.js';
import { parseFleetRollout, type FleetRolloutStatus } from '../../../../shared/rollouts/types.js';
import { exampleRollout } from '../../../helpers/rollouts/example.js';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const CLUSTERS: readonly FleetCluster[] = [
  { name: 'c0', labels: { env: 'prod', ring: '0' } },
  { name: 'c1', labels: { env: 'prod', ring: '1' } },
  { name: 'c2', labels: { env: 'prod', ring: '2' } },
  { name: 'dev', labels: { env: 'dev' } },
];
const NAME = 'fleetq-system/web';

function obs(cluster: string, o: Partial<ClusterObservation> = {}): ClusterObservation {
  return {
    cluster,
    present: true,
    revision: 'r2',
    previousRevision: 'r1',
    generation: 2,
    observedGeneration: 2,
    available: false,
    ...o,
  };
}

function target(cluster: string, annotations: Record<string, string> = {}): TargetState {
  return { cluster, present: true, uid: `uid-${cluster}`, annotations };
}

function observed(
  o: {
    status?: FleetRolloutStatus;
    finalizer?: boolean;
    deleting?: boolean;
    observations?: ClusterObservation[];
    targets?: TargetState[];
  } = {},
): ObservedFleetRollout {
  const raw = {
    ...exampleRollout(),
    metadata: {
      name: 'web',
      namespace: 'fleetq-system',
      uid: 'rollout-uid',
      resourceVersion: '10',
      generation: 1,
      ...((o.finalizer ?? true) && { finalizers: [FLEET_ROLLOUT_FINALIZER] }),
      ...(o.deleting === true && { deletionTimestamp: NOW.toISOString() }),
    },
    ...(o.status !== undefined && { status: o.status }),
  };
  return {
    state: 'ok',
    object: raw as ApiObject,
    rollout: parseFleetRollout(raw),
    deleting: o.deleting ?? false,
    hasFinalizer: o.finalizer ?? true,
    clusters: CLUSTERS,
    observations: o.observations ?? ['c0', 'c1', 'c2'].map((c) => obs(c)),
    targets: o.targets ?? ['c0', 'c1', 'c2'].map((c) => target(c)),
  };
}

const pinsOf = (remote: readonly { cluster: string; actions: readonly Action[] }[] | undefined) =>
  Object.fromEntries(
    (remote ?? []).map(({ cluster, actions }) => {
      const a = actions[0];
      if (a?.type !== 'patch') throw new Error(`expected a patch, got ${a?.type}`);
      return [cluster, (a.patch.metadata as { annotations: Record<string, string | null> }).annotations];
    }),
  );

describe('FleetRollout controller plan', () => {
  it('adds its finalizer before anything else, and looks again at once', () => {
    const result = planFleetRollout(observed({ finalizer: false }), NOW);
    expect(result.remote).toBeUndefined();
    expect(result.requeueAfter).toBe(0);
    expect(result.actions).toHaveLength(1);
    const update = result.actions[0];
    expect(update?.type).toBe('update');
    expect((update as { object: ApiObject }).object.metadata?.finalizers).toEqual([FLEET_ROLLOUT_FINALIZER]);
  });

  it('writes the ledger with its Events, admits the canary and pins every selected cluster', () => {
    const result = planFleetRollout(observed(), NOW);
    const status = result.actions.find((a) => a.type === 'updateStatus');
    expect(status).toBeDefined();
    const ledger = (status as unknown as { object: { status: FleetRolloutStatus } }).object.status;
    expect(ledger.revision).toBe('r2');
    expect(ledger.revisions?.[0]?.clusters.filter((c) => c.admittedAt !== undefined).map((c) => c.cluster)).toEqual([
      'c0',
    ]);
    const reasons = (status as unknown as { events: { onSuccess: { reason: string; regarding: { kind: string } }[] } })
      .events.onSuccess;
    expect(reasons.map((e) => e.reason)).toEqual(
      expect.arrayContaining(['RolloutStarted', 'ClusterAdmitted', 'WaveStarted']),
    );
    expect(new Set(reasons.map((e) => e.regarding.kind))).toEqual(new Set(['FleetRollout']));
    // The canary runs the new revision; the others are held at what they ran; dev is not touched.
    expect(pinsOf(result.remote)).toEqual({
      c0: { [PIN_ROLLOUT_ANNOTATION]: NAME, [PIN_ADMITTED_ANNOTATION]: 'r2', [PIN_FROZEN_ANNOTATION]: null },
      c1: { [PIN_ROLLOUT_ANNOTATION]: NAME, [PIN_ADMITTED_ANNOTATION]: 'r1', [PIN_FROZEN_ANNOTATION]: null },
      c2: { [PIN_ROLLOUT_ANNOTATION]: NAME, [PIN_ADMITTED_ANNOTATION]: 'r1', [PIN_FROZEN_ANNOTATION]: null },
    });
    expect(result.requeueAfter).toBe(IN_FLIGHT_LOOK_MS);
  });

  it("reports the current revision's clusters per state and the time of each wave begun, as gauges", () => {
    const result = planFleetRollout(observed(), NOW);
    const byState = Object.fromEntries(
      (result.gauges ?? [])
        .filter((g) => g.name === 'fleetq_fleetrollout_clusters')
        .map((g) => [g.labels.state, g.value]),
    );
    expect(byState).toEqual({ Waiting: 2, InFlight: 1, Succeeded: 0, Failed: 0, RolledBack: 0 });
    const waves = (result.gauges ?? []).filter((g) => g.name === 'fleetq_fleetrollout_wave_seconds');
    expect(waves.map((g) => [g.labels.wave, g.value])).toEqual([['canary', 0]]);
  });

  it('planning on its own output writes nothing: no status, no pin', () => {
    const first = planFleetRollout(observed(), NOW);
    const status = (
      first.actions.find((a) => a.type === 'updateStatus') as unknown as { object: { status: FleetRolloutStatus } }
    ).object.status;
    const pinned = pinsOf(first.remote);
    const targets = ['c0', 'c1', 'c2'].map((c) =>
      target(
        c,
        Object.fromEntries(Object.entries(pinned[c] ?? {}).filter(([, v]) => v !== null)) as Record<string, string>,
      ),
    );
    const again = planFleetRollout(observed({ status, targets }), NOW);
    expect(again.actions).toEqual([]);
    expect(again.remote).toBeUndefined();
  });

  it('a pass that died after its ledger write and before the pins writes the same pins again', () => {
    const first = planFleetRollout(observed(), NOW);
    const status = (
      first.actions.find((a) => a.type === 'updateStatus') as unknown as { object: { status: FleetRolloutStatus } }
    ).object.status;
    const repaired = planFleetRollout(observed({ status }), NOW);
    expect(repaired.actions).toEqual([]);
    expect(pinsOf(repaired.remote)).toEqual(pinsOf(first.remote));
  });

  it('freezes a failed cluster within the budget: its pin keeps the revision and names it frozen', () => {
    const first = planFleetRollout(observed(), NOW);
    const status = (
      first.actions.find((a) => a.type === 'updateStatus') as unknown as { object: { status: FleetRolloutStatus } }
    ).object.status;
    const failing = obs('c0', {
      failure: { signature: 'ImagePullBackOff', image: 'shop/web:2', pods: ['web-1'], message: 'Back-off pulling' },
    });
    const next = planFleetRollout(observed({ status, observations: [failing, obs('c1'), obs('c2')] }), NOW);
    expect(pinsOf(next.remote).c0).toEqual({
      [PIN_ROLLOUT_ANNOTATION]: NAME,
      [PIN_ADMITTED_ANNOTATION]: 'r2',
      [PIN_FROZEN_ANNOTATION]: 'r2',
    });
  });

  it('past the budget, rolls the moved clusters back: their pin returns to the previous revision', () => {
    const raw = exampleRollout('web', 'fleetq-system', { failureBudget: { maxFailedClusters: 0 } });
    const base = observed();
    if (base.state !== 'ok') throw new Error('unreachable');
    const withBudget0 = {
      ...base,
      rollout: parseFleetRollout({ ...raw, metadata: { name: 'web', namespace: 'fleetq-system' } }),
    };
    const first = planFleetRollout(withBudget0, NOW);
    const status = (
      first.actions.find((a) => a.type === 'updateStatus') as unknown as { object: { status: FleetRolloutStatus } }
    ).object.status;
    const failing = obs('c0', {
      failure: { signature: 'ImagePullBackOff', image: 'shop/web:2', pods: ['web-1'], message: 'Back-off pulling' },
    });
    const next = planFleetRollout(
      {
        ...withBudget0,
        rollout: { ...withBudget0.rollout, status },
        observations: [failing, obs('c1'), obs('c2')],
      },
      NOW,
    );
    expect(pinsOf(next.remote).c0?.[PIN_ADMITTED_ANNOTATION]).toBe('r1');
    expect(pinsOf(next.remote).c0?.[PIN_FROZEN_ANNOTATION]).toBeNull();
    expect(next.requeueAfter).toBe(IDLE_LOOK_MS);
  });

  it('unpins a cluster that left the selection, and leaves a target another rollout pins alone', () => {
    const targets = [
      target('c0'),
      target('c1', { [PIN_ROLLOUT_ANNOTATION]: 'other/rollout', [PIN_ADMITTED_ANNOTATION]: 'r0' }),
      target('c2'),
      target('dev', { [PIN_ROLLOUT_ANNOTATION]: NAME, [PIN_ADMITTED_ANNOTATION]: 'r1' }),
    ];
    const pins = pinsOf(planFleetRollout(observed({ targets }), NOW).remote);
    expect(pins.c1).toBeUndefined();
    expect(pins.dev).toEqual({
      [PIN_ROLLOUT_ANNOTATION]: null,
      [PIN_ADMITTED_ANNOTATION]: null,
      [PIN_FROZEN_ANNOTATION]: null,
    });
  });

  it('being deleted: pins come off every cluster first, then the finalizer goes', () => {
    const pinned = { [PIN_ROLLOUT_ANNOTATION]: NAME, [PIN_ADMITTED_ANNOTATION]: 'r1' };
    const first = planFleetRollout(observed({ deleting: true, targets: [target('c0', pinned), target('c1')] }), NOW);
    expect(first.actions).toEqual([]);
    expect(Object.keys(pinsOf(first.remote))).toEqual(['c0']);
    const second = planFleetRollout(observed({ deleting: true, targets: [target('c0'), target('c1')] }), NOW);
    expect(second.remote).toBeUndefined();
    expect((second.actions[0] as { object: ApiObject }).object.metadata?.finalizers).toEqual([]);
  });

  it('an invalid rollout records a Warning naming the bad field and writes nothing else', () => {
    const result = planFleetRollout(
      { state: 'invalid', object: exampleRollout() as ApiObject, message: 'invalid FleetRollout\n  spec.waves: bad' },
      NOW,
    );
    expect(result.actions).toEqual([
      expect.objectContaining({
        type: 'event',
        event: expect.objectContaining({ type: 'Warning', reason: 'InvalidSpec' }),
      }),
    ]);
  });
});
