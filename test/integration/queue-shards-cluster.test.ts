// Queue shards on a real Redis Cluster (test/helpers/redis-cluster.ts: three primaries, one replica each): with
// FLEETQ_QUEUE_SHARDS=3 the three queues' keys are in three slots served by three different primaries (CLUSTER
// KEYSLOT, then COUNTKEYSINSLOT on the primary serving it), and one consumer takes every key of clusters on all three
// shards, each cluster its equal share; `fleetq status` lists them. A shard's slot follows from its queue name, so the
// test picks a queue name whose three shard names hash onto the three primaries' slot ranges (an operator's name may
// put two shards on one primary: see docs/architecture.md "Queue shards").
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { collectStatus } from '../../shared/ops/status.js';
import { createQueue } from '../../shared/queue/index.js';
import { shardQueueNames } from '../../shared/queue/queue-shards.js';
import type { RedisClient } from '../../shared/queue/redis/redis-connection.js';
import { redisKeyPrefix, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { loadConfig, type FleetqConfig } from '../../shared/runtime/config.js';
import { queueConfig } from '../../shared/runtime/deps.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';

const PREFIX = 'fleetq';
// Cluster → shard for N = 3 (pinned in test/unit/queue/queue-shards.test.ts).
const SHARD_OF = { theta: 0, alpha: 1, delta: 2 } as const;
const CLUSTERS = Object.keys(SHARD_OF) as Array<keyof typeof SHARD_OF>;

const key = (cluster: string, name: string): ReconcileKey => ({ cluster, kind: 'ConfigMap', namespace: 'ns', name });
const pendingKey = (queueName: string): string => redisKeys(redisKeyPrefix(queueName, PREFIX)).pending;

describe('queue shards on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let client: RedisClient;
  let config: FleetqConfig;
  let queue: WorkQueue;
  let names: string[];
  /** The primary's client port serving each slot range. */
  let ranges: Array<{ from: number; to: number; port: number }>;

  const slotOf = async (k: string): Promise<number> => Number(await client.call('CLUSTER', 'KEYSLOT', k));
  const portOf = (slot: number): number => ranges.find((r) => slot >= r.from && slot <= r.to)!.port;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = cluster.client();
    const slots = (await client.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number, ...unknown[]]]>;
    ranges = slots.map(([from, to, [, port]]) => ({ from, to, port: Number(port) }));
    // The first name of a fixed sequence whose three shards sit on three primaries (about 1 name in 4.5 does).
    for (let i = 0; ; i++) {
      const candidate = shardQueueNames(`shards-${i}`, 3);
      const ports = await Promise.all(candidate.map(async (n) => portOf(await slotOf(pendingKey(n)))));
      if (new Set(ports).size === 3) {
        names = candidate;
        break;
      }
    }
    config = loadConfig({
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: names[0],
      FLEETQ_QUEUE_SHARDS: '3',
      FLEETQ_REDIS_PREFIX: PREFIX,
      REDIS_URL: cluster.url,
    });
    queue = await createQueue(queueConfig(config));
  });

  afterAll(async () => {
    await queue?.close();
    client?.disconnect();
    await cluster?.stop();
  });

  it("puts the shards' keys on three primaries and one consumer serves every cluster", async () => {
    for (const c of CLUSTERS) for (let i = 0; i < 4; i++) await queue.add(key(c, `k${i}`));

    const primaries = new Set<number>();
    for (const [shard, name] of names.entries()) {
      const slot = await slotOf(pendingKey(name));
      const port = portOf(slot);
      primaries.add(port);
      const node = new Redis({ host: '127.0.0.1', port });
      try {
        expect(Number(await node.call('CLUSTER', 'COUNTKEYSINSLOT', slot))).toBeGreaterThan(0);
        const clusters = new Set((await node.hkeys(pendingKey(name))).map((id) => id.split('/')[0]));
        expect([...clusters]).toEqual([CLUSTERS[shard]]);
      } finally {
        node.disconnect();
      }
    }
    expect(primaries.size).toBe(3);

    const status = await collectStatus(config, { clusters: [...CLUSTERS], env: {} });
    for (const c of CLUSTERS) expect(status.clusters.find((r) => r.cluster === c)?.depth).toBe(4);

    const served = new Map<string, number>();
    for (let i = 0; i < 12; i++) {
      const lease = await queue.get(1_000);
      if (!lease) throw new Error(`no key handed out at ${i}`);
      served.set(lease.key.cluster, (served.get(lease.key.cluster) ?? 0) + 1);
      await queue.done(lease, undefined, { thenGet: true });
      if (i === 5) for (const c of CLUSTERS) expect(served.get(c)).toBe(2); // an equal share half-way
    }
    for (const c of CLUSTERS) expect(served.get(c)).toBe(4);
    expect(await queue.depth()).toBe(0);
  });
});
