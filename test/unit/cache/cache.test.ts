// The cache's pure parts and the in-process store: applyEvent over a table of events, the indexes each object
// is filed under, resourceVersion order, what a reconcile's writes record, and read-your-writes in the view.
import { describe, expect, it } from '@jest/globals';
import type { KubernetesObject } from '../../../shared/kube/api/objects.js';
import type { ApiObject } from '../../../shared/kube/meta/object.js';
import { applyEvent, type CacheEvent } from '../../../shared/cache/apply-event.js';
import { cacheEntry, index, indexNames, trimForCache } from '../../../shared/cache/cache-entry.js';
import { CachedClusterView, mergeRecords } from '../../../shared/cache/cached-cluster-view.js';
import { MemoryCacheStore } from '../../../shared/cache/memory-cache-store.js';
import { UnverifiedCacheData } from '../../../shared/cache/cache-store.js';
import { compareResourceVersions, maxResourceVersion } from '../../../shared/cache/resource-version.js';
import { WriteTracker } from '../../../shared/cache/write-tracker.js';
import type { LiveClusterView } from '../../../shared/kube/cluster-view.js';

type Pod = KubernetesObject & { spec?: { nodeName?: string } };

function pod(name: string, rv: string, o: { owner?: string; node?: string; ns?: string; uid?: string } = {}): Pod {
  return {
    metadata: {
      name,
      namespace: o.ns ?? 'ns',
      uid: o.uid ?? `uid-${name}`,
      resourceVersion: rv,
      managedFields: [{ manager: 'kubelet' }],
      ...(o.owner && {
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: o.owner, controller: true }],
      }),
    },
    ...(o.node && { spec: { nodeName: o.node } }),
  };
}

const names = (objects: ApiObject[]) => objects.map((o) => o.metadata?.name).sort();

describe('resourceVersion order', () => {
  it.each([
    { a: '9', b: '10', want: -1 },
    { a: '10', b: '10', want: 0 },
    { a: '123', b: '99', want: 1 },
    { a: 'abc', b: '10', want: undefined },
    { a: '010', b: '10', want: undefined },
    { a: undefined, b: '10', want: undefined },
  ])('compare($a, $b) = $want', ({ a, b, want }) => expect(compareResourceVersions(a, b)).toBe(want));

  it('max never lets a non-comparable value win over a comparable one', () => {
    expect(maxResourceVersion('5', '7')).toBe('7');
    expect(maxResourceVersion('5', 'x')).toBe('5');
    expect(maxResourceVersion(undefined, '3')).toBe('3');
  });
});

describe('cache entries', () => {
  it('drops managedFields and the last-applied annotation, and sets apiVersion and kind', () => {
    const o = {
      metadata: {
        name: 'a',
        managedFields: [{}],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'x' },
      },
    };
    expect(trimForCache('Pod', 'v1', o)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'a',
        annotations: { keep: 'x' },
        fleetqDroppedAnnotations: ['kubectl.kubernetes.io/last-applied-configuration'],
      },
    });
  });

  it.each([
    {
      name: 'an owned pod on a node',
      p: pod('a', '1', { owner: 'u1', node: 'n1' }),
      want: ['ns:Pod/ns', 'all:Pod', 'owner:Pod/u1', 'node:Pod/n1'],
    },
    { name: 'an orphan', p: pod('b', '1'), want: ['ns:Pod/ns', 'all:Pod', 'orphan:Pod/ns'] },
    {
      name: 'a terminating pod',
      p: { metadata: { ...pod('c', '1', { owner: 'u2' }).metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } },
      want: ['ns:Pod/ns', 'all:Pod', 'owner:Pod/u2', 'terminating:Pod/ns'],
    },
  ])('files $name under its indexes', ({ p, want }) => expect(indexNames(cacheEntry('Pod', 'v1', p))).toEqual(want));

  it('refuses an object without a name', () => {
    expect(() => cacheEntry('Pod', 'v1', { metadata: {} })).toThrow(/without metadata.name/);
  });
});

