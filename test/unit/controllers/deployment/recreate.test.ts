import { describe, expect, it } from '@jest/globals';
import { planDeployment } from '../../../../shared/controllers/deployment/plan.js';
import { needsPods } from '../../../../shared/controllers/deployment/observe.js';
import { aDeployment, anRS, aPod, created, NOW, observed, scaled } from './builders.js';

const d = aDeployment({ replicas: 3, strategy: 'Recreate', image: 'app:2' });

describe('Recreate: old ReplicaSets to 0, wait for their pods to stop, then the new ReplicaSet', () => {
  it.each([
    {
      name: '1. scales every old ReplicaSet to 0 and creates nothing',
      rss: [
        anRS('old', { replicas: 3, available: 3, revision: 1 }),
        anRS('older', { image: 'app:0', replicas: 1, revision: 0 }),
      ],
      pods: null,
      want: { scaled: { old: 0, older: 0 }, created: 0 },
    },
    {
      name: '2. old ReplicaSet still reports replicas: waits',
      rss: [anRS('old', { replicas: 0, actual: 2, revision: 1 })],
      pods: null,
      want: { scaled: {}, created: 0 },
    },
    {
      name: '3. status says 0 but an old pod still runs: waits (pods, not just status)',
      rss: [anRS('old', { replicas: 0, revision: 1 })],
      pods: [aPod('p1', 'old', 'Running')],
      want: { scaled: {}, created: 0 },
    },
    {
      name: '3b. an old pod in Unknown phase counts as running',
      rss: [anRS('old', { replicas: 0, revision: 1 })],
      pods: [aPod('p1', 'old', 'Unknown')],
      want: { scaled: {}, created: 0 },
    },
    {
      name: '4. only finished old pods left: creates the new ReplicaSet at full size',
      rss: [anRS('old', { replicas: 0, revision: 1 })],
      pods: [aPod('p1', 'old', 'Succeeded'), aPod('p2', 'old', 'Failed')],
      want: { scaled: {}, created: 3 },
    },
  ])('$name', ({ rss, pods, want }) => {
    const r = planDeployment(observed(d, rss, pods), NOW);
    expect(scaled(r)).toEqual(want.scaled);
    expect(created(r).map((rs) => rs.spec.replicas)).toEqual(want.created === 0 ? [] : [want.created]);
  });

  it('an existing new ReplicaSet is scaled up once the old pods are gone', () => {
    const rss = [anRS('old', { replicas: 0, revision: 1 }), anRS('new', { image: 'app:2', replicas: 0, revision: 2 })];
    expect(scaled(planDeployment(observed(d, rss, []), NOW))).toEqual({ new: 3 });
  });

  it.each([
    { name: 'old ReplicaSets at 0: read pods', rss: [anRS('old', { replicas: 0, revision: 1 })], want: true },
    { name: 'old ReplicaSet still sized: no pod read', rss: [anRS('old', { replicas: 3, revision: 1 })], want: false },
    { name: 'no old ReplicaSet: no pod read', rss: [anRS('new', { image: 'app:2', replicas: 3 })], want: false },
  ])('observe reads pods only when needed: $name', ({ rss, want }) => {
    expect(needsPods(d, rss)).toBe(want);
  });
});
