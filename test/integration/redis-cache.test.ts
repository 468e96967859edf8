// Redis treated as a cache that can vanish, and reached over AUTH and TLS: real redis-servers of the test's
// own (flushed, password-protected, TLS) and the shared one for the rotation heal; a real forwarder on
// fleetq-1 for the data-loss resync.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { MIRROR_TO_ANNOTATION } from '../../shared/controllers/configmap-mirror/watch-keys.js';
import { keyString } from '../../shared/kube/key.js';
import { createQueue } from '../../shared/queue/index.js';
import { connectRedis } from '../../shared/queue/redis/redis-connection.js';
import { deleteQueueKeys, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { isTruncatedObject, type LoggedEvent } from '../../shared/queue/history/event-log.js';
import { RedisStreamEventLog } from '../../shared/queue/history/redis-stream-event-log.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import type { Lease, WorkQueue } from '../../shared/queue/work-queue.js';
import { Logger } from '../../shared/runtime/logger.js';
import { resyncOnRedisLoss } from '../../shared/runtime/redis-loss-resync.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { REDIS_URL, redisClient, startOwnRedis, testQueueName, type OwnRedis } from '../helpers/queue/redis.js';
import { sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

const quiet = () => new Logger('test', 'error', () => undefined);
const key = (cluster: string, name: string) => ({ cluster, kind: 'Deployment', namespace: 'default', name });

/** The first error a client gets connecting to url (it does not retry). */
function connectError(url: string, tls: { tlsCaFile?: string }): Promise<Error> {
  return new Promise((resolve, reject) => {
    const r = connectRedis(url, tls, { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    r.once('error', (err: Error) => {
      r.disconnect();
      resolve(err);
    });
    r.connect().then(
      () => r.ping().then(() => reject(new Error('connected and answered PING'))),
      () => undefined,
    );
  });
}

async function basicRoundTrip(queue: WorkQueue): Promise<void> {
  await queue.add(key('a', 'web'));
  const lease = (await queue.get(5_000)) as Lease;
  expect(lease?.id).toBe('a/Deployment/default/web');
  await queue.done(lease);
  expect(await queue.depth()).toBe(0);
  expect(await queue.get(100)).toBeNull();
}

describe('Redis rotation heals itself', () => {
  const redis = redisClient();
  let queue: RedisQueue;
  afterEach(async () => {
    await queue.close();
    await deleteQueueKeys(redis, queue.prefix);
  });
  afterAll(() => redis.quit());

  it.each([
    { name: 'rot and rotset', drop: ['rotation', 'rotationMembers'] as const },
    { name: 'rot only', drop: ['rotation'] as const },
    { name: 'rot, rotset and a ready list', drop: ['rotation', 'rotationMembers', 'ready:b'] as const },
  ])('deleting $name mid-run: every key is still handed out once', async ({ drop }) => {
    queue = new RedisQueue({ name: testQueueName(), redis: REDIS_URL, healEveryMs: 60_000 });
    const keys = redisKeys(queue.prefix);
    const ids = new Set<string>();
    for (const c of ['a', 'b', 'c'])
      for (let i = 0; i < 10; i++) {
        await queue.add(key(c, `w-${i}`));
        ids.add(`${c}/Deployment/default/w-${i}`);
      }
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const lease = (await queue.get(1_000)) as Lease;
      seen.push(lease.id);
      await queue.done(lease);
    }
    for (const d of drop) await redis.del(d === 'ready:b' ? keys.ready('b') : keys[d]);
    for (let lease = await queue.get(2_000); lease; lease = await queue.get(300)) {
      seen.push(lease.id);
      await queue.done(lease);
    }
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it('a cluster missing from a non-empty rotation comes back within the heal period', async () => {
    queue = new RedisQueue({ name: testQueueName(), redis: REDIS_URL, healEveryMs: 300 });
    const keys = redisKeys(queue.prefix);
    await queue.add(key('lost', 'x'));
    await redis.del(keys.rotation, keys.rotationMembers, keys.healCheck);
    await redis.set(keys.healCheck, '1', 'PX', 300); // as if a heal had just run
    // another cluster keeps the rotation non-empty
    for (let i = 0; i < 3; i++) await queue.add(key('busy', `b-${i}`));
    const seen: string[] = [];
    const started = Date.now();
    for (let lease = await queue.get(2_000); lease; lease = await queue.get(1_000)) {
      seen.push(lease.id);
      await queue.done(lease);
      if (lease.key.cluster !== 'lost') await queue.add(lease.key); // stays busy
      if (seen.includes('lost/Deployment/default/x')) break;
    }
    expect(seen).toContain('lost/Deployment/default/x');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('Redis AUTH and TLS', () => {
  let own: OwnRedis | undefined;
  afterEach(async () => {
    await own?.stop();
    own = undefined;
  });

  it('AUTH: the queue works with the password in the URL; a wrong password is refused', async () => {
    own = await startOwnRedis({ password: 's3cret pass' });
    const queue = await createQueue({ driver: 'redis', name: testQueueName(), redisUrl: own.url });
    try {
      await basicRoundTrip(queue);
    } finally {
      await queue.close();
    }
    expect((await connectError(own.url.replace('s3cret%20pass', 'nope'), {})).message).toMatch(/WRONGPASS/);
  });

  it('TLS + AUTH: queue, checkpoints and event log over rediss:// with FLEETQ_REDIS_TLS_CA', async () => {
    own = await startOwnRedis({ password: 'tls-pass', tls: true });
    const caFile = own.caFile as string;
    const queue = await createQueue({
      driver: 'redis',
      name: testQueueName(),
      redisUrl: own.url,
      redisTlsCaFile: caFile,
    });
    const client = connectRedis(own.url, { tlsCaFile: caFile }, { maxRetriesPerRequest: 1 });
    try {
      await basicRoundTrip(queue);
      const checkpoints = new RedisCheckpointStore(client, 'tls');
      await checkpoints.save('c', new Map([['pods', '42']]));
      expect(await checkpoints.load('c', ['pods'])).toEqual(new Map([['pods', '42']]));
      const log = new RedisStreamEventLog({ redis: client, prefix: 'tls' });
      const event: LoggedEvent = { type: 'ADDED', cluster: 'c', resource: 'pods', observedAt: Date.now(), object: {} };
      await log.append('c', [event]);
      expect(await log.length('c')).toBe(1);
    } finally {
      await queue.close();
      client.disconnect();
    }
    // Without the CA the server's certificate is not trusted.
    expect((await connectError(own.url, {})).message).toMatch(/certificate|self.signed|unable to verify/i);
  });
});

describe('event log entry cap', () => {
  const redis = redisClient();
  afterAll(() => redis.quit());

  it('logs an object larger than maxEntryBytes as a stub with a marker; small ones whole', async () => {
    // The cluster opts in to ConfigMap data (it is redacted by default), so the big one stays big.
    const log = new RedisStreamEventLog({
      redis,
      prefix: `test-${randomUUID()}`,
      maxLen: 0,
      maxEntryBytes: 2_048,
      redaction: { keepConfigMapData: (cluster) => cluster === 'c' },
    });
    const big = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big', namespace: 'ns', uid: 'u1', resourceVersion: '7' },
      data: { blob: 'x'.repeat(100_000) },
    };
    const small = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'small', namespace: 'ns' },
      data: { a: '1' },
    };
    const at = Date.now();
    await log.append('c', [
      { type: 'ADDED', cluster: 'c', resource: 'configmaps', observedAt: at, object: big },
      { type: 'ADDED', cluster: 'c', resource: 'configmaps', observedAt: at, object: small },
    ]);
    const out: LoggedEvent[] = [];
    for await (const e of log.read('c', 0, Date.now() + 1_000)) out.push(e);
    expect(out).toHaveLength(2);
    expect(isTruncatedObject(out[0]?.object)).toBe(true);
    expect(out[0]?.object).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big', namespace: 'ns', uid: 'u1', resourceVersion: '7' },
      fleetqTruncated: { bytes: expect.any(Number), maxBytes: 2_048 },
    });
    expect(out[1]?.object).toEqual(small);
    const entries = (await redis.xrange(log.key('c'), '-', '+', 'COUNT', 1)) as [string, string[]][];
    expect(Buffer.byteLength(entries[0]?.[1][1] ?? '')).toBeLessThanOrEqual(2_048);
    await redis.del(log.key('c'));
  });
});

describe('Redis data loss → every key re-enqueued', () => {
  const CLUSTER = 'fleetq-1';
  const BOUND_MS = 10_000;
  let own: OwnRedis;
  beforeAll(async () => {
    own = await startOwnRedis();
  });
  afterAll(() => own.stop());

  it(`FLUSHALL: the watcher notices and the forwarder's resync re-enqueues every owned key within ${BOUND_MS / 1000} s`, async () => {
    const c = await sandboxCluster(CLUSTER);
    const ns = await testNamespace(c.kc);
    const name = testQueueName();
    const queue = new RedisQueue({ name, redis: own.url });
    const redis = connectRedis(own.url, {}, { maxRetriesPerRequest: 1 });
    const forwarder = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['ConfigMap'],
      queue,
      checkpoints: new MemoryCheckpointStore(),
      logger: quiet(),
      registry: new Registry(),
      resyncMs: 0,
    });
    const config = {
      REDIS_URL: own.url,
      FLEETQ_QUEUE: name,
      FLEETQ_REDIS_PREFIX: 'fleetq',
      FLEETQ_REDIS_TLS_CA: undefined,
      FLEETQ_REDIS_LOSS_CHECK_MS: 500,
    };
    let resynced: number | undefined;
    const watch = await resyncOnRedisLoss({ forwarders: new Map([[CLUSTER, forwarder]]) }, config, quiet(), {
      onResynced: () => (resynced = Date.now()),
    });
    try {
      const core = c.kc.makeApiClient(CoreV1Api);
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        await core.createNamespacedConfigMap({
          namespace: ns.name,
          body: { metadata: { name: `cm-${i}`, annotations: { [MIRROR_TO_ANNOTATION]: 'nowhere' } }, data: {} },
        });
        ids.push(keyString({ cluster: CLUSTER, kind: 'ConfigMap', namespace: ns.name, name: `cm-${i}` }));
      }
      await forwarder.start();
      await forwarder.synced();
      const pendingKey = redisKeys(queue.prefix).pending;
      const allPending = async () => (await redis.hmget(pendingKey, ...ids)).every((v) => v !== null);
      await waitFor(allPending, 30_000, 100, 'the 20 keys enqueued by the forwarder');

      await redis.flushall();
      const flushedAt = Date.now();
      expect(await allPending()).toBe(false);
      await waitFor(allPending, BOUND_MS, 50, 'every key re-enqueued after FLUSHALL');
      const tookMs = Date.now() - flushedAt;
      console.log(`Redis data loss: FLUSHALL → all 20 keys re-enqueued in ${tookMs} ms (check every 500 ms)`);
      expect(tookMs).toBeLessThanOrEqual(BOUND_MS);
      // The keys were re-enqueued by the resync, whose report comes when its last add has returned: the poll
      // above can see every key pending a moment before that (seen once in CI).
      await waitFor(async () => resynced !== undefined, 5_000, 20, 'the resync on Redis loss reported');
      expect(resynced).toBeDefined();
      // And the queue works on the emptied Redis: the keys are handed out.
      const lease = (await queue.get(2_000)) as Lease;
      expect(lease).not.toBeNull();
      await queue.done(lease);
    } finally {
      await watch.stop();
      await forwarder.stop();
      await queue.close();
      redis.disconnect();
      await ns.remove();
    }
  });
});