describe('applyEvent on the in-process store', () => {
  const listed = (objects: Pod[], rv: string): CacheEvent => ({
    type: 'LISTED',
    kind: 'Pod',
    objects,
    resourceVersion: rv,
  });
  const ev = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: Pod): CacheEvent => ({ type, kind: 'Pod', object });

  it.each([
    {
      name: 'a list files every object and sets the watermark',
      events: [listed([pod('a', '5', { owner: 'u1' }), pod('b', '6')], '10')],
      want: { watermark: '10', owned: ['a'], orphans: ['b'] },
    },
    {
      name: 'events before the first list leave the kind unsynced',
      events: [ev('ADDED', pod('a', '5'))],
      want: { watermark: undefined, owned: [], orphans: ['a'] },
    },
    {
      name: 'adoption moves a pod from the orphans to its owner',
      events: [listed([pod('a', '5')], '10'), ev('MODIFIED', pod('a', '11', { owner: 'u1' }))],
      want: { watermark: '11', owned: ['a'], orphans: [] },
    },
    {
      name: 'a delete removes it from every index',
      events: [listed([pod('a', '5', { owner: 'u1' })], '10'), ev('DELETED', pod('a', '12', { owner: 'u1' }))],
      want: { watermark: '12', owned: [], orphans: [] },
    },
    {
      name: 'an event older than the object held (a replayed watch after a warm list) changes nothing',
      events: [
        listed([pod('a', '20', { owner: 'u1' })], '30'),
        ev('MODIFIED', pod('a', '15')),
        ev('DELETED', pod('a', '16')),
      ],
      want: { watermark: '30', owned: ['a'], orphans: [] },
    },
    {
      name: 'a relist drops what is gone; an older one moves nothing back (a restored cluster needs reset())',
      events: [
        listed([pod('a', '5', { owner: 'u1' }), pod('b', '6', { owner: 'u1' }), pod('c', '7', { owner: 'u1' })], '50'),
        listed([pod('b', '6', { owner: 'u1' })], '60'),
        listed([pod('b', '3', { owner: 'u1' })], '4'),
      ],
      want: { watermark: '60', owned: ['b'], orphans: [] },
    },
    {
      name: 'a bookmark advances the watermark, never back',
      events: [
        listed([], '10'),
        { type: 'BOOKMARK', kind: 'Pod', resourceVersion: '40' } as CacheEvent,
        { type: 'BOOKMARK', kind: 'Pod', resourceVersion: '30' } as CacheEvent,
      ],
      want: { watermark: '40', owned: [], orphans: [] },
    },
  ])('$name', async ({ events, want }) => {
    const store = new MemoryCacheStore();
    for (const e of events) await applyEvent(store, e);
    expect(await store.watermark('Pod')).toBe(want.watermark);
    expect(names(await store.members(index.owner('Pod', 'u1')))).toEqual(want.owned);
    expect(names(await store.members(index.orphans('Pod', 'ns')))).toEqual(want.orphans);
  });

  it('keeps a kept state for its TTL, the oldest dropped first once expired', async () => {
    let now = 1_000;
    const store = new MemoryCacheStore({ now: () => now, keptStateTtlMs: 100 });
    const deleting = (name: string, rv: string): Pod => ({
      metadata: {
        name,
        namespace: 'ns',
        uid: `uid-${name}`,
        resourceVersion: rv,
        labels: { 'leaderworkerset.sigs.k8s.io/name': 'lws' },
        deletionTimestamp: '2026-01-01T00:00:00Z',
      },
    });
    await applyEvent(store, listed([deleting('a', '1'), deleting('b', '2')], '5'));
    await applyEvent(store, { type: 'DELETED', kind: 'Pod', object: deleting('a', '6') });
    now += 60;
    await applyEvent(store, { type: 'DELETED', kind: 'Pod', object: deleting('b', '7') });
    expect(await store.keptState('Pod/ns/a')).toMatchObject({ metadata: { name: 'a', resourceVersion: '6' } });
    now += 50; // a's 100 ms are up, b's are not
    expect(await store.keptState('Pod/ns/a')).toBeNull();
    expect(await store.keptState('Pod/ns/b')).toMatchObject({ metadata: { name: 'b' } });
    now += 60;
    expect(await store.keptState('Pod/ns/b')).toBeNull();
  });

  it('indexes pods by node and by namespace', async () => {
    const store = new MemoryCacheStore();
    await applyEvent(
      store,
      listed(
        [pod('a', '1', { node: 'n1' }), pod('b', '2', { node: 'n2' }), pod('c', '3', { ns: 'other', node: 'n1' })],
        '9',
      ),
    );
    expect(names(await store.members(index.node('Pod', 'n1')))).toEqual(['a', 'c']);
    expect(names(await store.members(index.namespace('Pod', 'ns')))).toEqual(['a', 'b']);
    expect(await store.get('Pod/ns/a')).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a' } });
    expect((await store.get('Pod/ns/a'))?.metadata).not.toHaveProperty('managedFields');
  });
});

