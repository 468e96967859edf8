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
  PIN_FROZEN_ANNOTATION,
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

describe('fleet rollout pin: freeze (the frozen annotation names the admitted revision)', () => {
  const frozenPin = (admitted: string, frozen: string): Record<string, string> => ({
    ...pin(admitted),
    [PIN_FROZEN_ANNOTATION]: frozen,
  });
  // 10 replicas mid-rollout from a1 (app:1) to b2 (app:2): b2 surged to 5, 3 of them available (some clusters'
  // nodes pull the image, others do not); a1 at 8. The rolling update would scale a1 down next.
  const midRollout = (desired = 10, max = 13) => [
    anRS('a1', { image: 'app:1', replicas: 8, available: 8, revision: 1, desired, max }),
    anRS('b2', { image: 'app:2', replicas: 5, available: 3, revision: 2, desired, max }),
  ];
  const frozenAt = (frozen: string, o: DeploymentOptions = {}): Deployment =>
    aDeployment({ image: 'app:2', replicas: 10, ...o, annotations: frozenPin('b2', frozen) });
  const message = `FleetRollout ${ROLLOUT} froze the rollout of Deployment "web" to revision b2 where it stands: nothing progresses and nothing is rolled back`;

  it('neither ReplicaSet changes across passes; Progressing Unknown and the FleetRollout condition say why, once', () => {
    // Unfrozen, the same state rolls on: a1 is scaled down.
    expect(scaled(planDeployment(observed(pinned('b2', { replicas: 10 }), midRollout()), NOW))).toEqual({ a1: 5 });
    const d = frozenAt('b2');
    const r = planDeployment(observed(d, midRollout()), NOW);
    expect(scaled(r)).toEqual({});
    expect(created(r)).toEqual([]);
    expect(deploymentUpdates(r)).toEqual([]);
    const w = written(r);
    expect(w?.spec).toEqual(d.spec); // never paused in the spec
    expect(w?.status).toMatchObject({ replicas: 13, updatedReplicas: 5, availableReplicas: 11 });
    expect(condition(w, PIN_CONDITION_TYPE)).toMatchObject({ status: 'False', reason: PIN_REASON.Frozen, message });
    expect(condition(w, 'Progressing')).toMatchObject({ status: 'Unknown', reason: PIN_REASON.Frozen, message });
    expect(events(r)).toEqual([expect.objectContaining({ type: 'Normal', reason: PIN_REASON.Frozen, message })]);

    // Passes later (the deadline long gone): still nothing scaled, nothing written, no second event.
    const later = new Date(NOW.getTime() + 3_600_000);
    const again = planDeployment(observed(after(d, r), midRollout()), later);
    expect(again.actions).toEqual([]);
  });

  it('keeps kubectl rollout status waiting: updatedReplicas below replicas, no ProgressDeadlineExceeded', () => {
    const d = frozenAt('b2');
    const r1 = planDeployment(observed(d, midRollout()), NOW);
    const w = written(planDeployment(observed(after(d, r1), midRollout()), new Date(NOW.getTime() + 3_600_000)));
    const status = w?.status ?? after(d, r1).status;
    expect(status?.updatedReplicas ?? 0).toBeLessThan(d.spec.replicas ?? 0);
    expect(status?.conditions?.find((c) => c.type === 'Progressing')?.reason).not.toBe('ProgressDeadlineExceeded');
  });

  it('scaling spec.replicas still scales both ReplicaSets in proportion', () => {
    const r = planDeployment(observed(frozenAt('b2', { replicas: 20 }), midRollout()), NOW);
    // allowed 20 + 5 = 25, 12 to add: in proportion to the max-replicas annotation (13).
    expect(scaled(r)).toEqual({ a1: 15, b2: 10 });
    expect(created(r)).toEqual([]);
    expect(condition(written(r), PIN_CONDITION_TYPE)?.reason).toBe(PIN_REASON.Frozen);
    // Scaled, still frozen: the next pass makes no rollout progress.
    const next = [
      anRS('a1', { image: 'app:1', replicas: 15, available: 15, revision: 1, desired: 20, max: 25 }),
      anRS('b2', { image: 'app:2', replicas: 10, available: 3, revision: 2, desired: 20, max: 25 }),
    ];
    expect(scaled(planDeployment(observed(frozenAt('b2', { replicas: 20 }), next), NOW))).toEqual({});
    expect(scaled(planDeployment(observed(pinned('b2', { replicas: 20 }), next), NOW))).not.toEqual({});
  });

  it('a freeze naming another revision does nothing', () => {
    expect(scaled(planDeployment(observed(frozenAt('b2'), midRollout()), NOW))).toEqual({});
    const withOld = planDeployment(observed(frozenAt('a1'), midRollout()), NOW);
    expect(scaled(withOld)).toEqual({ a1: 5 });
    expect(condition(written(withOld), PIN_CONDITION_TYPE)).toBeUndefined();
  });

  it('a malformed frozen value is a hold: nothing is scaled', () => {
    const r = planDeployment(observed(frozenAt('B2!'), midRollout()), NOW);
    expect(r.actions.filter((a) => a.type !== 'updateStatus' && a.type !== 'event')).toEqual([]);
    const c = condition(written(r), PIN_CONDITION_TYPE);
    expect(c).toMatchObject({ reason: PIN_REASON.Unknown });
    expect(c?.message).toContain(PIN_FROZEN_ANNOTATION);
  });

  it('unfreezing resumes the rollout: Progressing DeploymentResumed, the FleetRollout condition removed', () => {
    const d = frozenAt('b2');
    const frozenStatus = written(planDeployment(observed(d, midRollout()), NOW))?.status as DeploymentStatus;
    const later = new Date(NOW.getTime() + 3_600_000);
    const resumed = pinned('b2', { replicas: 10, status: frozenStatus });
    const r = planDeployment(observed(resumed, midRollout()), later);
    expect(scaled(r)).toEqual({ a1: 5 });
    const w = written(r);
    expect(condition(w, PIN_CONDITION_TYPE)).toBeUndefined();
    // The deadline counts from the resumption, not from before the freeze.
    expect(condition(w, 'Progressing')).toMatchObject({
      status: 'Unknown',
      reason: 'DeploymentResumed',
      lastUpdateTime: later.toISOString().replace('.000Z', 'Z'),
    });
    expect(events(r).filter((e) => e.reason === PIN_REASON.Frozen)).toEqual([]);
  });

  it('a template moved on from the frozen admitted revision: still nothing progresses toward it', () => {
    const d = aDeployment({ image: 'app:3', replicas: 10, annotations: frozenPin('b2', 'b2') });
    const r = planDeployment(observed(d, midRollout()), NOW);
    expect(scaled(r)).toEqual({});
    expect(created(r)).toEqual([]);
    expect(condition(written(r), PIN_CONDITION_TYPE)?.reason).toBe(PIN_REASON.Frozen);
  });

  it('a Deployment the user paused says DeploymentPaused, and stays frozen', () => {
    const r = planDeployment(observed(frozenAt('b2', { paused: true }), midRollout()), NOW);
    expect(scaled(r)).toEqual({});
    expect(condition(written(r), 'Progressing')?.reason).toBe('DeploymentPaused');
    expect(condition(written(r), PIN_CONDITION_TYPE)?.reason).toBe(PIN_REASON.Frozen);
  });
});
