import { describe, expect, it } from '@jest/globals';
import type { KubernetesObject, Pod, ReplicaSet } from '../../../../shared/kube/api/objects.js';
import type { ApiObject } from '../../../../shared/kube/meta/object.js';
import { observeReplicaSet } from '../../../../shared/controllers/replicaset/observe.js';
import type { ClusterView, ListOptions } from '../../../../shared/kube/view.js';
import { NS, RS_NAME, aPod, aReplicaSet, readyPods } from './builders.js';

/** An in-memory view that records the requests a live view would make. */
class RecordingView implements ClusterView {
  readonly cluster = 'c';
  readonly requests: string[] = [];
  constructor(private readonly objects: KubernetesObject[]) {}
  async get<T extends ApiObject>(
    kind: string,
    namespace: string,
    name: string,
    o?: { fresh?: boolean },
  ): Promise<T | null> {
    this.requests.push(`GET ${kind}${o?.fresh ? ' fresh' : ''}`);
    const hit = this.objects.find(
      (o) => o.kind === kind && o.metadata?.namespace === namespace && o.metadata?.name === name,
    );
    return Promise.resolve((hit as T | undefined) ?? null);
  }
  async list<T extends ApiObject>(kind: string, namespace: string | undefined, o?: ListOptions): Promise<T[]> {
    this.requests.push(`LIST ${kind}${o?.labelSelector ? `?${o.labelSelector}` : ''}`);
    return Promise.resolve(this.objects.filter((x) => x.kind === kind && x.metadata?.namespace === namespace) as T[]);
  }
}

const key = { cluster: 'c', kind: 'ReplicaSet', namespace: NS, name: RS_NAME };

describe('observeReplicaSet', () => {
  it('gone: one GET and nothing else', async () => {
    const view = new RecordingView([]);
    expect(await observeReplicaSet(view, key)).toEqual({ replicaSet: null, pods: [], relatedPods: [] });
    expect(view.requests).toEqual(['GET ReplicaSet']);
  });

  it('steady state: GET the ReplicaSet, LIST the namespace pods; keeps owned pods and orphans only', async () => {
    const mine = readyPods(2);
    const orphanElsewhere = aPod('orphan-other-labels', { owner: 'none', labels: { app: 'api' } });
    const foreign = aPod('foreign', { owner: 'uid-other' });
    const view = new RecordingView([aReplicaSet({ replicas: 2 }), ...mine, orphanElsewhere, foreign]);
    const o = await observeReplicaSet(view, key);
    expect(o.pods.map((p) => p.metadata?.name)).toEqual(['p-0', 'p-1', 'orphan-other-labels']);
    expect(o.adoptionRecheck).toBeUndefined();
    expect(view.requests).toEqual(['GET ReplicaSet', 'LIST Pod']);
  });

  it('an orphan to adopt: GET the ReplicaSet again after the list (RecheckDeletionTimestamp)', async () => {
    const rs = aReplicaSet({ replicas: 2 });
    const view = new RecordingView([rs, aPod('orphan', { owner: 'none' })]);
    const o = await observeReplicaSet(view, key);
    expect(o.adoptionRecheck).toEqual(rs);
    expect(view.requests).toEqual(['GET ReplicaSet', 'LIST Pod', 'GET ReplicaSet fresh']);
  });

  it('a controlled ReplicaSet that may scale down: LIST ReplicaSets and the namespace pods for the related pods', async () => {
    const rs = aReplicaSet({ replicas: 1, controlledBy: 'uid-dep' });
    const sibling: ReplicaSet = {
      ...aReplicaSet({ controlledBy: 'uid-dep' }),
      metadata: { ...aReplicaSet({ controlledBy: 'uid-dep' }).metadata, name: 'web-old', uid: 'uid-old' },
      spec: { ...aReplicaSet().spec!, selector: { matchLabels: { app: 'web-old' } } },
    };
    const stranger: ReplicaSet = {
      ...sibling,
      metadata: { ...sibling.metadata, name: 'stranger', uid: 'uid-s', ownerReferences: [] },
      spec: { ...sibling.spec!, selector: { matchLabels: { app: 'stranger' } } },
    };
    const old: Pod = aPod('old-0', { owner: 'uid-old', labels: { app: 'web-old' } });
    const strangers: Pod = aPod('s-0', { owner: 'uid-s', labels: { app: 'stranger' } });
    const view = new RecordingView([rs, sibling, stranger, ...readyPods(2), old, strangers]);
    const o = await observeReplicaSet(view, key);
    expect(o.relatedPods.map((p) => p.metadata?.name)).toEqual(['p-0', 'p-1', 'old-0']);
    expect(view.requests).toEqual(['GET ReplicaSet', 'LIST Pod', 'LIST ReplicaSet', 'LIST Pod']);
  });

  it('a ReplicaSet without a controller never lists ReplicaSets (no related pods upstream either)', async () => {
    const view = new RecordingView([aReplicaSet({ replicas: 1 }), ...readyPods(3)]);
    expect((await observeReplicaSet(view, key)).relatedPods).toEqual([]);
    expect(view.requests).toEqual(['GET ReplicaSet', 'LIST Pod']);
  });
});
