// A pooled forwarder fills the shared cache through its lease (forwarder-pool.ts → fencedCacheStore): on the
// sandbox cluster fleetq-1, its relist lands in Redis with a MAC per entry (the queue's signing secret), and once
// another holder's value is in the lease key, its next cache write (a Pod created) is refused by Redis, counted
// as fleetq_forwarder_fence_refusals_total{operation="cache",where="redis"}, and the Pod is not in the cache.
import { afterAll, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { index } from '../../shared/cache/cache-entry.js';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { ForwarderPool } from '../../shared/forwarder/forwarder-pool.js';
import { forwarderLeaseKey } from '../../shared/forwarder/forwarder-keys.js';
import { RegistryReload } from '../../shared/runtime/registry-reload.js';
import { ClusterCaches } from '../../shared/runtime/cluster-caches.js';
import { Logger } from '../../shared/runtime/logger.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { redisClient, testQueueName } from '../helpers/queue/redis.js';
import { KWOK_TOLERATION, sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

const redis = redisClient();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await redis.quit();
});

const CLUSTER = 'fleetq-1';
const quiet = new Logger('test-pool-cache', 'error', () => undefined);

it("a pooled forwarder writes the cache with MACs behind its lease, and nothing once the lease is another's", async () => {
  const c = await sandboxCluster(CLUSTER);
  const ns = await testNamespace(c.kc);
  const name = testQueueName();
  const queue = new RedisQueue({ name, redis });
  const checkpoints = new RedisCheckpointStore(redis, name);
  const dir = await mkdtemp(join(tmpdir(), 'fleetq-pool-cache-'));
  const path = join(dir, 'fleet.yaml');
  await writeFile(
    path,
    `clusters:\n  - name: ${CLUSTER}\n    kubeconfig: ${c.state.kubeconfig}\n    owns: [ReplicaSet]\n`,
  );
  const registry = new ClusterRegistry(loadRegistry(path), () => undefined);
  const metrics = new Registry();
  const caches = new ClusterCaches({
    registry,
    redis,
    redisPrefix: name,
    signingSecrets: ['pool-cache-test-secret-0123456789'],
    logger: quiet,
    metrics,
  });
  const pool = new ForwarderPool({
    redis,
    queuePrefix: queue.prefix,
    queue,
    checkpoints,
    registry: new RegistryReload(path, registry, quiet),
    leaseMs: 10_000,
    holder: 'A',
    logger: quiet,
    metrics,
    cacheFor: (cluster) => caches.storeFor(cluster),
    forwarder: { resyncMs: 0 },
  });
  const store = caches.storeFor(CLUSTER);
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    () => ns.remove(),
    () => deleteQueueKeys(redis, queue.prefix),
    () => deleteQueueKeys(redis, `${name}:{cache:${CLUSTER}}:`),
    () => checkpoints.clear(),
    () => queue.close(),
    () => pool.stop(),
  );
  const core = c.kc.makeApiClient(CoreV1Api);
  const createPod = (podName: string) =>
    core.createNamespacedPod({
      namespace: ns.name,
      body: {
        metadata: { name: podName },
        spec: { containers: [{ name: 'c', image: 'fake' }], tolerations: [KWOK_TOLERATION] },
      },
    });
  await createPod('before');
  await pool.start();
  await waitFor(async () => (await store.watermark('Pod')) !== undefined, 30_000, 100, 'the Pod relist in the cache');
  expect((await store.get(`Pod/${ns.name}/before`))?.metadata?.name).toBe('before');
  expect(await redis.hget(`${name}:{cache:${CLUSTER}}:e`, `Pod/${ns.name}/before`)).toMatch(/^[0-9a-f]{64}\{/);

  // Another holder's value in the lease key (A's local deadline has not passed: only Redis can refuse A).
  await redis.set(forwarderLeaseKey(CLUSTER, queue.prefix), '999|thief', 'PX', 60_000);
  await createPod('after-takeover');
  const refusals = async () =>
    (await metrics.getSingleMetric('fleetq_forwarder_fence_refusals_total')?.get())?.values.find(
      (v) => v.labels.operation === 'cache' && v.labels.where === 'redis',
    )?.value ?? 0;
  await waitFor(async () => (await refusals()) > 0, 20_000, 100, 'a cache write refused by the fence');
  expect((await store.members(index.namespace('Pod', ns.name))).map((p) => p.metadata?.name)).toEqual(['before']);
});
