// The CacheStore contract, run against both stores: the in-process one and the Redis one (real Redis at
// REDIS_URL, a prefix of its own per test). The same events through applyEvent must leave the same objects,
// indexes and watermarks in both, so live (Redis), all-in-one (memory) and replayed state cannot differ.
// Both keep time going forward (an older resourceVersion never replaces a newer one, a stale relist does not
// bring back what was deleted since, the watermark never moves back: only reset() starts over). The Redis store
// also authenticates what it reads back (a signing secret: entries, watermarks and write records carry a MAC)
// and refuses a write of a forwarder whose lease was taken over (its fence).
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import type { KubernetesObject } from '../../shared/kube/api/objects.js';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { applyEvent, type CacheEvent } from '../../shared/cache/apply-event.js';
import { cacheEntry, index } from '../../shared/cache/cache-entry.js';
import { KEPT_STATE_TTL_MS, type CacheStore } from '../../shared/cache/cache-store.js';
import { MemoryCacheStore } from '../../shared/cache/memory-cache-store.js';
import { RedisCacheStore } from '../../shared/cache/redis-cache-store.js';
import { fencedCacheStore } from '../../shared/cache/cache-fence.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import type { RedisClient } from '../../shared/queue/redis/redis-connection.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { leaseCacheFence } from '../../shared/forwarder/fenced-writes.js';
import { ForwarderLease, ForwarderLeaseLost } from '../../shared/forwarder/forwarder-lease.js';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefixes: Array<[RedisClient, string]> = [];
afterEach(async () => {
  for (const [client, p] of prefixes.splice(0)) await deleteQueueKeys(client, p);
});
// A six-node Redis Cluster of this file's own (test/helpers/redis-cluster.ts), started by the first store on it.
let redisCluster: { cluster: RedisCluster; client: RedisClient } | undefined;
async function onCluster(): Promise<RedisClient> {
  if (!redisCluster) {
    const cluster = await startRedisCluster();
    redisCluster = { cluster, client: cluster.client() };
  }
  return redisCluster.client;
}
afterAll(async () => {
  await redis.quit();
  await redisCluster?.client.quit();
  await redisCluster?.cluster.stop();
});

const stores: Array<{ name: string; shared: boolean; make: () => Promise<CacheStore> }> = [
  { name: 'memory', shared: false, make: async () => new MemoryCacheStore() },
  {
    name: 'redis',
    shared: true,
    make: async () => {
      const store = new RedisCacheStore({ redis, cluster: 'c1', prefix: `test-${randomUUID().slice(0, 8)}` });
      prefixes.push([redis, store.prefix]);
      await store.heartbeat(60_000); // a forwarder keeps it current
      return store;
    },
  },
  {
    name: 'redis-cluster',
    shared: true,
    make: async () => {
      const client = await onCluster();
      const store = new RedisCacheStore({ redis: client, cluster: 'c1', prefix: `test-${randomUUID().slice(0, 8)}` });
      prefixes.push([client, store.prefix]);
      await store.heartbeat(60_000);
      return store;
    },
  },
];

function pod(
  name: string,
  rv: string,
  o: { owner?: string; node?: string; uid?: string; phase?: string } = {},
): KubernetesObject {
  return {
    ...(o.phase && { status: { phase: o.phase } }),
    metadata: {
      name,
      namespace: 'ns',
      uid: o.uid ?? `uid-${name}`,
      resourceVersion: rv,
      ...(o.owner && {
        ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicaSet', name: 'rs', uid: o.owner, controller: true }],
      }),
    },
    ...(o.node && { spec: { nodeName: o.node } }),
  } as KubernetesObject;
}
// Pods unless the objects say another kind.
const listed = (objects: KubernetesObject[], rv: string): CacheEvent => ({
  type: 'LISTED',
  kind: objects[0]?.kind ?? 'Pod',
  objects,
  resourceVersion: rv,
});
const ev = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubernetesObject): CacheEvent => ({
  type,
  kind: object.kind ?? 'Pod',
  object,
});
const names = (objects: KubernetesObject[]) => objects.map((o) => o.metadata?.name).sort();
const rvOf = (o: KubernetesObject | null) => o?.metadata?.resourceVersion;

