import { describe, expect, it } from '@jest/globals';
import { computeHash } from '../../../../shared/controllers/common/pod-template-hash.js';
import { planDeployment } from '../../../../shared/controllers/deployment/plan.js';
import { aDeployment, anRS, created, NOW, observed, template, updated, written } from './builders.js';

const REV = 'deployment.kubernetes.io/revision';
const HISTORY = 'deployment.kubernetes.io/revision-history';

describe('new ReplicaSet: name, labels, selector, annotations', () => {
  const d = aDeployment({
    image: 'app:2',
    annotations: { team: 'a', 'kubectl.kubernetes.io/last-applied-configuration': '{}', [REV]: '1' },
  });
  const r = planDeployment(
    observed(d, [anRS('old', { replicas: 3, available: 3, revision: 1, desired: 3, max: 4 })]),
    NOW,
  );
  const [rs] = created(r);
  const hash = computeHash(template('app:2'));

  it('is named <deployment>-<hash> and carries the hash in labels, selector and template', () => {
    expect(rs?.metadata.name).toBe(`web-${hash}`);
    expect(rs?.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs?.spec.selector).toEqual({ matchLabels: { app: 'web', 'pod-template-hash': hash } });
    expect(rs?.spec.template?.metadata?.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: 'uid-web',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('copies Deployment annotations except last-applied and revision ones; revision = max old + 1', () => {
    expect(rs?.metadata.annotations).toEqual({
      team: 'a',
      [REV]: '2',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    expect(written(r)?.metadata.annotations?.[REV]).toBe('2');
  });

  it('uses collisionCount in the hash', () => {
    const withCollision = aDeployment({ image: 'app:2', status: { collisionCount: 2 } });
    const [c] = created(planDeployment(observed(withCollision, []), NOW));
    expect(c?.metadata.name).toBe(`web-${computeHash(template('app:2'), 2)}`);
  });

  it('a name taken by a ReplicaSet with another template bumps status.collisionCount and creates nothing', () => {
    const squatter = anRS(`web-${hash}`, { image: 'other', replicas: 0, owned: false, labels: { app: 'other' } });
    const res = planDeployment(observed(d, [anRS('old', { replicas: 3, revision: 1 }), squatter]), NOW);
    expect(created(res)).toEqual([]);
    expect(written(res)?.status?.collisionCount).toBe(1);
    expect(res.requeueAfter).toBe(0);
  });

  it('truncates long Deployment names to fit 253 characters', () => {
    const long = aDeployment({ image: 'app:2' });
    long.metadata.name = 'x'.repeat(260);
    const [c] = created(planDeployment(observed(long, []), NOW));
    expect(c?.metadata.name).toBe(`${'x'.repeat(253 - 1 - hash.length)}-${hash}`);
  });
});

describe('rollback: a template equal to an old ReplicaSet reuses it', () => {
  it('raises its revision to max + 1, keeps the old one in revision-history, creates nothing', () => {
    const d = aDeployment({ image: 'app:1', annotations: { [REV]: '3' } });
    const rss = [
      anRS('v1', { image: 'app:1', replicas: 0, revision: 1, createdAt: 0, desired: 3, max: 4 }),
      anRS('v3', { image: 'app:3', replicas: 3, available: 3, revision: 3, createdAt: 20, desired: 3, max: 4 }),
    ];
    const r = planDeployment(observed(d, rss), NOW);
    expect(created(r)).toEqual([]);
    const v1 = updated(r, 'v1');
    expect(v1?.metadata.annotations).toMatchObject({ [REV]: '4', [HISTORY]: '1' });
    expect(v1?.spec.replicas).toBe(1); // and the rolling update starts: surge 1
  });

  it('appends to an existing revision-history', () => {
    const d = aDeployment({ image: 'app:1' });
    const v1 = anRS('v1', { image: 'app:1', replicas: 0, revision: 3, createdAt: 0, desired: 3, max: 4 });
    v1.metadata.annotations = { ...v1.metadata.annotations, [HISTORY]: '1' };
    const r = planDeployment(
      observed(d, [v1, anRS('v4', { replicas: 3, revision: 4, image: 'app:4', createdAt: 5 })]),
      NOW,
    );
    expect(updated(r, 'v1')?.metadata.annotations).toMatchObject({ [REV]: '5', [HISTORY]: '1,3' });
  });

  it('the Deployment takes the reused ReplicaSet revision on the next pass', () => {
    const d = aDeployment({ image: 'app:1', annotations: { [REV]: '3' } });
    const v1 = anRS('v1', { image: 'app:1', replicas: 1, revision: 4, createdAt: 0, desired: 3, max: 4 });
    const r = planDeployment(
      observed(d, [v1, anRS('v3', { image: 'app:3', replicas: 3, revision: 3, createdAt: 5 })]),
      NOW,
    );
    expect(written(r)?.metadata.annotations?.[REV]).toBe('4');
  });
});
