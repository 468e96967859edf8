// The forwarder pool on a real six-node Redis Cluster (test/helpers/redis-cluster.ts) with FLEETQ_QUEUE_SHARDS=3:
// a cluster's lease is in the first shard's slot, its enqueues in its own shard's, its cache in {cache:<cluster>}
// and its checkpoints in its own checkpoints hash's; each write is fenced by the lease's token in its own slot
// (forwarder-lease.ts FenceSlots). Two pool members in this process serve six simulated clusters
// (test/cluster-sim); one stops renewing (its process "died": no release), the other takes its clusters and their
// new Deployments' keys reach their shard queues again. Then a stale holder's enqueue, checkpoint and cache write
// are refused once a newer holder took the lease (before fence slots these scripts failed with a cross-slot error),
// and a drain (the cluster removed from the registry) fences off its last holder.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { RedisCacheStore } from '../../shared/cache/redis-cache-store.js';
import { fencedCacheStore } from '../../shared/cache/cache-fence.js';
import { FencedCheckpoints, FencedQueue, leaseCacheFence } from '../../shared/forwarder/fenced-writes.js';
import {
  ForwarderLease,
  ForwarderLeaseLost,
  readLeaseHolders,
  readWriterTokens,
} from '../../shared/forwarder/forwarder-lease.js';
import { collectStatus } from '../../shared/ops/status.js';
import { ForwarderPool } from '../../shared/forwarder/forwarder-pool.js';
import { drainCluster } from '../../shared/forwarder/cluster-drain.js';
import { keyString } from '../../shared/kube/key.js';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { createQueue } from '../../shared/queue/index.js';
import { shardQueueNameOf } from '../../shared/queue/queue-shards.js';
import type { RedisClient } from '../../shared/queue/redis/redis-connection.js';
import { redisKeyPrefix, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { loadConfig, type FleetqConfig } from '../../shared/runtime/config.js';
import { queueConfig } from '../../shared/runtime/deps.js';
import { Logger } from '../../shared/runtime/logger.js';
import { RegistryReload } from '../../shared/runtime/registry-reload.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { SimServer } from '../cluster-sim/sim-server.js';
import { ensureNamespace, kwokDeployment } from '../helpers/cluster-sim/sim-fleet.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';

const PREFIX = 'fleetq';
const QUEUE = 'pool-shards';
const SHARDS = 3;
const LEASE_MS = 1_500;
const NS = 'apps';
const quiet = new Logger('test-pool-cluster', 'error', () => undefined);
const queuePrefixOf = (cluster: string): string => redisKeyPrefix(shardQueueNameOf(QUEUE, SHARDS, cluster), PREFIX);

let redisCluster: RedisCluster;
let redis: RedisClient;
let queue: WorkQueue;
let checkpoints: RedisCheckpointStore;
let config: FleetqConfig;
let sim: SimServer;
let dir: string;
const pools: ForwarderPool[] = [];

beforeAll(async () => {
  redisCluster = await startRedisCluster();
  redis = redisCluster.client();
  config = loadConfig({
    FLEETQ_DRIVER: 'redis',
    FLEETQ_QUEUE: QUEUE,
    FLEETQ_QUEUE_SHARDS: String(SHARDS),
    FLEETQ_REDIS_PREFIX: PREFIX,
    REDIS_URL: redisCluster.url,
  });
  queue = await createQueue(queueConfig(config));
  checkpoints = new RedisCheckpointStore(redis, PREFIX);
  sim = await SimServer.start(['sim-1', 'sim-2', 'sim-3', 'sim-4', 'sim-5', 'sim-6']);
  dir = mkdtempSync(join(tmpdir(), 'fleetq-pool-cluster-'));
}, 60_000);

afterAll(async () => {
  await Promise.all(pools.map((p) => p.stop()));
  await queue?.close();
  await sim?.close();
  redis?.disconnect();
  await redisCluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('forwarder pool on a Redis Cluster with queue shards', () => {
  it('serves simulated clusters, takes a dead member’s clusters over, and their keys flow again', async () => {
    const registryPath = sim.writeRegistry(dir, () => ({ owns: ['Deployment'] }));
    const names = [...sim.clusters.keys()];
    // The six clusters use all three shards (fixed by their names).
    expect(new Set(names.map(queuePrefixOf)).size).toBe(SHARDS);
    const pool = (holder: string): ForwarderPool =>
      new ForwarderPool({
        redis,
        queuePrefix: redisKeyPrefix(QUEUE, PREFIX),
        clusterQueuePrefix: queuePrefixOf,
        queue,
        checkpoints,
        registry: new RegistryReload(
          registryPath,
          new ClusterRegistry(loadRegistry(registryPath), () => undefined),
          quiet,
        ),
        leaseMs: LEASE_MS,
        holder,
        logger: quiet,
        metrics: new Registry(),
        forwarder: { resyncMs: 0 },
      });
    const [a, b] = [pool('A'), pool('B')];
    pools.push(a, b);
    await a.start();
    await b.start();
    const holders = async (): Promise<Map<string, string>> =>
      new Map([...(await readLeaseHolders(redis, redisKeyPrefix(QUEUE, PREFIX)))].map(([c, h]) => [c, h.holder]));
    await waitFor(
      async () => {
        const h = [...(await holders()).values()];
        return h.length === 6 && h.includes('A') && h.includes('B');
      },
      20_000,
      50,
      'six clusters held by A and B',
    );
    // A Deployment created in a cluster is enqueued on that cluster's shard.
    const enqueued = async (cluster: string, name: string): Promise<boolean> => {
      const id = keyString({ cluster, kind: 'Deployment', namespace: NS, name });
      return (await redis.hexists(redisKeys(queuePrefixOf(cluster)).pending, id)) === 1;
    };
    const create = (cluster: string, name: string): void => {
      const c = sim.clusters.get(cluster)!;
      ensureNamespace(c, NS);
      c.create(c.resource('apps', 'deployments'), NS, kwokDeployment(name, 1, 'app:1'));
    };
    for (const c of names) create(c, 'before');
    await waitFor(
      async () => (await Promise.all(names.map((c) => enqueued(c, 'before')))).every(Boolean),
      20_000,
      50,
      "every cluster's first Deployment enqueued on its shard",
    );

    // A dies: no more rounds, nothing released. B takes its clusters, and their new Deployments are enqueued.
    const lost = [...a.clusters];
    expect(lost.length).toBeGreaterThan(0);
    a['stopped'] = true;
    clearInterval(a['timer']);
    await waitFor(
      async () => {
        const h = await holders();
        return lost.every((c) => h.get(c) === 'B');
      },
      6 * LEASE_MS,
      50,
      "A's clusters taken by B",
    );
    for (const c of lost) create(c, 'after');
    await waitFor(
      async () => (await Promise.all(lost.map((c) => enqueued(c, 'after')))).every(Boolean),
      20_000,
      50,
      "A's clusters' new Deployments enqueued on their shards",
    );
  }, 90_000);

  it('fleetq status shows the tokens that wrote for each cluster, read from its own shard', async () => {
    const names = [...sim.clusters.keys()];
    const s = await collectStatus(config, { clusters: names, env: {} });
    for (const c of names) {
      const tokens = await readWriterTokens(redis, c, queuePrefixOf(c));
      expect(tokens.length).toBeGreaterThan(0);
      expect({ c, writers: s.clusters.find((r) => r.cluster === c)?.forwarderWriters }).toEqual({ c, writers: tokens });
    }
    // The clusters of the second and third shards have no list in the first shard's slot.
    const elsewhere = names.filter((c) => queuePrefixOf(c) !== redisKeyPrefix(QUEUE, PREFIX));
    expect(elsewhere.length).toBeGreaterThan(0);
    for (const c of elsewhere) expect(await readWriterTokens(redis, c, redisKeyPrefix(QUEUE, PREFIX))).toEqual([]);
  });

  it('refuses a stale holder’s enqueue, checkpoint and cache write once a newer holder took the lease, and after a drain', async () => {
    const cluster = 'fence-c';
    const queuePrefix = queuePrefixOf(cluster);
    const cache = new RedisCacheStore({ redis, cluster, prefix: PREFIX });
    const fenceSlots = { queuePrefix, checkpointsKey: checkpoints.keyFor(cluster), cachePrefix: cache.prefix };
    const lease = (holder: string): ForwarderLease =>
      new ForwarderLease({
        redis,
        queuePrefix: redisKeyPrefix(QUEUE, PREFIX),
        cluster,
        holder,
        leaseMs: 60_000,
        fenceSlots,
      });
    // Every write of this cluster is in a slot other than its lease's.
    const slot = async (k: string): Promise<number> => Number(await redis.call('CLUSTER', 'KEYSLOT', k));
    const leaseSlot = await slot(redisKeyPrefix(QUEUE, PREFIX));
    for (const k of [redisKeys(queuePrefix).pending, checkpoints.keyFor(cluster), `${cache.prefix}e`])
      expect(await slot(k)).not.toBe(leaseSlot);

    const writes = (l: ForwarderLease) => ({
      enqueue: (name: string) =>
        new FencedQueue({ queue: queue as Required<Pick<WorkQueue, 'addFenced' | 'parkInvalid'>>, lease: l }).add({
          cluster,
          kind: 'Deployment',
          namespace: NS,
          name,
        }),
      checkpoint: (rv: string) => new FencedCheckpoints(checkpoints, l).save(cluster, new Map([['deployments', rv]])),
      cache: (rv: string) => fencedCacheStore(cache, leaseCacheFence(l)).replace('Deployment', [], rv),
    });

    // One round per kind of write: a holder writes; it is paused past its lease in Redis (its local deadline not
    // passed yet): the key goes, a newer holder takes the lease with a larger token and installs it in every slot
    // before writing; the stale holder's write is refused by the token in its own slot, and nothing of it lands.
    const staleId = keyString({ cluster, kind: 'Deployment', namespace: NS, name: 'by-stale' });
    for (const [round, kind] of (['enqueue', 'checkpoint', 'cache'] as const).entries()) {
      const old = lease(`old-${kind}`);
      expect((await old.acquire()).acquired).toBe(true);
      expect(await old.installFences()).toBe(true);
      const rv = String(10 * (round + 1));
      await writes(old).enqueue(`by-${kind}`);
      await writes(old).checkpoint(rv);
      await writes(old).cache(rv);
      // Its first lists done (a holder paused later is not a death while syncing: cluster-quarantine.ts).
      await old.synced();

      await redis.del(old.key);
      const next = lease(`new-${kind}`);
      const got = await next.acquire();
      expect(got.acquired && got.token).toBeGreaterThan(old.currentToken ?? Infinity);
      expect(await next.installFences()).toBe(true);

      expect(old.held()).toBe(true);
      const stale = writes(old);
      const refused = kind === 'enqueue' ? stale.enqueue('by-stale') : stale[kind]('999');
      await expect(refused).rejects.toBeInstanceOf(ForwarderLeaseLost);
      expect(old.lostReason).toMatch(/refused by the fence/);
      expect(await redis.hexists(redisKeys(queuePrefix).pending, staleId)).toBe(0);
      expect(await checkpoints.load(cluster, ['deployments'])).toEqual(new Map([['deployments', rv]]));
      expect(await redis.hget(`${cache.prefix}wm`, 'Deployment')).toBe(rv);

      // The newer holder's writes go through.
      const newer = String(10 * (round + 1) + 5);
      await writes(next).enqueue(`by-new-${kind}`);
      await writes(next).checkpoint(newer);
      await writes(next).cache(newer);
      expect(await checkpoints.load(cluster, ['deployments'])).toEqual(new Map([['deployments', newer]]));
      expect(await next.release()).toBe(true);
    }

    // The cluster removed from the registry: its lease goes, a burned token is installed in its slots, and its
    // shard queue is drained. The last holder's enqueue and checkpoint are refused; a holder of it added back writes.
    const last = lease('last');
    expect((await last.acquire()).acquired).toBe(true);
    expect(await last.installFences()).toBe(true);
    await writes(last).enqueue('waiting');
    const { dropped } = await drainCluster(redis, redisKeyPrefix(QUEUE, PREFIX), cluster, fenceSlots);
    expect(dropped).toBeGreaterThan(0);
    expect(await redis.exists(last.key)).toBe(0);
    await expect(writes(last).enqueue('after-drain')).rejects.toBeInstanceOf(ForwarderLeaseLost);
    const back = lease('back');
    expect((await back.acquire()).acquired).toBe(true);
    expect(await back.installFences()).toBe(true);
    await writes(back).enqueue('added-back');
    await writes(back).checkpoint('40');
    expect(await checkpoints.load(cluster, ['deployments'])).toEqual(new Map([['deployments', '40']]));
    await cache.close();
  }, 30_000);
});
