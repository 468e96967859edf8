import { describe, expect, it } from '@jest/globals';
import type { Condition, DeploymentStatus } from '../../../../shared/controllers/deployment/types.js';
import { planDeployment } from '../../../../shared/controllers/deployment/plan.js';
import { aDeployment, anRS, condition, NOW, observed, scaled, written } from './builders.js';

const REV = { 'deployment.kubernetes.io/revision': '1' };
const at = (secondsBeforeNow: number) =>
  new Date(NOW.getTime() - secondsBeforeNow * 1000).toISOString().replace('.000Z', 'Z');
const progressing = (reason: string, secondsAgo: number, status: Condition['status'] = 'True'): Condition => ({
  type: 'Progressing',
  status,
  reason,
  message: 'm',
  lastUpdateTime: at(secondsAgo),
  lastTransitionTime: at(secondsAgo),
});
const available: Condition = {
  type: 'Available',
  status: 'True',
  reason: 'MinimumReplicasAvailable',
  message: 'Deployment has minimum availability.',
  lastUpdateTime: at(3600),
  lastTransitionTime: at(3600),
};
const counts = (n: { replicas: number; updated: number; available: number }): DeploymentStatus => ({
  observedGeneration: 1,
  replicas: n.replicas,
  updatedReplicas: n.updated,
  readyReplicas: n.available,
  availableReplicas: n.available,
  unavailableReplicas: Math.max(n.replicas - n.available, 0),
  terminatingReplicas: 0,
});

describe('conditions', () => {
  it.each([
    {
      name: 'NewReplicaSetCreated when the new ReplicaSet is created',
      d: aDeployment({ image: 'app:2', annotations: REV, status: counts({ replicas: 3, updated: 3, available: 3 }) }),
      rss: [anRS('old', { replicas: 3, available: 3, revision: 1, desired: 3, max: 4 })],
      want: { Progressing: { status: 'True', reason: 'NewReplicaSetCreated' }, Available: { status: 'True' } },
    },
    {
      name: 'FoundNewReplicaSet for an existing new ReplicaSet when no Progressing condition is recorded',
      d: aDeployment({
        annotations: REV,
        status: { ...counts({ replicas: 3, updated: 3, available: 1 }), conditions: [available] },
      }),
      rss: [anRS('cur', { replicas: 3, available: 1, revision: 1, desired: 3, max: 4 })],
      want: {
        Progressing: { status: 'True', reason: 'FoundNewReplicaSet' },
        Available: { status: 'False', reason: 'MinimumReplicasUnavailable' },
      },
    },
    {
      name: 'ReplicaSetUpdated while replicas progress (lastTransitionTime kept while True)',
      d: aDeployment({
        annotations: REV,
        status: {
          ...counts({ replicas: 3, updated: 3, available: 1 }),
          conditions: [available, progressing('NewReplicaSetCreated', 60)],
        },
      }),
      rss: [anRS('cur', { replicas: 3, available: 2, revision: 1, desired: 3, max: 4 })],
      want: {
        Progressing: { status: 'True', reason: 'ReplicaSetUpdated', lastTransitionTime: at(60), lastUpdateTime: at(0) },
      },
    },
    {
      name: 'NewReplicaSetAvailable when complete',
      d: aDeployment({
        annotations: REV,
        status: {
          ...counts({ replicas: 3, updated: 3, available: 2 }),
          conditions: [available, progressing('ReplicaSetUpdated', 60)],
        },
      }),
      rss: [anRS('cur', { replicas: 3, available: 3, revision: 1, desired: 3, max: 4 })],
      want: {
        Progressing: { status: 'True', reason: 'NewReplicaSetAvailable' },
        Available: { status: 'True', reason: 'MinimumReplicasAvailable' },
      },
    },
    {
      name: 'ProgressDeadlineExceeded once no progress for progressDeadlineSeconds',
      d: aDeployment({
        annotations: REV,
        status: {
          ...counts({ replicas: 3, updated: 3, available: 1 }),
          conditions: [available, progressing('ReplicaSetUpdated', 601)],
        },
      }),
      rss: [anRS('cur', { replicas: 3, available: 1, revision: 1, desired: 3, max: 4 })],
      want: { Progressing: { status: 'False', reason: 'ProgressDeadlineExceeded', lastTransitionTime: at(0) } },
    },
    {
      name: 'ReplicaFailure copied from the new ReplicaSet',
      d: aDeployment({ annotations: REV, status: counts({ replicas: 3, updated: 3, available: 3 }) }),
      rss: [
        anRS('cur', {
          replicas: 3,
          available: 3,
          revision: 1,
          desired: 3,
          max: 4,
          conditions: [
            {
              type: 'ReplicaFailure',
              status: 'True',
              reason: 'FailedCreate',
              message: 'quota',
              lastTransitionTime: at(5),
            },
          ],
        }),
      ],
      want: { ReplicaFailure: { status: 'True', reason: 'FailedCreate', message: 'quota', lastUpdateTime: at(5) } },
    },
  ])('$name', ({ d, rss, want }) => {
    const w = written(planDeployment(observed(d, rss), NOW));
    for (const [type, c] of Object.entries(want)) expect(condition(w, type)).toMatchObject(c);
  });

  it('paused: the deadline is not evaluated', () => {
    const d = aDeployment({
      paused: true,
      maxUnavailable: 1,
      annotations: REV,
      status: {
        ...counts({ replicas: 3, updated: 3, available: 2 }),
        conditions: [available, progressing('DeploymentPaused', 9999, 'Unknown')],
      },
    });
    const r = planDeployment(
      observed(d, [anRS('cur', { replicas: 3, available: 2, revision: 1, desired: 3, max: 4 })]),
      NOW,
    );
    expect(written(r)).toBeUndefined();
    expect(r.requeueAfter).toBeUndefined();
  });
});