describe.each(stores)('CacheStore contract: $name', ({ make, shared }) => {
  it('files a relist, follows adoption, deletion and node moves, and ignores replayed older events', async () => {
    const s = await make();
    await applyEvent(s, listed([pod('a', '5'), pod('b', '6', { owner: 'u1', node: 'n1' }), pod('gone', '7')], '10'));
    await applyEvent(s, ev('MODIFIED', pod('a', '11', { owner: 'u1', node: 'n2' })));
    await applyEvent(s, ev('DELETED', pod('b', '12', { owner: 'u1' })));
    await applyEvent(s, ev('MODIFIED', pod('a', '9'))); // replayed from before the list: older than what is held
    await applyEvent(s, { type: 'BOOKMARK', kind: 'Pod', resourceVersion: '15' });
    expect(names(await s.members(index.owner('Pod', 'u1')))).toEqual(['a']);
    expect(names(await s.members(index.orphans('Pod', 'ns')))).toEqual(['gone']);
    expect(names(await s.members(index.node('Pod', 'n2')))).toEqual(['a']);
    expect(await s.members(index.node('Pod', 'n1'))).toEqual([]);
    expect(await s.watermark('Pod')).toBe('15');
    await applyEvent(s, listed([pod('a', '11', { owner: 'u1' })], '20'));
    expect(names(await s.members(index.all('Pod')))).toEqual(['a']);
    expect(await s.get('Pod/ns/gone')).toBeNull();
    expect(await s.get('Pod/ns/a')).toMatchObject({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { resourceVersion: '11' },
    });
    expect(await s.watermark('Pod')).toBe('20');
  });

  it('has no watermark before the first list, and a relist of 450 objects in batches', async () => {
    const s = await make();
    await applyEvent(s, ev('ADDED', pod('early', '3')));
    expect(await s.watermark('Pod')).toBeUndefined();
    const many = Array.from({ length: 450 }, (_, i) => pod(`p-${i}`, String(100 + i), { owner: 'u9' }));
    await applyEvent(s, listed(many, '600'));
    expect(await s.members(index.owner('Pod', 'u9'))).toHaveLength(450);
    expect(await s.get('Pod/ns/early')).toBeNull();
    expect(await s.watermark('Pod')).toBe('600');
  });

  it('keeps, replaces and clears the write record of a key', async () => {
    const s = await make();
    expect(await s.writesOf('c1/ReplicaSet/ns/rs')).toBeNull();
    const record = {
      resourceVersions: { Pod: '42' },
      deleted: [{ kind: 'Pod', namespace: 'ns', name: 'x', uid: 'u' }],
    };
    await s.recordWrites('c1/ReplicaSet/ns/rs', record);
    expect(await s.writesOf('c1/ReplicaSet/ns/rs')).toEqual(record);
    await s.recordWrites('c1/ReplicaSet/ns/rs', null);
    expect(await s.writesOf('c1/ReplicaSet/ns/rs')).toBeNull();
  });

  it('a shared cache whose forwarder stopped its heartbeat reads as not synced (never as current)', async () => {
    const s = await make();
    await applyEvent(s, listed([pod('a', '5')], '10'));
    expect(await s.watermark('Pod')).toBe('10');
    await s.heartbeat(1);
    await new Promise((r) => setTimeout(r, 20)); // let the 1 ms TTL run out
    expect(await s.watermark('Pod')).toBe(shared ? undefined : '10');
    await s.heartbeat(60_000);
    expect(await s.watermark('Pod')).toBe('10');
  });
});

/** A LeaderWorkerSet's pod (its set-name label), being deleted when `deleting`. */
const lwsPod = (name: string, rv: string, deleting: boolean, uid = `uid-${name}`): KubernetesObject =>
  ({
    metadata: {
      name,
      namespace: 'ns',
      uid,
      resourceVersion: rv,
      labels: { 'leaderworkerset.sigs.k8s.io/name': 'lws' },
      ...(deleting && { deletionTimestamp: '2026-01-01T00:00:30Z' }),
    },
  }) as KubernetesObject;

const jobSet = (name: string, rv: string, suspend: boolean): KubernetesObject =>
  ({
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv },
    spec: { suspend, replicatedJobs: [] },
  }) as KubernetesObject;

