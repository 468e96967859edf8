import { describe, expect, it } from '@jest/globals';
import type { PlanResult } from '../../../../shared/controllers/controller.js';
import { computeHash } from '../../../../shared/controllers/common/pod-template-hash.js';
import { needsPods } from '../../../../shared/controllers/deployment/observe.js';
import { planDeployment } from '../../../../shared/controllers/deployment/plan.js';
import type { Deployment, DeploymentStatus } from '../../../../shared/controllers/deployment/types.js';
import type { EventSpec } from '../../../../shared/kube/events/types.js';
import {
  PIN_ADMITTED_ANNOTATION,
  PIN_CONDITION_TYPE,
  PIN_REASON,
  PIN_ROLLOUT_ANNOTATION,
} from '../../../../shared/rollouts/pin.js';
import {
  aDeployment,
  anRS,
  condition,
  created,
  NOW,
  observed,
  scaled,
  template,
  updated,
  written,
  type DeploymentOptions,
} from './builders.js';

const ROLLOUT = 'fleetq-system/web';
const pin = (admitted: string): Record<string, string> => ({
  [PIN_ROLLOUT_ANNOTATION]: ROLLOUT,
  [PIN_ADMITTED_ANNOTATION]: admitted,
});
const pinned = (admitted: string, o: DeploymentOptions = {}): Deployment =>
  aDeployment({ image: 'app:2', ...o, annotations: { ...pin(admitted), ...o.annotations } });
const HASH_2 = computeHash(template('app:2'));

// Revision 1 (app:1, ReplicaSet a1) runs; the template asks for app:2.
const running = () => [anRS('a1', { image: 'app:1', replicas: 3, available: 3, revision: 1 })];
// Revision 2 (app:2, ReplicaSet b2) was rolled out; a1 is scaled down.
const rolledOut = () => [
  anRS('a1', { image: 'app:1', replicas: 0, available: 0, revision: 1 }),
  anRS('b2', { image: 'app:2', replicas: 3, available: 3, revision: 2 }),
];

const events = (r: PlanResult): EventSpec[] => r.actions.flatMap((a) => (a.type === 'event' ? [a.event] : []));
const deploymentUpdates = (r: PlanResult) =>
  r.actions.filter((a) => a.type === 'update' && a.object.kind === 'Deployment');
/** The status a pass leaves, as the next pass observes it. */
const after = (d: Deployment, r: PlanResult): Deployment => {
  const w = written(r);
  return w ? { ...d, metadata: w.metadata, status: w.status } : d;
};

describe('fleet rollout pin: hold (admitted is the running revision, the template asks for another)', () => {
  it('creates no ReplicaSet for the template, scales nothing, and says WaitingForFleetRollout once', () => {
    const d = pinned('a1');
    const r = planDeployment(observed(d, running()), NOW);
    expect(created(r)).toEqual([]);
    expect(scaled(r)).toEqual({});
    expect(deploymentUpdates(r)).toEqual([]);
    const w = written(r);
    expect(w?.spec).toEqual(d.spec);
    expect(w?.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 0, availableReplicas: 3 });
    const c = condition(w, PIN_CONDITION_TYPE);
    expect(c).toMatchObject({ status: 'False', reason: PIN_REASON.Waiting });
    expect(c?.message).toBe(
      `Deployment "web" is held at revision a1 by FleetRollout ${ROLLOUT}; its template asks for revision ${HASH_2}`,
    );
    expect(events(r)).toEqual([
      expect.objectContaining({ type: 'Normal', reason: PIN_REASON.Waiting, message: c?.message }),
    ]);

    // The next pass over that status: nothing to write, no second event.
    const again = planDeployment(observed(after(d, r), running()), NOW);
    expect(again.actions).toEqual([]);
  });

  it('keeps kubectl rollout status waiting: updatedReplicas (the template revision) stays below replicas', () => {
    const w = written(planDeployment(observed(pinned('a1'), running()), NOW));
    expect(w?.status?.observedGeneration).toBeGreaterThanOrEqual(w?.metadata.generation ?? 0);
    expect(w?.status?.updatedReplicas ?? 0).toBeLessThan(w?.spec.replicas ?? 0);
  });

  it('scaling still works on the held ReplicaSet', () => {
    const r = planDeployment(observed(pinned('a1', { replicas: 5 }), running()), NOW);
    expect(created(r)).toEqual([]);
    expect(scaled(r)).toEqual({ a1: 5 });
  });

  it('a Recreate Deployment reads no pods while held (nothing old to wait for)', () => {
    expect(needsPods(pinned('a1', { strategy: 'Recreate' }), running())).toBe(false);
  });

  it('does not act on the deprecated rollback annotation while held', () => {
    const d = pinned('a1', { annotations: { 'deprecated.deployment.rollback.to': '0' } });
    const r = planDeployment(observed(d, running()), NOW);
    expect(deploymentUpdates(r)).toEqual([]);
    expect(created(r)).toEqual([]);
  });
});