describe('write records', () => {
  it('keeps the highest resourceVersion per kind and the uids deleted', () => {
    const t = new WriteTracker();
    t.noteWrite('POST', '/api/v1/namespaces/ns/pods', {}, { kind: 'Pod', metadata: { resourceVersion: '12' } });
    t.noteWrite('POST', '/api/v1/namespaces/ns/pods', {}, { kind: 'Pod', metadata: { resourceVersion: '11' } });
    t.noteWrite(
      'PUT',
      '/apis/apps/v1/namespaces/ns/replicasets/rs/status',
      {},
      { kind: 'ReplicaSet', metadata: { resourceVersion: '13' } },
    );
    t.noteWrite(
      'DELETE',
      '/api/v1/namespaces/ns/pods/p-1',
      { preconditions: { uid: 'u-p1' } },
      { kind: 'Status', status: 'Success' },
    );
    expect(t.record()).toEqual({
      resourceVersions: { Pod: '12', ReplicaSet: '13' },
      deleted: [{ kind: 'Pod', namespace: 'ns', name: 'p-1', uid: 'u-p1' }],
    });
    expect(new WriteTracker().record()).toBeNull();
  });

  it('merges two records: the later resourceVersion per kind, both delete lists', () => {
    expect(
      mergeRecords(
        {
          resourceVersions: { Pod: '9', ReplicaSet: '4' },
          deleted: [{ kind: 'Pod', namespace: 'n', name: 'a', uid: '1' }],
        },
        { resourceVersions: { Pod: '7' }, deleted: [{ kind: 'Pod', namespace: 'n', name: 'b', uid: '2' }] },
      ),
    ).toEqual({
      resourceVersions: { Pod: '9', ReplicaSet: '4' },
      deleted: [
        { kind: 'Pod', namespace: 'n', name: 'a', uid: '1' },
        { kind: 'Pod', namespace: 'n', name: 'b', uid: '2' },
      ],
    });
  });
});

