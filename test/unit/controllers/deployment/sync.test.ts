import { describe, expect, it } from '@jest/globals';
import { planDeployment } from '../../../../shared/controllers/deployment/plan.js';
import { aDeployment, anRS, condition, created, deleted, NOW, observed, scaled, updated, written } from './builders.js';

const ANN_DESIRED = 'deployment.kubernetes.io/desired-replicas';
const ANN_MAX = 'deployment.kubernetes.io/max-replicas';

describe('scaling events: proportional scaling across active ReplicaSets (sorted by ReplicaSetsBySizeNewer/Older)', () => {
  it.each([
    {
      name: 'scale up 10 → 20 mid-rollout: shares by size, old (larger) first',
      replicas: 20,
      rss: [
        anRS('new', { image: 'app:2', replicas: 5, available: 3, revision: 2, createdAt: 10, desired: 10, max: 13 }),
        anRS('old', { replicas: 8, available: 8, revision: 1, desired: 10, max: 13 }),
      ],
      want: { old: 15, new: 10 },
    },
    {
      name: 'scale down 10 → 5 mid-rollout',
      replicas: 5,
      rss: [
        anRS('new', { image: 'app:2', replicas: 5, available: 3, revision: 2, createdAt: 10, desired: 10, max: 13 }),
        anRS('old', { replicas: 8, available: 8, revision: 1, desired: 10, max: 13 }),
      ],
      want: { old: 4, new: 3 },
    },
    {
      name: 'equal sizes: leftover goes to the first (newest on scale-up); the others only get annotations',
      replicas: 4,
      rss: [
        anRS('a', { image: 'app:0', replicas: 1, revision: 1, createdAt: 0, desired: 3, max: 4 }),
        anRS('b', { replicas: 1, revision: 2, createdAt: 10, desired: 3, max: 4 }),
        anRS('c', { image: 'app:2', replicas: 1, revision: 3, createdAt: 20, desired: 3, max: 4 }),
      ],
      want: { c: 3, a: 1, b: 1 },
    },
    {
      name: 'one active ReplicaSet takes the new size directly',
      replicas: 6,
      rss: [
        anRS('new', { image: 'app:2', replicas: 3, available: 3, revision: 2, desired: 3, max: 4 }),
        anRS('old', { replicas: 0, revision: 1, desired: 3, max: 4 }),
      ],
      want: { new: 6 },
    },
    {
      name: 'scale to 0: every active ReplicaSet to 0',
      replicas: 0,
      rss: [
        anRS('new', { image: 'app:2', replicas: 2, revision: 2, createdAt: 10, desired: 3, max: 4 }),
        anRS('old', { replicas: 2, revision: 1, desired: 3, max: 4 }),
      ],
      want: { new: 0, old: 0 },
    },
  ])('$name', ({ replicas, rss, want }) => {
    const r = planDeployment(observed(aDeployment({ replicas, image: 'app:2' }), rss), NOW);
    expect(scaled(r)).toEqual(want);
    expect(created(r)).toEqual([]);
  });

  it('scaled ReplicaSets carry desired-replicas and max-replicas (replicas + surge) and their resourceVersion', () => {
    const rss = [
      anRS('new', { image: 'app:2', replicas: 5, revision: 2, createdAt: 10, desired: 10, max: 13 }),
      anRS('old', { replicas: 8, available: 8, revision: 1, desired: 10, max: 13 }),
    ];
    const r = planDeployment(observed(aDeployment({ replicas: 20, image: 'app:2' }), rss), NOW);
    const old = updated(r, 'old');
    expect(old?.metadata.annotations).toMatchObject({ [ANN_DESIRED]: '20', [ANN_MAX]: '25' });
    expect(old?.metadata.resourceVersion).toBe('rv-old');
  });
});

