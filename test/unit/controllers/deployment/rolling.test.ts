import { describe, expect, it } from '@jest/globals';
import { computeHash } from '../../../../shared/controllers/common/pod-template-hash.js';
import { planDeployment } from '../../../../shared/controllers/deployment/plan.js';
import { aDeployment, anRS, created, NOW, observed, scaled, template, updated } from './builders.js';

const d10 = aDeployment({ replicas: 10, image: 'app:2' }); // maxSurge 25% → 3, maxUnavailable 25% → 2
const NEW = `web-${computeHash(template('app:2'))}`;

describe('RollingUpdate steps (replicas 10, surge 3, unavailable 2)', () => {
  it('template change: creates the new ReplicaSet at surge and scales old down to keep 8 available', () => {
    const r = planDeployment(observed(d10, [anRS('old', { replicas: 10, available: 10, revision: 1 })]), NOW);
    const [rs] = created(r);
    expect(rs?.metadata.name).toBe(NEW);
    expect(rs?.spec.replicas).toBe(3);
    expect(scaled(r)).toEqual({ old: 8 });
  });

  it.each([
    {
      name: 'new ReplicaSet grows to replicas + surge − total',
      rss: [
        anRS(NEW, { image: 'app:2', replicas: 3, revision: 2 }),
        anRS('old', { replicas: 8, available: 8, revision: 1 }),
      ],
      want: { [NEW]: 5 },
    },
    {
      name: 'at the surge limit: old scaled down by the available excess',
      rss: [
        anRS(NEW, { image: 'app:2', replicas: 5, available: 3, revision: 2, desired: 10, max: 13 }),
        anRS('old', { replicas: 8, available: 8, revision: 1, desired: 10, max: 13 }),
      ],
      want: { old: 5 },
    },
    {
      name: 'unhealthy old replicas go first (cleanupUnhealthyReplicas), then available ones',
      rss: [
        anRS(NEW, { image: 'app:2', replicas: 5, available: 5, revision: 2, desired: 10, max: 13 }),
        anRS('old', { replicas: 8, available: 6, revision: 1, desired: 10, max: 13 }),
      ],
      want: { old: 3 },
    },
    {
      name: 'nothing available to give up: no scaling',
      rss: [
        anRS(NEW, { image: 'app:2', replicas: 5, available: 0, revision: 2, desired: 10, max: 13 }),
        anRS('old', { replicas: 8, available: 8, revision: 1, desired: 10, max: 13 }),
      ],
      want: {},
    },
    {
      name: 'oldest old ReplicaSet is scaled down first',
      rss: [
        anRS(NEW, { image: 'app:2', replicas: 3, available: 3, revision: 3, createdAt: 20, desired: 10, max: 13 }),
        anRS('older', { image: 'app:0', replicas: 4, available: 4, revision: 1, createdAt: 0, desired: 10, max: 13 }),
        anRS('old', { replicas: 6, available: 6, revision: 2, createdAt: 10, desired: 10, max: 13 }),
      ],
      want: { older: 0, old: 5 },
    },
    {
      name: 'new ReplicaSet above replicas is scaled down to replicas',
      rss: [anRS(NEW, { image: 'app:2', replicas: 12, available: 12, revision: 2, desired: 10, max: 13 })],
      want: { [NEW]: 10 },
    },
  ])('$name', ({ rss, want }) => {
    expect(scaled(planDeployment(observed(d10, rss), NOW))).toEqual(want);
  });

  it('minReadySeconds is copied to the new ReplicaSet', () => {
    const d = aDeployment({ replicas: 1, minReadySeconds: 7 });
    const r = planDeployment(observed(d, [anRS('cur', { replicas: 1, revision: 1, desired: 1, max: 2 })]), NOW);
    expect(updated(r, 'cur')?.spec.minReadySeconds).toBe(7);
  });
});