describe('read-your-writes in the cached view', () => {
  /** A live view that answers from a fixed list and counts its reads. */
  function liveView(pods: Pod[]) {
    const reads: string[] = [];
    const view = {
      cluster: 'c',
      get: async () => null,
      list: async (kind: string) => {
        reads.push(`list ${kind}`);
        return pods;
      },
      listControlledOrOrphaned: async (kind: string) => {
        reads.push(`owned ${kind}`);
        return pods;
      },
      countControlled: async () => pods.length,
    } as unknown as LiveClusterView;
    return { view, reads };
  }

  async function setup() {
    const store = new MemoryCacheStore();
    await applyEvent(store, {
      type: 'LISTED',
      kind: 'Pod',
      objects: [pod('old', '5', { owner: 'u1' })],
      resourceVersion: '10',
    });
    const live = liveView([pod('old', '5', { owner: 'u1' }), pod('new', '20', { owner: 'u1' })]);
    const waits: string[] = [];
    const view = new CachedClusterView({
      store,
      live: live.view,
      cachedKinds: new Set(['Pod']),
      waitMs: 200,
      pollMs: 5,
      onWait: (e) => waits.push(e.outcome),
    });
    return { store, view, live, waits };
  }

  it("with terminating, adds the namespace's terminating objects whatever controls them, each once", async () => {
    const store = new MemoryCacheStore();
    const deleting = (p: Pod): Pod => ({ metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    await applyEvent(store, {
      type: 'LISTED',
      kind: 'Pod',
      objects: [
        pod('mine', '1', { owner: 'u1' }),
        deleting(pod('mine-going', '2', { owner: 'u1' })),
        deleting(pod('other-going', '3', { owner: 'u2' })),
        pod('other', '4', { owner: 'u2' }),
        deleting(pod('elsewhere-going', '5', { owner: 'u2', ns: 'ns2' })),
      ],
      resourceVersion: '10',
    });
    const view = new CachedClusterView({ store, live: liveView([]).view, cachedKinds: new Set(['Pod']) });
    expect(names(await view.listControlledOrOrphaned('Pod', 'ns', 'u1'))).toEqual(['mine', 'mine-going']);
    expect(names(await view.listControlledOrOrphaned('Pod', 'ns', 'u1', { terminating: true }))).toEqual([
      'mine',
      'mine-going',
      'other-going',
    ]);
  });

  it('a key without recorded writes reads the cache at once', async () => {
    const { view, live, waits } = await setup();
    expect(names(await view.forKey('k').listControlledOrOrphaned('Pod', 'ns', 'u1'))).toEqual(['old']);
    expect(live.reads).toEqual([]);
    expect(waits).toEqual([]);
  });

  it('waits until the cache has passed the key’s own create, then reads the cache', async () => {
    const { store, view, live, waits } = await setup();
    await store.recordWrites('k', { resourceVersions: { Pod: '20' }, deleted: [] });
    const read = view.forKey('k').listControlledOrOrphaned('Pod', 'ns', 'u1');
    await applyEvent(store, { type: 'ADDED', kind: 'Pod', object: pod('new', '20', { owner: 'u1' }) });
    expect(names(await read)).toEqual(['new', 'old']);
    expect(live.reads).toEqual([]);
    expect(waits).toEqual(['caught-up']);
  });

  it('waits for a deleted uid to leave the cache', async () => {
    const { store, view, waits } = await setup();
    await store.recordWrites('k', {
      resourceVersions: {},
      deleted: [{ kind: 'Pod', namespace: 'ns', name: 'old', uid: 'uid-old' }],
    });
    const read = view.forKey('k').listControlledOrOrphaned('Pod', 'ns', 'u1');
    await applyEvent(store, { type: 'DELETED', kind: 'Pod', object: pod('old', '21', { owner: 'u1' }) });
    expect(names(await read)).toEqual([]);
    expect(waits).toEqual(['caught-up']);
  });

  it('reads live when the cache does not catch up in time (counted)', async () => {
    const { store, view, live, waits } = await setup();
    await store.recordWrites('k', { resourceVersions: { Pod: '20' }, deleted: [] });
    expect(names(await view.forKey('k').listControlledOrOrphaned('Pod', 'ns', 'u1'))).toEqual(['new', 'old']);
    expect(live.reads).toEqual(['owned Pod']);
    expect(waits).toEqual(['timed-out']);
  });

  it('a run that timed out keeps the unmet record: the next run still waits for the earlier creates', async () => {
    const { store, view, waits } = await setup();
    await applyEvent(store, { type: 'LISTED', kind: 'ReplicaSet', objects: [], resourceVersion: '10' });
    await store.recordWrites('k', { resourceVersions: { Pod: '20' }, deleted: [] });
    // The Pod watch lags: this run times out, reads live, and writes only a status (ReplicaSet rv 30).
    const timedOut = view.forKey('k');
    await timedOut.listControlledOrOrphaned('Pod', 'ns', 'u1');
    await timedOut.settle({ resourceVersions: { ReplicaSet: '30' }, deleted: [] });
    expect(await store.writesOf('k')).toEqual({ resourceVersions: { Pod: '20', ReplicaSet: '30' }, deleted: [] });
    // The ReplicaSet watch has passed 30, the Pod watch not 20: the next run still waits (and times out).
    await applyEvent(store, { type: 'BOOKMARK', kind: 'ReplicaSet', resourceVersion: '31' });
    await view.forKey('k').listControlledOrOrphaned('Pod', 'ns', 'u1');
    expect(waits).toEqual(['timed-out', 'timed-out']);
  });

  it('settle replaces the record after a consistent run, and keeps the old one after a run that never read', async () => {
    const { store, view } = await setup();
    await store.recordWrites('k', { resourceVersions: { Pod: '9' }, deleted: [] });
    const neverRead = view.forKey('k');
    await neverRead.settle({ resourceVersions: { ReplicaSet: '3' }, deleted: [] });
    expect(await store.writesOf('k')).toEqual({ resourceVersions: { Pod: '9', ReplicaSet: '3' }, deleted: [] });
    const read = view.forKey('k');
    await read.list('Pod', 'ns');
    await read.settle(null);
    expect(await store.writesOf('k')).toBeNull();
  });

  it('reads live when the store cannot be read (its Redis is down), and says why', async () => {
    const { store, live } = await setup();
    const reasons: Array<string | undefined> = [];
    const failing = Object.assign(Object.create(store) as MemoryCacheStore, {
      watermark: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    });
    const view = new CachedClusterView({
      store: failing,
      live: live.view,
      cachedKinds: new Set(['Pod']),
      onRead: (e) => reasons.push(e.reason),
    });
    expect(names(await view.forKey('k').listControlledOrOrphaned('Pod', 'ns', 'u1'))).toEqual(['new', 'old']);
    expect(reasons).toEqual(['unavailable']);
  });

  it("reads live when the key's write record read back is not authentic, and settles without it", async () => {
    const { store, live } = await setup();
    const reasons: Array<string | undefined> = [];
    const forged = Object.assign(Object.create(store) as MemoryCacheStore, {
      writesOf: async () => {
        throw new UnverifiedCacheData('write record of k is not authentic or not readable: reading live');
      },
    });
    const view = new CachedClusterView({
      store: forged,
      live: live.view,
      cachedKinds: new Set(['Pod']),
      onRead: (e) => reasons.push(e.reason),
    }).forKey('k');
    expect(names(await view.listControlledOrOrphaned('Pod', 'ns', 'u1'))).toEqual(['new', 'old']);
    expect(reasons).toEqual(['rejected']);
    const mine = { resourceVersions: { Pod: '77' }, deleted: [] };
    await view.settle(mine);
    expect(await store.writesOf('k')).toEqual(mine);
  });

  it('reads live what the cache does not hold, and every query by selector', async () => {
    const { view, live } = await setup();
    await view.forKey('k').list('Node', undefined);
    await view.forKey('k').list('Pod', 'ns', { labelSelector: 'app=web' });
    expect(live.reads).toEqual(['list Node', 'list Pod']);
  });
});
