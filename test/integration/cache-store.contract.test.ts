// The CacheStore contract, run against both stores: the in-process one and the Redis one (real Redis at
// REDIS_URL, a prefix of its own per test). The same events through applyEvent must leave the same objects,
// indexes and watermarks in both, so live (Redis), all-in-one (memory) and replayed state cannot differ.
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import type { KubernetesObject } from '@kubernetes/client-node';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { applyEvent, type CacheEvent } from '../../shared/cache/apply-event.js';
import { index } from '../../shared/cache/cache-entry.js';
import type { CacheStore } from '../../shared/cache/cache-store.js';
import { MemoryCacheStore } from '../../shared/cache/memory-cache-store.js';
import { RedisCacheStore } from '../../shared/cache/redis-cache-store.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefixes: string[] = [];
afterEach(async () => {
  for (const p of prefixes.splice(0)) await deleteQueueKeys(redis, p);
});
afterAll(() => redis.quit());

const stores: Array<{ name: string; shared: boolean; make: () => Promise<CacheStore> }> = [
  { name: 'memory', shared: false, make: async () => new MemoryCacheStore() },
  {
    name: 'redis',
    shared: true,
    make: async () => {
      const store = new RedisCacheStore({ redis, cluster: 'c1', prefix: `test-${randomUUID().slice(0, 8)}` });
      prefixes.push(store.prefix);
      await store.heartbeat(60_000); // a forwarder keeps it current
      return store;
    },
  },
];

function pod(name: string, rv: string, o: { owner?: string; node?: string; uid?: string } = {}): KubernetesObject {
  return {
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
const listed = (objects: KubernetesObject[], rv: string): CacheEvent => ({
  type: 'LISTED',
  kind: 'Pod',
  objects,
  resourceVersion: rv,
});
const ev = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubernetesObject): CacheEvent => ({
  type,
  kind: 'Pod',
  object,
});
const names = (objects: KubernetesObject[]) => objects.map((o) => o.metadata?.name).sort();

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