describe('fleet rollout pin: admit (admitted is the template revision)', () => {
  it('is upstream: the new ReplicaSet is created as without the pin', () => {
    const withPin = planDeployment(observed(pinned(HASH_2), running()), NOW);
    const without = planDeployment(observed(aDeployment({ image: 'app:2' }), running()), NOW);
    expect(created(withPin)).toEqual(created(without));
    expect(scaled(withPin)).toEqual(scaled(without));
    expect(created(withPin)[0]?.metadata.name).toBe(`web-${HASH_2}`);
    // The pin is the Deployment's: not copied to the ReplicaSet.
    expect(created(withPin)[0]?.metadata.annotations?.[PIN_ADMITTED_ANNOTATION]).toBeUndefined();
  });

  it('removes the FleetRollout condition of the hold', () => {
    const held = pinned('a1');
    const heldStatus = written(planDeployment(observed(held, running()), NOW))?.status;
    const admitted = pinned(HASH_2, { status: heldStatus as DeploymentStatus });
    const w = written(planDeployment(observed(admitted, running()), NOW));
    expect(condition(w, PIN_CONDITION_TYPE)).toBeUndefined();
    expect(condition(w, 'Progressing')).toBeDefined();
  });
});

describe('fleet rollout pin: rollback (admitted is older than the rolled-out template revision)', () => {
  it('RollingUpdate: the admitted ReplicaSet is the new one: surged up, its revision bumped, nothing created', () => {
    const d = pinned('a1');
    const r = planDeployment(observed(d, rolledOut()), NOW);
    expect(created(r)).toEqual([]);
    expect(deploymentUpdates(r)).toEqual([]);
    expect(scaled(r)).toEqual({ a1: 1 }); // a1 surges (25% of 3 → 1)
    expect(updated(r, 'a1')?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    const w = written(r);
    expect(w?.spec).toEqual(d.spec);
    expect(w?.status?.updatedReplicas).toBe(3); // b2's pods are the template's revision
    const c = condition(w, PIN_CONDITION_TYPE);
    expect(c).toMatchObject({ status: 'False', reason: PIN_REASON.RolledBack });
    expect(c?.message).toBe(
      `FleetRollout ${ROLLOUT} rolled back Deployment "web" to revision a1; its template asks for revision b2`,
    );
    expect(events(r).map((e) => e.reason)).toEqual([PIN_REASON.RolledBack]);
  });

  it('RollingUpdate: once the admitted ReplicaSet is available, the template revision is scaled down', () => {
    const rss = [
      anRS('a1', { image: 'app:1', replicas: 1, available: 1, revision: 3, desired: 3, max: 4 }),
      anRS('b2', { image: 'app:2', replicas: 3, available: 3, revision: 2, desired: 3, max: 4 }),
    ];
    const r = planDeployment(observed(pinned('a1'), rss), NOW);
    expect(scaled(r)).toEqual({ b2: 2 });
  });

  it('Recreate: the template revision goes to 0 first', () => {
    const r = planDeployment(observed(pinned('a1', { strategy: 'Recreate' }), rolledOut()), NOW);
    expect(created(r)).toEqual([]);
    expect(scaled(r)).toMatchObject({ b2: 0 });
    expect(condition(written(r), PIN_CONDITION_TYPE)?.reason).toBe(PIN_REASON.RolledBack);
  });

  it('rolled back and settled: updatedReplicas 0, a1 at replicas, no more writes', () => {
    const rss = [
      anRS('a1', { image: 'app:1', replicas: 3, available: 3, revision: 3, desired: 3, max: 4 }),
      anRS('b2', { image: 'app:2', replicas: 0, available: 0, revision: 2, desired: 3, max: 4 }),
    ];
    const d = pinned('a1');
    const r = planDeployment(observed(d, rss), NOW);
    expect(scaled(r)).toEqual({});
    expect(written(r)?.status).toMatchObject({ replicas: 3, updatedReplicas: 0, availableReplicas: 3 });
    // The Deployment's revision follows the admitted ReplicaSet's, as after `kubectl rollout undo`.
    expect(written(r)?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    const again = planDeployment(observed(after(d, r), rss), NOW);
    expect(again.actions).toEqual([]);
  });
});

describe('fleet rollout pin: nothing admitted yet', () => {
  it('holds the newest ReplicaSet (highest revision)', () => {
    const d = pinned('', { image: 'app:3' });
    const r = planDeployment(observed(d, rolledOut()), NOW);
    expect(created(r)).toEqual([]);
    expect(scaled(r)).toEqual({});
    const c = condition(written(r), PIN_CONDITION_TYPE);
    expect(c?.reason).toBe(PIN_REASON.Waiting);
    expect(c?.message).toContain('held at revision b2');
  });

  it('with no ReplicaSet at all: creates nothing, WaitingForFleetRollout', () => {
    const r = planDeployment(observed(pinned(''), []), NOW);
    expect(created(r)).toEqual([]);
    const w = written(r);
    expect(w?.status).toMatchObject({ observedGeneration: 1, replicas: 0, updatedReplicas: 0 });
    expect(condition(w, PIN_CONDITION_TYPE)?.message).toContain('held at revision none');
  });

  it('when the newest ReplicaSet is the template revision: upstream', () => {
    const r = planDeployment(observed(pinned(''), rolledOut()), NOW);
    expect(condition(written(r), PIN_CONDITION_TYPE)).toBeUndefined();
    expect(events(r)).toEqual([]);
  });
});

describe('fleet rollout pin: unknown revision or malformed pin', () => {
  it.each([
    { name: 'no ReplicaSet carries the admitted revision', annotations: pin('zzz'), message: /admits revision zzz/ },
    {
      name: 'the rollout name is malformed',
      annotations: { [PIN_ROLLOUT_ANNOTATION]: 'not a name', [PIN_ADMITTED_ANNOTATION]: 'a1' },
      message: /cannot be read/,
    },
    { name: 'the admitted revision is malformed', annotations: pin('A1!'), message: /not a revision hash/ },
  ])('$name: creates and scales nothing, counts stay truthful', ({ annotations, message }) => {
    const d = aDeployment({ image: 'app:2', replicas: 5, annotations });
    const r = planDeployment(observed(d, rolledOut()), NOW);
    expect(r.actions.filter((a) => a.type !== 'updateStatus' && a.type !== 'event')).toEqual([]);
    const w = written(r);
    expect(w?.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3 });
    const c = condition(w, PIN_CONDITION_TYPE);
    expect(c).toMatchObject({ status: 'False', reason: PIN_REASON.Unknown });
    expect(c?.message).toMatch(message);
    expect(events(r)).toEqual([expect.objectContaining({ type: 'Warning', reason: PIN_REASON.Unknown })]);
  });
});

describe('without the pin', () => {
  it('a FleetRollout condition left from a removed pin is removed', () => {
    const heldStatus = written(planDeployment(observed(pinned('a1'), running()), NOW))?.status;
    const d = aDeployment({ image: 'app:2', status: heldStatus as DeploymentStatus });
    const r = planDeployment(observed(d, running()), NOW);
    expect(created(r)).toHaveLength(1);
    expect(condition(written(r), PIN_CONDITION_TYPE)).toBeUndefined();
  });
});
