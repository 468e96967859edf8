// The fleet rollout pin on a DaemonSet: hold, admit, roll back, '' and an unknown or malformed pin; pods made from
// the pinned ControllerRevision's template; the FleetRollout condition and its transition events.
import { describe, expect, it } from '@jest/globals';
import { planDaemonSet } from '../../../../shared/controllers/daemonset/plan.js';
import { templateHash } from '../../../../shared/controllers/daemonset/history.js';
import type { DaemonSet, Pod } from '../../../../shared/kube/api/objects.js';
import type { PlanResult } from '../../../../shared/controllers/controller.js';
import {
  PIN_ADMITTED_ANNOTATION,
  PIN_FROZEN_ANNOTATION,
  PIN_ROLLOUT_ANNOTATION,
} from '../../../../shared/rollouts/pin.js';
import { aDaemonSet, aNode, aPod, currentRevision, NOW, observed, type DsOptions } from './builders.js';

const ROLLOUT = 'fleetq-system/agent';
const v1 = aDaemonSet();
const H1 = templateHash(v1);
const H2 = templateHash(aDaemonSet({ image: 'agent:2' }));
const nodes = [aNode('n1'), aNode('n2'), aNode('n3')];

function pinned(admitted: string | undefined, o: DsOptions = {}, rollout = ROLLOUT): DaemonSet {
  const annotations: Record<string, string> = { [PIN_ROLLOUT_ANNOTATION]: rollout };
  if (admitted !== undefined) annotations[PIN_ADMITTED_ANNOTATION] = admitted;
  return aDaemonSet({ image: 'agent:2', ...o, annotations: { ...o.annotations, ...annotations } });
}
const revisions = () => [currentRevision(v1, 1), currentRevision(aDaemonSet({ image: 'agent:2' }), 2)];

/** The pinned DaemonSet at agent:2, one ready pod per node at `hashes[i]` ('' for none). */
function obs(ds: DaemonSet, hashes: string[]) {
  const pods = hashes.flatMap((h, i) =>
    h === '' ? [] : [aPod(ds, nodes[i]!.metadata!.name!, { hash: h, readyFor: 600 })],
  );
  return observed(ds, nodes, pods, revisions());
}

const writes = (r: PlanResult) =>
  r.actions.flatMap((a) => {
    if (a.type === 'create' && a.object.kind === 'Pod') {
      const pod = a.object as Pod;
      const image = pod.spec?.containers[0]?.image ?? '';
      return [
        `create ${pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0]} ${pod.metadata?.labels?.['controller-revision-hash']} ${image}`,
      ];
    }
    if (a.type === 'delete' && a.target.kind === 'Pod') return [`delete ${a.target.name.split('-')[1]}`];
    return [];
  });
const statusOf = (r: PlanResult) => {
  const status = r.actions.flatMap((a) => (a.type === 'updateStatus' ? [(a.object as DaemonSet).status] : []))[0];
  if (status === undefined) throw new Error('no status write');
  return status;
};
const eventsOf = (r: PlanResult) =>
  r.actions.flatMap((a) =>
    a.type === 'updateStatus' ? (a.events?.onSuccess ?? []).map((e) => `${e.reason}: ${e.message}`) : [],
  );

