// Queue shards on real Redis (FLEETQ_QUEUE_SHARDS=3, the queue built from the configuration as a worker builds it):
// each cluster's keys land in its own shard's queue only; one consumer taking keys as a worker slot does (get, then
// done) hands out every cluster an equal share whichever shard it is in; a blocked get wakes for a key added to any
// shard; `fleetq status` rows and the dead letters cover every shard; the API token bucket of a cluster sits under
// its shard's queue; the data-loss watch has every shard's marker, and a loss of the last shard's is seen at its
// next enqueue.
// Cluster → shard for N = 3 (pinned in test/unit/queue/queue-shards.test.ts): theta → 0; alpha, epsilon → 1;
// beta, gamma, delta → 2.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { collectStatus } from '../../shared/ops/status.js';
import { createQueue } from '../../shared/queue/index.js';
import { shardQueueNames } from '../../shared/queue/queue-shards.js';
import { deleteQueueKeys, redisKeyPrefix, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { redisApiBudget } from '../../shared/runtime/clients.js';
import { loadConfig, type FleetqConfig } from '../../shared/runtime/config.js';
import { queueConfig } from '../../shared/runtime/deps.js';
import { Logger } from '../../shared/runtime/logger.js';
import { resyncOnRedisLoss } from '../../shared/runtime/redis-loss-resync.js';
import { openQueue } from '../../functions/cli/queue-open.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { startOwnRedis, type OwnRedis } from '../helpers/queue/redis.js';

const PREFIX = 'fleetq';
const SHARD_OF = { theta: 0, alpha: 1, epsilon: 1, beta: 2, gamma: 2, delta: 2 } as const;
const CLUSTERS = Object.keys(SHARD_OF) as Array<keyof typeof SHARD_OF>;

const key = (cluster: string, name: string): ReconcileKey => ({ cluster, kind: 'ConfigMap', namespace: 'ns', name });

describe('queue shards on Redis', () => {
  const queueName = `shards-${randomUUID().slice(0, 8)}`;
  const names = shardQueueNames(queueName, 3);
  let own: OwnRedis;
  let config: FleetqConfig;
  let redis: Redis;
  let queue: WorkQueue;

  beforeAll(async () => {
    // A redis-server of its own: the blocked-get case counts the clients blocked in BLPOP.
    own = await startOwnRedis();
    const REDIS_URL = own.url;
    config = loadConfig({
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queueName,
      FLEETQ_QUEUE_SHARDS: '3',
      FLEETQ_REDIS_PREFIX: PREFIX,
      REDIS_URL,
    });
    redis = new Redis(REDIS_URL);
    queue = await createQueue(queueConfig(config));
  });

  afterAll(async () => {
    await queue?.close();
    for (const name of names) await deleteQueueKeys(redis, redisKeyPrefix(name, PREFIX));
    redis.disconnect();
    await own?.stop();
  });

  const blockedClients = async (): Promise<number> =>
    ((await redis.client('LIST')) as string).split('\n').filter((line) => / cmd=blpop /.test(line)).length;
  const pendingOf = (shard: number) => redis.hkeys(redisKeys(redisKeyPrefix(names[shard]!, PREFIX)).pending);

  it("puts each cluster's keys in its shard's queue; one consumer serves every cluster an equal share", async () => {
    for (const cluster of CLUSTERS) for (let i = 0; i < 8; i++) await queue.add(key(cluster, `k${i}`));
    for (const [shard, want] of [
      [0, ['theta']],
      [1, ['alpha', 'epsilon']],
      [2, ['beta', 'delta', 'gamma']],
    ] as const) {
      const clusters = new Set((await pendingOf(shard)).map((id) => id.split('/')[0]));
      expect([...clusters].sort()).toEqual(want);
    }

    // As a worker slot: get, then done asking for the next key (thenGet), 24 times.
    const served = new Map<string, number>();
    for (let i = 0; i < 24; i++) {
      const lease = await queue.get(1_000);
      if (!lease) throw new Error(`no key handed out at ${i}`);
      served.set(lease.key.cluster, (served.get(lease.key.cluster) ?? 0) + 1);
      expect(await queue.done(lease, undefined, { thenGet: true })).toEqual({ outcome: 'done' });
    }
    for (const cluster of CLUSTERS) {
      expect(served.get(cluster)).toBeGreaterThanOrEqual(3);
      expect(served.get(cluster)).toBeLessThanOrEqual(5);
    }

    // A key a done leased for the next get (thenGet) waits in its shard's buffer, held: in flight, not waiting.
    const status = await collectStatus(config, { clusters: [...CLUSTERS], env: {} });
    let inFlight = 0;
    for (const cluster of CLUSTERS) {
      const row = status.clusters.find((r) => r.cluster === cluster);
      expect((row?.depth ?? 0) + (row?.inFlight ?? 0)).toBe(8 - served.get(cluster)!);
      inFlight += row?.inFlight ?? 0;
    }
    expect(inFlight).toBeLessThanOrEqual(3); // at most one buffered lease per shard (prefetch 1)
  });

  it('a blocked get wakes for a key added to the last shard, within one wake-up', async () => {
    // Drain what the first test left.
    for (let lease = await queue.get(0); lease; lease = await queue.get(0)) await queue.done(lease);
    const waitMs = 20_000;
    const started = Date.now();
    const got = queue.get(waitMs);
    // Blocked: one BLPOP per shard's wake list.
    await waitFor(async () => (await blockedClients()) >= 3, 5_000, 20, 'the get blocked on every shard');
    await queue.add(key('delta', 'late'));
    const lease = await got;
    expect(lease?.key).toEqual(key('delta', 'late'));
    // Not a per-shard wait in turn (that would be waitMs on shard 0 first): one wake of the shared wait.
    expect(Date.now() - started).toBeLessThan(waitMs / 4);
    await queue.done(lease!);
  });

  it('status and the dlq command see dead letters of every shard', async () => {
    for (const cluster of ['theta', 'gamma'] as const) {
      await queue.add(key(cluster, 'dead'));
      const lease = await queue.get(1_000);
      expect(lease?.key.cluster).toBe(cluster);
      await queue.deadLetter(lease!, 'unknown kind');
    }
    const status = await collectStatus(config, { clusters: [...CLUSTERS], env: {} });
    expect(status.clusters.find((r) => r.cluster === 'theta')?.deadLetters).toBe(1);
    expect(status.clusters.find((r) => r.cluster === 'gamma')?.deadLetters).toBe(1);
    const opened = await openQueue(config);
    try {
      expect((await opened.queue.deadLetters()).map((d) => d.key?.cluster).sort()).toEqual(['gamma', 'theta']);
      expect(await opened.queue.redrive()).toBe(2);
    } finally {
      await opened.close();
    }
    expect(await pendingOf(2)).toContain('gamma/ConfigMap/ns/dead');
    expect(await pendingOf(0)).toContain('theta/ConfigMap/ns/dead');
  });

  it("keeps a cluster's API token bucket under its shard's queue", async () => {
    const budget = redisApiBudget({ config, logger: new Logger('test', 'error') });
    try {
      await budget.limiter('delta', { qps: 5, burst: 10 }).take();
      await budget.limiter('theta', { qps: 5, burst: 10 }).take();
    } finally {
      await budget.close();
    }
    expect(await redis.exists(redisKeys(redisKeyPrefix(names[2]!, PREFIX)).apiBucket('delta'))).toBe(1);
    expect(await redis.exists(redisKeys(redisKeyPrefix(names[0]!, PREFIX)).apiBucket('theta'))).toBe(1);
    expect(await redis.exists(redisKeys(redisKeyPrefix(names[0]!, PREFIX)).apiBucket('delta'))).toBe(0);
  });

  it("watches every shard's data-loss marker: the last shard's loss is seen at its next enqueue", async () => {
    const resyncs: string[] = [];
    const fleet = {
      forwarders: new Map([['delta', { resync: async () => (resyncs.push('delta'), 1) }]]),
    };
    // A check interval far longer than the test: only an enqueue that finds a marker gone makes a check.
    const watch = await resyncOnRedisLoss(
      fleet,
      { ...config, FLEETQ_REDIS_LOSS_CHECK_MS: 600_000 },
      new Logger('test', 'error'),
      { queue },
    );
    try {
      expect(watch.watchers).toHaveLength(3);
      for (const name of names) expect(await redis.exists(redisKeys(redisKeyPrefix(name, PREFIX)).epoch)).toBe(1);
      await queue.add(key('delta', 'before-loss'));
      expect(resyncs).toEqual([]);
      await redis.del(redisKeys(redisKeyPrefix(names[2]!, PREFIX)).epoch); // shard 3's data lost
      await queue.add(key('delta', 'after-loss'));
      await waitFor(async () => resyncs.length === 1, 5_000, 20, 'the resync after the loss');
    } finally {
      await watch.stop();
    }
  });
});
