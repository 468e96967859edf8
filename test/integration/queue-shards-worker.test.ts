// Queue shards with the worker itself (makeDeps and WorkerLoop as `fleetq worker` builds them, in this process, one
// slot): FLEETQ_QUEUE_SHARDS=3 on real Redis, three registry clusters on three shards (theta → 0, alpha → 1,
// delta → 2; all three are the sandbox cluster fleetq-2 under other names), ConfigMap keys of each reconciled against
// the real apiserver in the order of a fair rotation, and `fleetq status` counting each cluster's reconciles.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { collectStatus } from '../../shared/ops/status.js';
import { shardIndexOf, shardQueueNames } from '../../shared/queue/queue-shards.js';
import { deleteQueueKeys, redisKeyPrefix } from '../../shared/queue/redis/redis-keys.js';
import { loadConfig, type FleetqConfig } from '../../shared/runtime/config.js';
import { closeDeps, makeDeps, registryFrom, type Deps } from '../../shared/runtime/deps.js';
import { WorkerLoop } from '../../shared/runtime/loop.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { REDIS_URL, testQueueName } from '../helpers/queue/redis.js';
import { sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

const PREFIX = 'fleetq';
const CLUSTERS = ['theta', 'alpha', 'delta'] as const;
const KEYS_EACH = 6;

describe('queue shards: one worker', () => {
  const queueName = testQueueName().slice(0, 40);
  let config: FleetqConfig;
  let deps: Deps;
  let ns: { name: string; remove: () => Promise<void> };
  let redis: Redis;
  const order: string[] = [];

  beforeAll(async () => {
    const c = await sandboxCluster('fleetq-2');
    ns = await testNamespace(c.kc);
    redis = new Redis(REDIS_URL);
    const registry = writeRegistry(
      CLUSTERS.map((name) => ({
        name,
        kubeconfig: c.state.kubeconfig,
        owns: ['ConfigMap'],
        mirror: { allowedNamespaces: ['test-*'] },
        limits: { qps: 50, burst: 100 },
      })),
    );
    config = loadConfig({
      FLEETQ_REGISTRY: registry,
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queueName,
      FLEETQ_QUEUE_SHARDS: '3',
      FLEETQ_REDIS_PREFIX: PREFIX,
      REDIS_URL,
      FLEETQ_READS: 'live',
      LOG_LEVEL: 'error',
    });
    const base = await makeDeps(config, { service: 'test-worker', registry: registryFrom(config) });
    deps = {
      ...base,
      onOutcome: (e) => {
        if (e.outcome === 'done') order.push(e.cluster);
        base.onOutcome?.(e);
      },
    };
  });

  afterAll(async () => {
    if (deps) await closeDeps(deps);
    for (const name of shardQueueNames(queueName, 3)) await deleteQueueKeys(redis, redisKeyPrefix(name, PREFIX));
    redis?.disconnect();
    await ns?.remove();
  });

  it('reconciles the keys of clusters on three shards in a fair rotation, and status counts them', async () => {
    expect(CLUSTERS.map((c) => shardIndexOf(c, 3))).toEqual([0, 1, 2]);
    // Keys of ConfigMaps that do not exist: each reconcile reads the apiserver, finds nothing to do, and is done.
    for (const cluster of CLUSTERS)
      for (let i = 0; i < KEYS_EACH; i++)
        await deps.queue.add({ cluster, kind: 'ConfigMap', namespace: ns.name, name: `absent-${i}` });
    const loop = new WorkerLoop(deps, { concurrency: 1, pollMs: 200 });
    loop.start();
    try {
      await waitFor(async () => order.length >= CLUSTERS.length * KEYS_EACH, 60_000, 50, 'every key reconciled');
    } finally {
      await loop.stop();
    }
    // A fair rotation: in every window of three runs while all had keys, each cluster at most twice.
    for (let i = 0; i + 3 <= CLUSTERS.length * (KEYS_EACH - 1); i++) {
      const window = order.slice(i, i + 3);
      for (const cluster of CLUSTERS) expect(window.filter((c) => c === cluster).length).toBeLessThanOrEqual(2);
    }
    for (const cluster of CLUSTERS) expect(order.filter((c) => c === cluster)).toHaveLength(KEYS_EACH);

    // The reconcile counts reach Redis in the rate counter's next write (reconcile-rates.ts).
    const rowsOf = async () => {
      const status = await collectStatus(config, { clusters: [...CLUSTERS], env: {} });
      return CLUSTERS.map((cluster) => status.clusters.find((r) => r.cluster === cluster));
    };
    await waitFor(
      async () => (await rowsOf()).every((row) => (row?.reconcilesPerSec ?? 0) > 0),
      30_000,
      200,
      "every cluster's reconciles in status",
    );
    for (const row of await rowsOf()) expect(row).toMatchObject({ depth: 0, deadLetters: 0, errorsPerSec: 0 });
  });
});