describe('DaemonSet fleet rollout pin', () => {
  it('without the pin: upstream replaces an old pod', () => {
    const ds = aDaemonSet({ image: 'agent:2' });
    expect(writes(planDaemonSet(obs(ds, [H1, H1, H1]), NOW))).toEqual(['delete n1']);
  });

  it('hold: the template is not admitted, nothing replaced, a new node gets the admitted revision', () => {
    const r = planDaemonSet(obs(pinned(H1), [H1, H1, '']), NOW);
    expect(writes(r)).toEqual([`create n3 ${H1} agent:1`]);
    const s = statusOf(r);
    expect(s.updatedNumberScheduled).toBe(0); // kubectl rollout status keeps waiting
    expect(s.conditions).toEqual([
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
    expect(writes(planDaemonSet(obs(pinned(H1), [H1, H1, H1]), NOW))).toEqual([]);
  });

  it('hold: the next pass with the condition in place records no event', () => {
    const first = planDaemonSet(obs(pinned(H1), [H1, H1, H1]), NOW);
    const ds = pinned(H1, { status: statusOf(first) });
    const r = planDaemonSet(obs(ds, [H1, H1, H1]), new Date(NOW.getTime() + 60_000));
    expect(r.actions).toEqual([]);
  });

  it('admit: upstream rolls, the condition is removed with an event', () => {
    const first = planDaemonSet(obs(pinned(H1), [H1, H1, H1]), NOW);
    const r = planDaemonSet(obs(pinned(H2, { status: statusOf(first) }), [H1, H1, H1]), NOW);
    expect(writes(r)).toEqual(['delete n1']);
    expect(statusOf(r).conditions).toBeUndefined();
    expect(eventsOf(r)).toEqual([`FleetRolloutAdmitted: FleetRollout ${ROLLOUT} admits the template's revision ${H2}`]);
  });

  it('roll back: pods of the template revision are replaced by the admitted older one', () => {
    const r = planDaemonSet(obs(pinned(H1), [H2, H2, H2]), NOW);
    expect(writes(r)).toEqual(['delete n1']);
    expect(statusOf(r).updatedNumberScheduled).toBe(0);
    expect(statusOf(r).conditions?.[0]).toMatchObject({
      reason: 'RolledBackByFleetRollout',
      message: `FleetRollout ${ROLLOUT} rolled back to revision ${H1} from the template's revision ${H2}`,
    });
    expect(writes(planDaemonSet(obs(pinned(H1), ['', H2, H2]), NOW))).toEqual([`create n1 ${H1} agent:1`]);
  });

  it('roll back complete: every pod at the admitted revision counts as updated, the condition stays', () => {
    const first = planDaemonSet(obs(pinned(H1), [H2, H2, H2]), NOW);
    const r = planDaemonSet(obs(pinned(H1, { status: statusOf(first) }), [H1, H1, H1]), NOW);
    expect(writes(r)).toEqual([]);
    expect(statusOf(r).updatedNumberScheduled).toBe(3);
    expect(statusOf(r).conditions?.[0]).toMatchObject({ reason: 'RolledBackByFleetRollout' });
    expect(eventsOf(r)).toEqual([]);
  });

  it('OnDelete: a deleted pod is recreated from the admitted revision', () => {
    const r = planDaemonSet(obs(pinned(H1, { strategy: 'OnDelete' }), [H2, H2, '']), NOW);
    expect(writes(r)).toEqual([`create n3 ${H1} agent:1`]);
  });

  it("admitted '': held at the newest revision its pods run, nothing replaced", () => {
    const r = planDaemonSet(obs(pinned(''), [H1, H2, '']), NOW);
    expect(writes(r)).toEqual([`create n3 ${H2} agent:2`]);
    expect(statusOf(r).conditions?.[0]).toMatchObject({ reason: 'WaitingForFleetRollout' });
    expect(writes(planDaemonSet(obs(pinned(''), [H1, H1, '']), NOW))).toEqual([`create n3 ${H1} agent:1`]);
  });

  it("admitted '' on a new DaemonSet: no pod is made", () => {
    const ds = pinned('');
    const r = planDaemonSet(observed(ds, nodes, [], []), NOW);
    expect(writes(r)).toEqual([]);
  });

  it.each([
    { name: 'a revision it does not have', admitted: 'abc123' },
    { name: 'a malformed admitted value', admitted: 'Not_A_Hash' },
  ])(
    '$name: nothing replaced, new nodes at the newest revision its pods run, FleetRolloutRevisionUnknown',
    ({ admitted }) => {
      const r = planDaemonSet(obs(pinned(admitted), [H1, H1, '']), NOW);
      expect(writes(r)).toEqual([`create n3 ${H1} agent:1`]);
      expect(statusOf(r).conditions?.[0]).toMatchObject({
        type: 'FleetRollout',
        status: 'False',
        reason: 'FleetRolloutRevisionUnknown',
      });
      const types = r.actions.flatMap((a) =>
        (a.type === 'event' ? [a.event] : (a.events?.onSuccess ?? []))
          .filter((e) => e.reason === 'FleetRolloutRevisionUnknown')
          .map((e) => e.type),
      );
      expect(types).toEqual(['Warning']);
    },
  );

  it('the pin removed (the rollout stopped pacing it): upstream rolls, the stale condition goes', () => {
    const held = planDaemonSet(obs(pinned(H1), [H1, H1, H1]), NOW);
    const ds = aDaemonSet({ image: 'agent:2', status: statusOf(held) });
    const r = planDaemonSet(obs(ds, [H1, H1, H1]), NOW);
    expect(writes(r)).toEqual(['delete n1']);
    expect(statusOf(r).conditions).toBeUndefined();
    expect(eventsOf(r)).toEqual([
      `FleetRolloutAdmitted: No FleetRollout paces the DaemonSet any more: the template's revision ${H2} rolls`,
    ]);
  });
});

describe('DaemonSet fleet rollout pin: freeze (the frozen annotation names the admitted revision)', () => {
  const frozen = (value: string, o: DsOptions = {}) =>
    pinned(H2, { ...o, annotations: { ...o.annotations, [PIN_FROZEN_ANNOTATION]: value } });
  const message = `FleetRollout ${ROLLOUT} froze the rollout of revision ${H2} where the DaemonSet stands: no pod is replaced`;

  it('no old pod is deleted; FleetRollout FrozenByFleetRollout, one event; the next pass writes nothing', () => {
    // Unfrozen, the same state rolls on: n2's old pod is replaced next.
    expect(writes(planDaemonSet(obs(pinned(H2), [H2, H1, H1]), NOW))).toEqual(['delete n2']);
    const ds = frozen(H2);
    const r = planDaemonSet(obs(ds, [H2, H1, H1]), NOW);
    expect(writes(r)).toEqual([]);
    const s = statusOf(r);
    expect(s.updatedNumberScheduled).toBe(1); // kubectl rollout status keeps waiting
    expect(s.conditions).toEqual([
      {
        type: 'FleetRollout',
        status: 'False',
        reason: 'FrozenByFleetRollout',
        message,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    expect(eventsOf(r)).toEqual([`FrozenByFleetRollout: ${message}`]);
    const again = planDaemonSet(obs({ ...ds, status: s }, [H2, H1, H1]), new Date(NOW.getTime() + 60_000));
    expect(writes(again)).toEqual([]);
    expect(again.actions.filter((a) => a.type === 'updateStatus')).toEqual([]);
  });

  it('with maxSurge: no pod is surged for a replacement', () => {
    const strategy = { maxUnavailable: 0, maxSurge: 1 };
    expect(writes(planDaemonSet(obs(pinned(H2, { strategy }), [H2, H1, H1]), NOW))).toEqual([
      `create n2 ${H2} agent:2`,
    ]);
    expect(writes(planDaemonSet(obs(frozen(H2, { strategy }), [H2, H1, H1]), NOW))).toEqual([]);
  });

  it('a node without a pod still gets one, at the admitted revision, as upstream makes it', () => {
    const r = planDaemonSet(obs(frozen(H2), [H2, H1, '']), NOW);
    expect(writes(r)).toEqual([`create n3 ${H2} agent:2`]);
    expect(statusOf(r).conditions?.[0]?.reason).toBe('FrozenByFleetRollout');
    // Once it runs, the old pod on n2 is still not replaced.
    expect(writes(planDaemonSet(obs(frozen(H2), [H2, H1, H2]), NOW))).toEqual([]);
  });

  it('a freeze naming another revision does nothing', () => {
    expect(writes(planDaemonSet(obs(frozen(H2), [H2, H1, H1]), NOW))).toEqual([]);
    const r = planDaemonSet(obs(frozen(H1), [H2, H1, H1]), NOW);
    expect(writes(r)).toEqual(['delete n2']);
    expect(statusOf(r).conditions ?? []).toEqual([]);
  });

  it('a malformed frozen value is a hold: nothing replaced, FleetRolloutRevisionUnknown', () => {
    const r = planDaemonSet(obs(frozen('Not_A_Hash'), [H2, H1, H1]), NOW);
    expect(writes(r)).toEqual([]);
    expect(statusOf(r).conditions?.[0]).toMatchObject({ reason: 'FleetRolloutRevisionUnknown' });
    expect(statusOf(r).conditions?.[0]?.message).toContain(PIN_FROZEN_ANNOTATION);
  });

  it('unfreezing resumes the rollout and removes the condition', () => {
    const s = statusOf(planDaemonSet(obs(frozen(H2), [H2, H1, H1]), NOW));
    const r = planDaemonSet(obs(pinned(H2, { status: s }), [H2, H1, H1]), NOW);
    expect(writes(r)).toEqual(['delete n2']);
    expect(statusOf(r).conditions ?? []).toEqual([]);
    expect(eventsOf(r)).toEqual([`FleetRolloutAdmitted: FleetRollout ${ROLLOUT} admits the template's revision ${H2}`]);
  });

  it('a template moved on from the frozen admitted revision: nothing rolls toward it', () => {
    const ds = aDaemonSet({
      image: 'agent:2',
      annotations: { [PIN_ROLLOUT_ANNOTATION]: ROLLOUT, [PIN_ADMITTED_ANNOTATION]: H1, [PIN_FROZEN_ANNOTATION]: H1 },
    });
    const r = planDaemonSet(obs(ds, [H1, H2, H2]), NOW);
    expect(writes(r)).toEqual([]);
    expect(statusOf(r).conditions?.[0]).toMatchObject({ reason: 'FrozenByFleetRollout' });
  });
});