describe('status writes and requeue at the progress deadline', () => {
  const steady = aDeployment({
    annotations: REV,
    status: {
      ...counts({ replicas: 3, updated: 3, available: 3 }),
      conditions: [available, progressing('NewReplicaSetAvailable', 60)],
    },
  });
  const steadyRS = anRS('cur', { replicas: 3, available: 3, revision: 1, desired: 3, max: 4 });

  it('status unchanged → no write, no requeue once complete', () => {
    expect(planDeployment(observed(steady, [steadyRS]), NOW)).toEqual({ actions: [] });
  });

  it('status write carries resourceVersion, observedGeneration and counts', () => {
    const d = aDeployment({ annotations: REV, generation: 4, status: steady.status });
    const w = written(planDeployment(observed(d, [steadyRS]), NOW));
    expect(w?.metadata.resourceVersion).toBe('100');
    expect(w?.status).toMatchObject({ observedGeneration: 4, replicas: 3, updatedReplicas: 3, availableReplicas: 3 });
  });

  it.each([
    { name: '100 s into a 600 s deadline → requeue at deadline + 1 s', secondsAgo: 100, want: 501_000 },
    { name: 'half a second left → just past the deadline', secondsAgo: 599.5, want: 501 },
  ])('stuck rollout, unchanged status: $name', ({ secondsAgo, want }) => {
    const c = {
      ...progressing('ReplicaSetUpdated', 0),
      lastUpdateTime: new Date(NOW.getTime() - secondsAgo * 1000).toISOString(),
    };
    const d = aDeployment({
      annotations: REV,
      maxUnavailable: 1,
      status: { ...counts({ replicas: 3, updated: 3, available: 2 }), conditions: [available, c] },
    });
    const r = planDeployment(
      observed(d, [anRS('cur', { replicas: 3, available: 2, revision: 1, desired: 3, max: 4 })]),
      NOW,
    );
    expect(r).toEqual({ actions: [], requeueAfter: want });
  });

  it('without a progress deadline there is no Progressing condition and no requeue', () => {
    const d = aDeployment({
      annotations: REV,
      progressDeadlineSeconds: null,
      status: counts({ replicas: 3, updated: 3, available: 1 }),
    });
    const r = planDeployment(
      observed(d, [anRS('cur', { replicas: 3, available: 1, revision: 1, desired: 3, max: 4 })]),
      NOW,
    );
    expect(condition(written(r), 'Progressing')).toBeUndefined();
    expect(r.requeueAfter).toBeUndefined();
  });

  it('deleting: status only, no scaling', () => {
    const d = aDeployment({ replicas: 5, deleting: true, annotations: REV });
    const r = planDeployment(observed(d, [steadyRS]), NOW);
    expect(scaled(r)).toEqual({});
    expect(written(r)?.status?.replicas).toBe(3);
  });

  it('a gone Deployment plans nothing', () => {
    expect(planDeployment(observed(null, [steadyRS]), NOW)).toEqual({ actions: [] });
  });

  it('empty selector: only observedGeneration (and the SelectingAll warning)', () => {
    const d = aDeployment({ generation: 2 });
    d.spec.selector = {};
    const r = planDeployment(observed(d, [steadyRS]), NOW);
    expect(r.actions.map((a) => a.type)).toEqual(['event', 'updateStatus']);
    expect(written(r)?.status).toEqual({ observedGeneration: 2 });
  });
});
