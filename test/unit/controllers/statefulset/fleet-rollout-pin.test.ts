// The fleet rollout pin on a StatefulSet: hold, admit, roll back, '' and an unknown or malformed pin; the
// FleetRollout condition and its transition events; the template's revision recorded as upstream does.
import { describe, expect, it } from '@jest/globals';
import { planStatefulSet } from '../../../../shared/controllers/statefulset/plan.js';
import { hashOfRevision } from '../../../../shared/controllers/statefulset/fleet-pin.js';
import type { StatefulSet } from '../../../../shared/kube/api/objects.js';
import type { PlanResult } from '../../../../shared/controllers/controller.js';
import {
  PIN_ADMITTED_ANNOTATION,
  PIN_FROZEN_ANNOTATION,
  PIN_ROLLOUT_ANNOTATION,
} from '../../../../shared/rollouts/pin.js';
import { aPod, aRevision, aSet, NOW, observed, revOf, type SetOptions } from './builders.js';
import { eventsOf, summarize } from './summary.js';

const v1 = aSet();
const v2t = aSet({ image: 'web:2' });
const R1 = revOf(v1);
const R2 = revOf(v2t);
const H1 = hashOfRevision(v1, aRevision(v1, 1));
const H2 = hashOfRevision(v2t, aRevision(v2t, 2));
const ROLLOUT = 'fleetq-system/web';

function pinned(set: StatefulSet, admitted: string | undefined, rollout = ROLLOUT): StatefulSet {
  const annotations: Record<string, string> = { [PIN_ROLLOUT_ANNOTATION]: rollout };
  if (admitted !== undefined) annotations[PIN_ADMITTED_ANNOTATION] = admitted;
  return { ...set, metadata: { ...set.metadata, annotations } };
}

/** The set at web:2 (revisions 1: web:1, 2: web:2), pinned to `admitted`, its pods at web:1 or web:2. */
function obs(admitted: string | undefined, states: ('old' | 'new' | 'none')[], o: SetOptions = {}) {
  const set = pinned(
    aSet({ image: 'web:2', ...o, status: { currentRevision: R1, updateRevision: R2, ...o.status } }),
    admitted,
  );
  const pods = states.flatMap((s, i) => (s === 'none' ? [] : [aPod(set, i, 'ready', s === 'old' ? v1 : v2t)]));
  return observed(set, pods, [aRevision(v1, 1), aRevision(v2t, 2)]);
}

const conditionOf = (r: PlanResult) =>
  r.actions.flatMap((a) => (a.type === 'updateStatus' ? [(a.object as StatefulSet).status?.conditions] : []))[0];
const podActions = (r: PlanResult) => summarize(r).actions.filter((a) => !a.startsWith('status'));
const statusOf = (r: PlanResult) => summarize(r).actions.find((a) => a.startsWith('status'));

