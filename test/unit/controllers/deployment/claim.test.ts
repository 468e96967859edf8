import { describe, expect, it } from '@jest/globals';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import { observeDeployment } from '../../../../shared/controllers/deployment/observe.js';
import { planDeployment } from '../../../../shared/controllers/deployment/plan.js';
import type { ClusterView, ListOptions } from '../../../../shared/kube/view.js';
import { aDeployment, anRS, aPod, NOW, observed, updated } from './builders.js';

describe('claiming ReplicaSets (ControllerRefManager)', () => {
  const d = aDeployment({ replicas: 3 });
  const cur = anRS('cur', { replicas: 3, available: 3, revision: 1, desired: 3, max: 4 });

  it('adopts a matching orphan: adds a controller reference, in the same update as any scaling', () => {
    const orphan = anRS('orphan', { image: 'app:0', replicas: 1, owned: false, revision: 0 });
    const r = planDeployment(observed(d, [cur, orphan]), NOW);
    const o = updated(r, 'orphan');
    expect(o?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: 'uid-web',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(o?.metadata.resourceVersion).toBe('rv-orphan');
    expect(r.actions.filter((a) => a.type === 'update' && a.object.metadata?.name === 'orphan')).toHaveLength(1);
  });

  it('adopts an orphan the pass changes nothing else of by patch (uid precondition, no resourceVersion)', () => {
    const orphan = anRS('orphan', { image: 'app:0', replicas: 0, owned: false, revision: 0 });
    const r = planDeployment(observed(d, [cur, orphan]), NOW);
    expect(updated(r, 'orphan')).toBeUndefined();
    expect(r.actions.filter((a) => a.type === 'patch')).toEqual([
      {
        type: 'patch',
        target: { kind: 'ReplicaSet', namespace: orphan.metadata.namespace, name: 'orphan' },
        patch: {
          metadata: {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: 'web',
                uid: 'uid-web',
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
            uid: orphan.metadata.uid,
          },
        },
        reason: 'AdoptedReplicaSet',
        ignore: ['NotFound'],
      },
    ]);
  });

  it('releases an owned ReplicaSet whose labels stopped matching, by patch deleting its reference', () => {
    const stray = anRS('stray', { image: 'app:0', replicas: 0, labels: { app: 'other' }, revision: 0 });
    const r = planDeployment(observed(d, [cur, stray]), NOW);
    expect(updated(r, 'stray')).toBeUndefined();
    expect(r.actions.filter((a) => a.type === 'patch')).toEqual([
      {
        type: 'patch',
        target: { kind: 'ReplicaSet', namespace: stray.metadata.namespace, name: 'stray' },
        patch: { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'uid-web' }], uid: stray.metadata.uid } },
        reason: 'ReleasedReplicaSet',
        ignore: ['NotFound', 'Invalid'],
      },
    ]);
  });

  it('ignores ReplicaSets controlled by someone else', () => {
    const theirs = anRS('theirs', { image: 'app:0', replicas: 2, owned: false });
    theirs.metadata.ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: 'other', controller: true },
    ];
    expect(updated(planDeployment(observed(d, [cur, theirs]), NOW), 'theirs')).toBeUndefined();
  });

  it('a deleting Deployment neither adopts nor releases', () => {
    const orphan = anRS('orphan', { image: 'app:0', replicas: 1, owned: false });
    const r = planDeployment(observed(aDeployment({ deleting: true }), [cur, orphan]), NOW);
    expect(r.actions.filter((a) => a.type === 'update' || a.type === 'patch')).toEqual([]);
  });
});

describe('observe: reads per reconcile', () => {
  function view(objects: Record<string, unknown[]>, calls: string[]): ClusterView {
    return {
      cluster: 'c',
      get: <T extends ApiObject>(kind: string, _ns: string, _name: string, o?: { fresh?: boolean }) => {
        calls.push(`get ${kind}${o?.fresh ? ' fresh' : ''}`);
        return Promise.resolve((objects[kind]?.[0] ?? null) as T | null);
      },
      list: <T extends ApiObject>(kind: string, _ns: string | undefined, o?: ListOptions) => {
        calls.push(`list ${kind}${o?.labelSelector ? ` ${o.labelSelector}` : ''}`);
        return Promise.resolve((objects[kind] ?? []) as T[]);
      },
    };
  }
  const key = { cluster: 'c', kind: 'Deployment', namespace: 'ns', name: 'web' };

  it.each([
    {
      name: 'RollingUpdate: the Deployment, then its ReplicaSets and the orphans (2 reads)',
      d: aDeployment(),
      rss: [anRS('old', { image: 'app:0', replicas: 0 })],
      want: ['get Deployment', 'list ReplicaSet'],
    },
    {
      name: 'Recreate with old ReplicaSets at 0: pods by selector too (3 reads)',
      d: aDeployment({ strategy: 'Recreate' }),
      rss: [anRS('old', { image: 'app:0', replicas: 0 })],
      want: ['get Deployment', 'list ReplicaSet', 'list Pod app=web'],
    },
    {
      name: 'Recreate still scaling old ReplicaSets down: no pods',
      d: aDeployment({ strategy: 'Recreate' }),
      rss: [anRS('old', { image: 'app:0', replicas: 2 })],
      want: ['get Deployment', 'list ReplicaSet'],
    },
    {
      name: 'an orphan to adopt: a fresh read of the Deployment before adopting (3 reads)',
      d: aDeployment(),
      rss: [anRS('orphan', { image: 'app:0', replicas: 1, owned: false })],
      want: ['get Deployment', 'list ReplicaSet', 'get Deployment fresh'],
    },
    {
      name: 'an orphan being deleted is not adopted: no fresh read (upstream calls canAdopt only to adopt)',
      d: aDeployment(),
      rss: [
        (() => {
          const rs = anRS('going', { image: 'app:0', replicas: 1, owned: false });
          rs.metadata.deletionTimestamp = '2025-01-01T00:00:00Z';
          return rs;
        })(),
      ],
      want: ['get Deployment', 'list ReplicaSet'],
    },
    {
      name: 'a deleted Deployment: nothing else is read (1 read)',
      d: null,
      rss: [anRS('old', { image: 'app:0', replicas: 2 })],
      want: ['get Deployment'],
    },
  ])('$name', async ({ d, rss, want }) => {
    const calls: string[] = [];
    const o = await observeDeployment(
      view({ Deployment: d === null ? [] : [d], ReplicaSet: rss, Pod: [aPod('p', 'old')] }, calls),
      key,
    );
    expect(calls).toEqual(want);
    expect(o.reads).toBe(want.length);
  });
});
