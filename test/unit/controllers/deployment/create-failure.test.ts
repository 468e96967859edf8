import { describe, expect, it } from '@jest/globals';
import { planCreateFailure } from '../../../../shared/controllers/deployment/create-failure.js';
import { aDeployment, anRS, condition, NOW, observed, written } from './builders.js';

const QUOTA = 'replicasets.apps "web-x" is forbidden: exceeded quota: rs, requested: count/replicasets.apps=1';

describe('planCreateFailure (getNewReplicaSet create error)', () => {
  const rolling = aDeployment({ replicas: 3, image: 'app:2' });
  const old = anRS('old', { replicas: 3, available: 3, revision: 1 });

  it('sets Progressing=False ReplicaSetCreateError naming the ReplicaSet it tried to create', () => {
    const r = planCreateFailure(observed(rolling, [old]), NOW, { message: QUOTA, method: 'POST' });
    expect(r.actions).toHaveLength(1);
    expect(condition(written(r), 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'ReplicaSetCreateError',
      message: expect.stringMatching(new RegExp(`^Failed to create new replica set "web-[a-z0-9]+": ${QUOTA}$`)),
    });
    expect(written(r)?.metadata.resourceVersion).toBe(rolling.metadata.resourceVersion);
  });

  it.each([
    { name: 'a failed delete', d: rolling, failure: { message: 'boom', method: 'DELETE' } },
    {
      name: 'no progress deadline',
      d: aDeployment({ image: 'app:2', progressDeadlineSeconds: null }),
      failure: { message: QUOTA, method: 'POST' },
    },
    {
      name: 'a terminating namespace',
      d: rolling,
      failure: {
        message: 'unable to create new content in namespace ns because it is being terminated',
        method: 'POST',
      },
    },
  ])('writes nothing for $name', ({ d, failure }) => {
    expect(planCreateFailure(observed(d, [old]), NOW, failure)).toEqual({ actions: [] });
  });
});