describe('StatefulSet fleet rollout pin', () => {
  it('the pin names the hash (the ControllerRevision name suffix), pods carry the name', () => {
    expect(R1).toBe(`web-${H1}`);
    expect(R2).toBe(`web-${H2}`);
  });

  it('without the pin: upstream rolls the highest ordinal', () => {
    const o = obs(undefined, ['old', 'old', 'old']);
    o.statefulSet!.metadata!.annotations = undefined;
    expect(podActions(planStatefulSet(o, NOW))).toEqual(['delete Pod web-2']);
  });

  it('hold: the template is not admitted, no pod is updated, rollout status keeps waiting', () => {
    const r = planStatefulSet(obs(H1, ['old', 'old', 'old']), NOW);
    expect(podActions(r)).toEqual([]);
    expect(statusOf(r)).toBe(`status r=3 ready=3 avail=3 cur=3 upd=0 ${R1}->${R2} gen=1 cc=0`);
    expect(conditionOf(r)).toEqual([
      {
        type: 'FleetRollout',
        status: 'False',
        reason: 'WaitingForFleetRollout',
        message: `FleetRollout ${ROLLOUT} admits revision ${H1}; the template's revision ${H2} waits`,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    expect(eventsOf(r)).toEqual([
      `WaitingForFleetRollout: FleetRollout ${ROLLOUT} admits revision ${H1}; the template's revision ${H2} waits`,
    ]);
  });

  it('hold: a missing pod (scale up, a failed pod recreated) is made at the admitted revision', () => {
    const r = planStatefulSet(obs(H1, ['old', 'old', 'none']), NOW);
    expect(podActions(r)).toEqual([`create Pod web-2 (${R1})`]);
  });

  it('hold: the next pass with the condition in place writes nothing and records no event', () => {
    const first = planStatefulSet(obs(H1, ['old', 'old', 'old']), NOW);
    const o = obs(H1, ['old', 'old', 'old']);
    const written = first.actions.find((a) => a.type === 'updateStatus')!.object as StatefulSet;
    o.statefulSet!.status = written.status!;
    const r = planStatefulSet(o, new Date(NOW.getTime() + 60_000));
    expect(r.actions).toEqual([]);
  });

  it('hold: the template revision is recorded as upstream does, no pod made from it', () => {
    const o = obs(H1, ['old', 'old', 'old']);
    const r = planStatefulSet({ ...o, revisions: [aRevision(v1, 1)], nameTaken: null }, NOW);
    expect(podActions(r)).toEqual([`create ControllerRevision ${R2} revision 2`]);
  });

  it('admit: the pin agrees with the template, upstream rolls, the condition is removed', () => {
    const held = planStatefulSet(obs(H1, ['old', 'old', 'old']), NOW);
    const o = obs(H2, ['old', 'old', 'old']);
    o.statefulSet!.status = (held.actions.find((a) => a.type === 'updateStatus')!.object as StatefulSet).status!;
    const r = planStatefulSet(o, NOW);
    expect(podActions(r)).toEqual(['delete Pod web-2']);
    expect(conditionOf(r)).toBeUndefined();
    expect(eventsOf(r)).toEqual([
      'SuccessfulDelete: Delete Pod web-2 in StatefulSet web successful',
      `FleetRolloutAdmitted: FleetRollout ${ROLLOUT} admits the template's revision ${H2}`,
    ]);
  });

  it('roll back: pods of the template revision are rolled to the admitted older one, highest ordinal first', () => {
    const status = { currentRevision: R2, updateRevision: R2, replicas: 3, currentReplicas: 3, updatedReplicas: 3 };
    const r = planStatefulSet(obs(H1, ['new', 'new', 'new'], { status }), NOW);
    expect(podActions(r)).toEqual(['delete Pod web-2']);
    expect(statusOf(r)).toBe(`status r=3 ready=3 avail=3 cur=2 upd=0 ${R2}->${R1} gen=1 cc=0`);
    expect(conditionOf(r)?.[0]).toMatchObject({
      reason: 'RolledBackByFleetRollout',
      message: `FleetRollout ${ROLLOUT} rolled back to revision ${H1} from the template's revision ${H2}`,
    });
    const recreated = planStatefulSet(obs(H1, ['new', 'new', 'none'], { status }), NOW);
    expect(podActions(recreated)).toEqual([`create Pod web-2 (${R1})`]);
  });

  it('roll back: honours the partition', () => {
    const status = { currentRevision: R2, updateRevision: R2 };
    const o = obs(H1, ['new', 'new', 'old'], {
      status,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
    });
    expect(podActions(planStatefulSet(o, NOW))).toEqual([]);
  });

  it('roll back complete: currentRevision is the admitted one, the condition stays RolledBack', () => {
    const status = { currentRevision: R2, updateRevision: R2 };
    const first = planStatefulSet(obs(H1, ['new', 'new', 'new'], { status }), NOW);
    const conditions = conditionOf(first)!;
    const r = planStatefulSet(obs(H1, ['old', 'old', 'old'], { status: { ...status, conditions } }), NOW);
    expect(podActions(r)).toEqual([]);
    expect(statusOf(r)).toBe(`status r=3 ready=3 avail=3 cur=3 upd=3 ${R1}->${R1} gen=1 cc=0`);
    expect(conditionOf(r)).toEqual(conditions);
    expect(eventsOf(r)).toEqual([]);
  });

  it("admitted '': held at status.currentRevision, no pod deleted for the update, new pods at it", () => {
    const r = planStatefulSet(obs('', ['new', 'old', 'none']), NOW);
    expect(podActions(r)).toEqual([`create Pod web-2 (${R1})`]);
    expect(conditionOf(r)?.[0]).toMatchObject({
      reason: 'WaitingForFleetRollout',
      message: `FleetRollout ${ROLLOUT} has admitted no revision: held at revision ${H1}; the template's revision ${H2} waits`,
    });
    expect(podActions(planStatefulSet(obs('', ['old', 'old', 'old']), NOW))).toEqual([]);
  });

  it("admitted '' on a set that has no current revision yet: no pod is made", () => {
    const set = pinned(aSet({ image: 'web:2' }), '');
    const r = planStatefulSet(observed(set, [], [aRevision(v2t, 1)]), NOW);
    expect(podActions(r)).toEqual([]);
  });

  it.each([
    { name: 'a revision not in the history', admitted: 'abc123', reason: 'FleetRolloutRevisionUnknown' },
    { name: 'a malformed admitted value', admitted: 'Not_A_Hash', reason: 'FleetRolloutRevisionUnknown' },
  ])('$name: no pod updated, new pods at the current revision, condition $reason', ({ admitted, reason }) => {
    const r = planStatefulSet(obs(admitted, ['old', 'old', 'none']), NOW);
    expect(podActions(r)).toEqual([`create Pod web-2 (${R1})`]);
    expect(conditionOf(r)?.[0]).toMatchObject({ type: 'FleetRollout', status: 'False', reason });
    // A pin naming nothing the set can run is a problem to see: a Warning, as the Deployment's.
    const types = r.actions.flatMap((a) =>
      (a.type === 'event' ? [a.event] : (a.events?.onSuccess ?? []))
        .filter((e) => e.reason === 'FleetRolloutRevisionUnknown')
        .map((e) => e.type),
    );
    expect(types).toEqual(['Warning']);
    expect(podActions(planStatefulSet(obs(admitted, ['old', 'old', 'old']), NOW))).toEqual([]);
  });

  it('a malformed rollout name: held, condition FleetRolloutRevisionUnknown', () => {
    const r = planStatefulSet(obs(H2, ['old', 'old', 'old']), NOW);
    expect(podActions(r)).toEqual(['delete Pod web-2']);
    const o = obs(H2, ['old', 'old', 'old']);
    o.statefulSet!.metadata!.annotations![PIN_ROLLOUT_ANNOTATION] = 'not a name';
    const held = planStatefulSet(o, NOW);
    expect(podActions(held)).toEqual([]);
    expect(conditionOf(held)?.[0]).toMatchObject({ reason: 'FleetRolloutRevisionUnknown' });
  });

  it('the pin removed (the rollout stopped pacing the set): upstream rolls, the stale condition goes', () => {
    const held = planStatefulSet(obs(H1, ['old', 'old', 'old']), NOW);
    const o = obs(undefined, ['old', 'old', 'old']);
    o.statefulSet!.metadata!.annotations = undefined;
    o.statefulSet!.status = (held.actions.find((a) => a.type === 'updateStatus')!.object as StatefulSet).status!;
    const r = planStatefulSet(o, NOW);
    expect(podActions(r)).toEqual(['delete Pod web-2']);
    expect(conditionOf(r)).toBeUndefined();
    expect(eventsOf(r)).toContain(
      `FleetRolloutAdmitted: No FleetRollout paces the StatefulSet any more: the template's revision ${H2} rolls`,
    );
  });
});

describe('StatefulSet fleet rollout pin: freeze (the frozen annotation names the admitted revision)', () => {
  // Mid-rollout to the admitted template revision: web-2 is updated, web-0 and web-1 are not.
  const status = { currentRevision: R1, updateRevision: R2, replicas: 3, currentReplicas: 2, updatedReplicas: 1 };
  const frozenObs = (frozen: string, states: ('old' | 'new' | 'none')[], o: SetOptions = {}) => {
    const x = obs(H2, states, { status, ...o });
    x.statefulSet!.metadata!.annotations![PIN_FROZEN_ANNOTATION] = frozen;
    return x;
  };
  const message = `FleetRollout ${ROLLOUT} froze the rollout of revision ${H2} where the StatefulSet stands: no further pod is updated, none is rolled back`;

  it('no further ordinal is updated, the updated pod stays; FleetRollout FrozenByFleetRollout, one event', () => {
    // Unfrozen, the same state rolls on: web-1 is next.
    expect(podActions(planStatefulSet(obs(H2, ['old', 'old', 'new'], { status }), NOW))).toEqual(['delete Pod web-1']);
    const o = frozenObs(H2, ['old', 'old', 'new']);
    const r = planStatefulSet(o, NOW);
    expect(podActions(r)).toEqual([]);
    expect(statusOf(r)).toBe(`status r=3 ready=3 avail=3 cur=2 upd=1 ${R1}->${R2} gen=1 cc=0`);
    expect(conditionOf(r)).toEqual([
      {
        type: 'FleetRollout',
        status: 'False',
        reason: 'FrozenByFleetRollout',
        message,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    expect(eventsOf(r)).toEqual([`FrozenByFleetRollout: ${message}`]);
    // The spec is the set's own: nothing but the status is written.
    const written = r.actions.find((a) => a.type === 'updateStatus')!.object as StatefulSet;
    expect(written.spec).toEqual(o.statefulSet!.spec);

    const again = frozenObs(H2, ['old', 'old', 'new']);
    again.statefulSet!.status = written.status!;
    expect(planStatefulSet(again, new Date(NOW.getTime() + 60_000)).actions).toEqual([]);
  });

  it('a missing pod is made at the current revision, as with a partition at replicas', () => {
    const r = planStatefulSet(frozenObs(H2, ['old', 'none', 'new']), NOW);
    expect(podActions(r)).toEqual([`create Pod web-1 (${R1})`]);
  });

  it('a freeze naming another revision does nothing', () => {
    expect(podActions(planStatefulSet(frozenObs(H2, ['old', 'old', 'new']), NOW))).toEqual([]);
    const r = planStatefulSet(frozenObs(H1, ['old', 'old', 'new']), NOW);
    expect(podActions(r)).toEqual(['delete Pod web-1']);
    expect(conditionOf(r)).toBeUndefined();
  });

  it('a malformed frozen value is a hold: nothing is updated, FleetRolloutRevisionUnknown', () => {
    const r = planStatefulSet(frozenObs('Not_A_Hash', ['old', 'old', 'new']), NOW);
    expect(podActions(r)).toEqual([]);
    expect(conditionOf(r)?.[0]).toMatchObject({ reason: 'FleetRolloutRevisionUnknown' });
    expect(conditionOf(r)?.[0]?.message).toContain(PIN_FROZEN_ANNOTATION);
  });

  it('unfreezing resumes the rollout and removes the condition', () => {
    const frozen = planStatefulSet(frozenObs(H2, ['old', 'old', 'new']), NOW);
    const o = obs(H2, ['old', 'old', 'new'], { status });
    o.statefulSet!.status = (frozen.actions.find((a) => a.type === 'updateStatus')!.object as StatefulSet).status!;
    const r = planStatefulSet(o, NOW);
    expect(podActions(r)).toEqual(['delete Pod web-1']);
    expect(conditionOf(r)).toBeUndefined();
    expect(eventsOf(r)).toContain(`FleetRolloutAdmitted: FleetRollout ${ROLLOUT} admits the template's revision ${H2}`);
  });

  it('a template moved on from the frozen admitted revision: nothing rolls toward it', () => {
    // Admitted and frozen at revision 1 while the template asks for revision 2, pods mid-way back to revision 1.
    const x = obs(H1, ['new', 'new', 'old'], { status: { currentRevision: R2, updateRevision: R2 } });
    x.statefulSet!.metadata!.annotations![PIN_FROZEN_ANNOTATION] = H1;
    const r = planStatefulSet(x, NOW);
    expect(podActions(r)).toEqual([]);
    expect(conditionOf(r)?.[0]).toMatchObject({ reason: 'FrozenByFleetRollout' });
  });
});