describe('paused', () => {
  const oldRS = anRS('old', { replicas: 3, available: 3, revision: 1, desired: 3, max: 4 });

  it('does not roll out a new template, and marks Progressing Unknown DeploymentPaused', () => {
    const r = planDeployment(observed(aDeployment({ image: 'app:2', paused: true }), [oldRS]), NOW);
    expect(created(r)).toEqual([]);
    expect(scaled(r)).toEqual({});
    expect(condition(written(r), 'Progressing')).toMatchObject({ status: 'Unknown', reason: 'DeploymentPaused' });
  });

  it('still scales', () => {
    const r = planDeployment(observed(aDeployment({ replicas: 5, image: 'app:2', paused: true }), [oldRS]), NOW);
    expect(scaled(r)).toEqual({ old: 5 });
  });

  it('resuming marks DeploymentResumed', () => {
    const paused = {
      type: 'Progressing',
      status: 'Unknown' as const,
      reason: 'DeploymentPaused',
      message: 'Deployment is paused',
      lastUpdateTime: '2025-12-01T00:00:00Z',
      lastTransitionTime: '2025-12-01T00:00:00Z',
    };
    const d = aDeployment({
      status: { observedGeneration: 1, replicas: 3, updatedReplicas: 3, conditions: [paused] },
    });
    const r = planDeployment(observed(d, [anRS('cur', { replicas: 3, revision: 1, desired: 3, max: 4 })]), NOW);
    expect(condition(written(r), 'Progressing')).toMatchObject({
      status: 'Unknown',
      reason: 'DeploymentResumed',
      lastTransitionTime: '2025-12-01T00:00:00Z',
      lastUpdateTime: '2026-01-01T00:00:00Z',
    });
  });

  it('no paused condition without a progress deadline', () => {
    const d = aDeployment({ paused: true, progressDeadlineSeconds: null });
    const r = planDeployment(observed(d, [oldRS]), NOW);
    expect(condition(written(r), 'Progressing')).toBeUndefined();
  });
});

describe('revisionHistoryLimit cleanup', () => {
  const complete = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3, readyReplicas: 3 };
  const cur = anRS('cur', { replicas: 3, available: 3, revision: 4, createdAt: 30, desired: 3, max: 4 });
  it.each([
    {
      name: 'deletes old ReplicaSets beyond the limit, oldest revision first',
      limit: 1,
      old: [
        anRS('r2', { image: 'app:b', replicas: 0, revision: 2, createdAt: 10 }),
        anRS('r1', { image: 'app:a', replicas: 0, revision: 1, createdAt: 20 }),
        anRS('r3', { image: 'app:c', replicas: 0, revision: 3, createdAt: 0 }),
      ],
      want: ['r1', 'r2'],
    },
    {
      name: 'skips ReplicaSets that still have replicas (spec or status) or an unobserved generation',
      limit: 0,
      old: [
        anRS('busy', { image: 'app:a', replicas: 0, actual: 1, revision: 1 }),
        anRS('spec', { image: 'app:b', replicas: 0, revision: 2, createdAt: 5 }),
        anRS('gen', { image: 'app:c', replicas: 0, revision: 3, generation: 2, observedGeneration: 1 }),
      ],
      want: ['spec'],
    },
    {
      name: 'within the limit: nothing',
      limit: 10,
      old: [anRS('r1', { image: 'app:a', replicas: 0, revision: 1 })],
      want: [],
    },
  ])('$name', ({ limit, old, want }) => {
    const d = aDeployment({
      revisionHistoryLimit: limit,
      status: complete,
      annotations: { 'deployment.kubernetes.io/revision': '4' },
    });
    expect(deleted(planDeployment(observed(d, [cur, ...old]), NOW)).sort()).toEqual(want);
  });

  it('never while the rollout is incomplete', () => {
    const d = aDeployment({ revisionHistoryLimit: 0 });
    const r = planDeployment(observed(d, [cur, anRS('r1', { image: 'app:a', replicas: 0, revision: 1 })]), NOW);
    expect(deleted(r)).toEqual([]);
  });
});