describe.each(stores)('CacheStore contract, kept states: $name', ({ make }) => {
  it("keeps a LeaderWorkerSet pod deleted while being deleted as its id's deleted state, and nothing else", async () => {
    const s = await make();
    await applyEvent(s, listed([lwsPod('w', '5', false), lwsPod('x', '6', false), pod('plain', '7')], '10'));
    await applyEvent(s, ev('MODIFIED', lwsPod('w', '11', true)));
    await applyEvent(s, ev('DELETED', lwsPod('w', '12', true)));
    // Deleted at once (no deletionTimestamp ever stored), and a pod of no LeaderWorkerSet: nothing kept.
    await applyEvent(s, ev('DELETED', lwsPod('x', '13', false)));
    await applyEvent(
      s,
      ev('DELETED', {
        ...pod('plain', '14'),
        metadata: { ...pod('plain', '14').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
      } as KubernetesObject),
    );
    expect(await s.get('Pod/ns/w')).toBeNull();
    expect(await s.keptState('Pod/ns/w')).toMatchObject({
      kind: 'Pod',
      metadata: { name: 'w', uid: 'uid-w', resourceVersion: '12', deletionTimestamp: '2026-01-01T00:00:30Z' },
    });
    expect(await s.keptState('Pod/ns/x')).toBeNull();
    expect(await s.keptState('Pod/ns/plain')).toBeNull();
    // Its StatefulSet's replacement under the same name leaves the deleted state as it was.
    await applyEvent(s, ev('ADDED', lwsPod('w', '15', false, 'uid-w2')));
    expect(await s.get('Pod/ns/w')).toMatchObject({ metadata: { uid: 'uid-w2' } });
    expect(await s.keptState('Pod/ns/w')).toMatchObject({ metadata: { uid: 'uid-w' } });
    // A delete older than the object held is refused, and keeps nothing.
    await applyEvent(s, ev('DELETED', lwsPod('w', '14', true, 'uid-w2')));
    expect(await s.keptState('Pod/ns/w')).toMatchObject({ metadata: { uid: 'uid-w' } });
    await s.reset();
    expect(await s.keptState('Pod/ns/w')).toBeNull();
  });

  it('keeps a suspended JobSet as its kept state; a drop forgets that one, not a newer one kept since', async () => {
    const s = await make();
    await applyEvent(s, listed([jobSet('js', '5', false)], '10'));
    expect(await s.keptState('JobSet/ns/js')).toBeNull(); // listed: nothing kept
    await applyEvent(s, ev('MODIFIED', jobSet('js', '11', true)));
    await applyEvent(s, ev('MODIFIED', jobSet('js', '12', false)));
    // The suspend folded away by the resume: the cache holds the resumed JobSet, the suspended one is kept.
    expect(await s.get('JobSet/ns/js')).toMatchObject({ spec: { suspend: false } });
    expect(await s.keptState('JobSet/ns/js')).toMatchObject({
      kind: 'JobSet',
      spec: { suspend: true },
      metadata: { resourceVersion: '11' },
    });
    // A suspend older than the JobSet held is refused and keeps nothing.
    await applyEvent(s, ev('MODIFIED', jobSet('other', '13', false)));
    await applyEvent(s, ev('MODIFIED', jobSet('other', '9', true)));
    expect(await s.keptState('JobSet/ns/other')).toBeNull();
    // Suspended again meanwhile (13): a pass that read 11 drops nothing; one that read 13 drops it.
    await applyEvent(s, ev('MODIFIED', jobSet('js', '14', true)));
    await s.dropKeptState('JobSet/ns/js', '11');
    expect(await s.keptState('JobSet/ns/js')).toMatchObject({ metadata: { resourceVersion: '14' } });
    await s.dropKeptState('JobSet/ns/js', '14');
    expect(await s.keptState('JobSet/ns/js')).toBeNull();
    await s.dropKeptState('JobSet/ns/js', '14'); // none kept: nothing happens
    await applyEvent(s, ev('MODIFIED', jobSet('js', '15', true)));
    await s.reset();
    expect(await s.keptState('JobSet/ns/js')).toBeNull();
  });
});

describe.each(stores)('CacheStore contract, time only goes forward: $name', ({ make }) => {
  it('an older resourceVersion never replaces a newer one; a stale relist brings back nothing deleted since', async () => {
    const s = await make();
    await applyEvent(s, listed([pod('a', '5', { phase: 'Running' }), pod('b', '6'), pod('c', '7')], '10'));
    await applyEvent(s, ev('MODIFIED', pod('a', '20', { phase: 'Failed' })));
    await applyEvent(s, ev('DELETED', pod('b', '21')));
    // A relist listed at 10 by a forwarder that was paused meanwhile, finishing now.
    await applyEvent(s, listed([pod('a', '5', { phase: 'Running' }), pod('b', '6'), pod('c', '7')], '10'));
    expect(await s.get('Pod/ns/a')).toMatchObject({ status: { phase: 'Failed' }, metadata: { resourceVersion: '20' } });
    expect(await s.get('Pod/ns/b')).toBeNull();
    expect(names(await s.members(index.all('Pod')))).toEqual(['a', 'c']);
    expect(await s.watermark('Pod')).toBe('21');
    // A delete older than the object held is refused too.
    await applyEvent(s, ev('DELETED', pod('a', '19')));
    expect(rvOf(await s.get('Pod/ns/a'))).toBe('20');
  });

  it('the watermark never moves back; reset() lets a cluster restored from a backup start over', async () => {
    const s = await make();
    await applyEvent(s, listed([pod('a', '40')], '50'));
    await applyEvent(s, { type: 'BOOKMARK', kind: 'Pod', resourceVersion: '60' });
    await applyEvent(s, listed([pod('a', '3'), pod('z', '2')], '4'));
    expect(await s.watermark('Pod')).toBe('60');
    expect(rvOf(await s.get('Pod/ns/a'))).toBe('40');
    expect(await s.get('Pod/ns/z')).toBeNull();
    await s.reset();
    expect(await s.watermark('Pod')).toBeUndefined();
    expect(await s.members(index.all('Pod'))).toEqual([]);
    await applyEvent(s, listed([pod('a', '3'), pod('z', '2')], '4'));
    expect(await s.watermark('Pod')).toBe('4');
    expect(names(await s.members(index.all('Pod')))).toEqual(['a', 'z']);
  });

  it('a relist the cache was reset in the middle of sets no watermark; the next list files everything', async () => {
    const s = await make();
    await applyEvent(s, listed([pod('a', '3')], '4'));
    // A relist at 10 files its first page, the cache is reset (a data loss met), then the relist ends.
    await s.beginReplace('Pod');
    await s.putListed([cacheEntry('Pod', 'v1', pod('a', '3')), cacheEntry('Pod', 'v1', pod('b', '8'))]);
    await s.reset();
    await s.putListed([cacheEntry('Pod', 'v1', pod('c', '9'))]);
    await s.endReplace('Pod', new Set(['Pod/ns/a', 'Pod/ns/b', 'Pod/ns/c']), '10');
    // Not current: a and b went with the reset.
    expect(await s.watermark('Pod')).toBeUndefined();
    // The list that follows the reset (its refill) brings every object back, a and b included.
    await applyEvent(s, listed([pod('a', '3'), pod('b', '8'), pod('c', '9')], '11'));
    expect(names(await s.members(index.all('Pod')))).toEqual(['a', 'b', 'c']);
    expect(await s.watermark('Pod')).toBe('11');
  });
});

describe('RedisCacheStore: authenticated entries and a fenced forwarder', () => {
  const SECRET = 'contract-test-secret-0123456789';
  type Rejection = { cluster: string; what: string; id: string; reason: string };
  function signed(cluster = 'c1', prefix = `test-${randomUUID().slice(0, 8)}`) {
    const rejected: Rejection[] = [];
    const store = new RedisCacheStore({
      redis,
      cluster,
      prefix,
      signingSecrets: [SECRET],
      onRejected: (e: Rejection) => rejected.push(e),
    } as ConstructorParameters<typeof RedisCacheStore>[0]);
    prefixes.push([redis, store.prefix]);
    return { store, rejected, prefix, hash: `${store.prefix}e` };
  }
  const forged = (rv: string, ix: string[]) =>
    JSON.stringify({
      o: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', resourceVersion: rv },
        spec: { containers: [{ name: 'x', image: 'evil', securityContext: { privileged: true } }], hostPID: true },
      },
      rv,
      ix,
    });

  it('an entry written into the hash by another client, or tampered with, reads as a miss and is counted', async () => {
    const { store, rejected, hash } = signed();
    await store.heartbeat(60_000);
    await applyEvent(store, listed([pod('a', '5', { owner: 'u1' }), pod('b', '6', { owner: 'u1' })], '10'));
    expect(names(await store.members(index.owner('Pod', 'u1')))).toEqual(['a', 'b']);
    await redis.hset(hash, 'Pod/ns/a', forged('7', ['ns:Pod/ns', 'all:Pod', 'owner:Pod/u1']));
    const valid = (await redis.hget(hash, 'Pod/ns/b')) as string;
    await redis.hset(hash, 'Pod/ns/b', valid.replace('"uid-b"', '"uid-x"'));
    expect(await store.get('Pod/ns/a')).toBeNull();
    expect(await store.get('Pod/ns/b')).toBeNull();
    expect(await store.members(index.owner('Pod', 'u1'))).toEqual([]);
    expect(rejected).toContainEqual({ cluster: 'c1', what: 'entry', id: 'Pod/ns/a', reason: 'missing-mac' });
    expect(rejected).toContainEqual({ cluster: 'c1', what: 'entry', id: 'Pod/ns/b', reason: 'bad-mac' });
    // A forged entry with a huge resourceVersion does not block the next real update of the object.
    await redis.hset(hash, 'Pod/ns/a', forged('99999999999', ['ns:Pod/ns', 'all:Pod', 'owner:Pod/u1']));
    await applyEvent(store, ev('MODIFIED', pod('a', '11', { owner: 'u1' })));
    expect(rvOf(await store.get('Pod/ns/a'))).toBe('11');
  });

  it('an entry copied to another id, index or cluster reads as a miss', async () => {
    const one = signed('c1');
    const two = signed('c2', one.prefix);
    await one.store.heartbeat(60_000);
    await applyEvent(one.store, listed([pod('a', '5', { owner: 'u1' })], '10'));
    await applyEvent(two.store, listed([], '10'));
    const valid = (await redis.hget(one.hash, 'Pod/ns/a')) as string;
    await redis.hset(one.hash, 'Pod/ns/b', valid);
    await redis.sadd(`${one.store.prefix}i:owner:Pod/u1`, 'Pod/ns/b');
    await redis.sadd(`${one.store.prefix}i:owner:Pod/u2`, 'Pod/ns/a');
    await redis.hset(two.hash, 'Pod/ns/a', valid);
    expect(await one.store.get('Pod/ns/b')).toBeNull();
    expect(names(await one.store.members(index.owner('Pod', 'u1')))).toEqual(['a']);
    expect(await one.store.members(index.owner('Pod', 'u2'))).toEqual([]);
    expect(await two.store.get('Pod/ns/a')).toBeNull();
    expect(new Set(one.rejected.map((r) => `${r.id}:${r.reason}`))).toEqual(
      new Set(['Pod/ns/b:bad-mac', 'Pod/ns/a:index']),
    );
    expect(two.rejected).toMatchObject([{ cluster: 'c2', id: 'Pod/ns/a', reason: 'bad-mac' }]);
  });

  it('a kept state is signed and kept with a TTL; one forged, tampered with or moved reads as none', async () => {
    const { store, rejected } = signed();
    await store.heartbeat(60_000);
    await applyEvent(store, listed([lwsPod('w', '5', true), lwsPod('v', '6', true)], '10'));
    await applyEvent(store, ev('DELETED', lwsPod('w', '11', true)));
    await applyEvent(store, ev('DELETED', lwsPod('v', '12', true)));
    const key = (id: string) => `${store.prefix}k:${id}`;
    const ttl = await redis.pttl(key('Pod/ns/w'));
    expect(ttl).toBeGreaterThan(KEPT_STATE_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(KEPT_STATE_TTL_MS);
    expect(await store.keptState('Pod/ns/w')).toMatchObject({ metadata: { uid: 'uid-w' } });
    const genuine = (await redis.get(key('Pod/ns/w'))) as string;
    await redis.set(key('Pod/ns/w'), genuine.replace('"uid-w"', '"uid-z"'));
    await redis.set(key('Pod/ns/v'), genuine); // w's, under v's id
    await redis.set(key('Pod/ns/u'), JSON.stringify({ o: lwsPod('u', '1', true) }));
    expect(await store.keptState('Pod/ns/w')).toBeNull();
    expect(await store.keptState('Pod/ns/v')).toBeNull();
    expect(await store.keptState('Pod/ns/u')).toBeNull();
    expect(rejected).toEqual([
      { cluster: 'c1', what: 'kept', id: 'Pod/ns/w', reason: 'bad-mac' },
      { cluster: 'c1', what: 'kept', id: 'Pod/ns/v', reason: 'bad-mac' },
      { cluster: 'c1', what: 'kept', id: 'Pod/ns/u', reason: 'missing-mac' },
    ]);
  });

  it('a signed kept state is dropped by the resourceVersion inside it, not by a newer one', async () => {
    const { store, rejected } = signed();
    await store.heartbeat(60_000);
    await applyEvent(store, listed([jobSet('js', '5', false)], '10'));
    await applyEvent(store, ev('MODIFIED', jobSet('js', '11', true)));
    await applyEvent(store, ev('MODIFIED', jobSet('js', '12', false)));
    await store.dropKeptState('JobSet/ns/js', '10');
    expect(await store.keptState('JobSet/ns/js')).toMatchObject({ metadata: { resourceVersion: '11' } });
    await store.dropKeptState('JobSet/ns/js', '11');
    expect(await store.keptState('JobSet/ns/js')).toBeNull();
    expect(rejected).toEqual([]);
  });

  it('a forged watermark reads as absent and does not hold the real one back; a forged write record is refused', async () => {
    const { store, rejected } = signed();
    await store.heartbeat(60_000);
    await applyEvent(store, listed([], '10'));
    expect(await store.watermark('Pod')).toBe('10');
    await redis.hset(`${store.prefix}wm`, 'Pod', '99999999999');
    expect(await store.watermark('Pod')).toBeUndefined();
    await applyEvent(store, { type: 'BOOKMARK', kind: 'Pod', resourceVersion: '30' });
    expect(await store.watermark('Pod')).toBe('30');
    await redis.set(`${store.prefix}alive`, '1', 'PX', 60_000); // a heartbeat forged for a dead forwarder
    expect(await store.watermark('Pod')).toBeUndefined();
    await store.heartbeat(60_000);
    const record = { resourceVersions: { Pod: '42' }, deleted: [] };
    await store.recordWrites('c1/ReplicaSet/ns/rs', record);
    expect(await store.writesOf('c1/ReplicaSet/ns/rs')).toEqual(record);
    await redis.set(
      `${store.prefix}w:c1/ReplicaSet/ns/rs`,
      JSON.stringify({ resourceVersions: { Pod: '1' }, deleted: [] }),
    );
    await expect(store.writesOf('c1/ReplicaSet/ns/rs')).rejects.toThrow(/not authentic/);
    expect(new Set(rejected.map((r) => `${r.what}:${r.reason}`))).toEqual(
      new Set(['watermark:missing-mac', 'alive:missing-mac', 'record:missing-mac']),
    );
  });

  it("a write of a forwarder whose lease another took is refused, and the newer holder's state stays", async () => {
    const queuePrefix = `test-${randomUUID().slice(0, 8)}:{q}:`;
    prefixes.push([redis, queuePrefix]);
    const frozen = () => 0; // A's clock never tells it the lease ran out: only Redis can refuse it
    const leaseA = new ForwarderLease({
      redis,
      queuePrefix,
      cluster: 'c1',
      holder: 'A',
      leaseMs: 60_000,
      clock: frozen,
    });
    const leaseB = new ForwarderLease({ redis, queuePrefix, cluster: 'c1', holder: 'B', leaseMs: 60_000 });
    expect(await leaseA.acquire()).toMatchObject({ acquired: true });
    const base = signed();
    const a = fencedCacheStore(base.store, leaseCacheFence(leaseA));
    await applyEvent(a, listed([pod('a', '5', { phase: 'Running' }), pod('b', '6')], '1000'));
    await redis.del(leaseA.key); // A's lease expired while it was paused
    expect(await leaseB.acquire()).toMatchObject({ acquired: true });
    const b = fencedCacheStore(base.store, leaseCacheFence(leaseB));
    await applyEvent(b, ev('MODIFIED', pod('a', '1100', { phase: 'Failed' })));
    await applyEvent(b, ev('DELETED', pod('b', '1200')));
    await expect(applyEvent(a, ev('MODIFIED', pod('b', '1150')))).rejects.toThrow(ForwarderLeaseLost);
    expect(leaseA.held()).toBe(false);
    await expect(a.advance('Pod', '1300')).rejects.toThrow(ForwarderLeaseLost);
    await base.store.heartbeat(60_000);
    expect(await base.store.get('Pod/ns/a')).toMatchObject({ status: { phase: 'Failed' } });
    expect(await base.store.get('Pod/ns/b')).toBeNull();
    expect(await base.store.watermark('Pod')).toBe('1200');
  });
});
