// Fencing that holds, against a real Redis queue and a real kube-apiserver (fleetq-1): a reconcile whose lease
// renewal is refused makes no further write, and a lease whose local deadline passed (a process paused past
// its lease) refuses to write, including a request already waiting in the client-side rate limiter.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Action } from '../../shared/kube/actions.js';
import { KubeRest } from '../../shared/kube/rest.js';
import { TokenBucket } from '../../shared/kube/token-bucket.js';
import { applyActions } from '../../shared/kube/writer.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import type { Lease } from '../../shared/queue/work-queue.js';
import { LeaseFence } from '../../shared/runtime/lease-fence.js';
import '../helpers/long-timeout.js';
import { REDIS_URL, redisClient, testQueueName } from '../helpers/queue/redis.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
const LEASE_MS = 1_000;

describe('lease fence (real Redis queue, real apiserver)', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let queue: RedisQueue;
  const redis = redisClient();

  beforeEach(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    queue = new RedisQueue({ name: testQueueName(), redis: REDIS_URL, leaseMs: LEASE_MS });
  });
  afterEach(async () => {
    await queue.close();
    await deleteQueueKeys(redis, queue.prefix);
    await ns.remove();
  });
  // The shared client is this file's last open handle: Jest runs in band on 2 cores and would wait on it.
  afterAll(async () => redis.quit());

  const configMaps = (n: number): Action[] =>
    Array.from({ length: n }, (_, i) => ({
      type: 'create',
      reason: 'SuccessfulCreate',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns.name, name: `cm-${i}` }, data: {} },
    }));
  const written = async () =>
    (await c.kc.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: ns.name })).items.filter((cm) =>
      cm.metadata?.name?.startsWith('cm-'),
    ).length;

  it('a refused renewal stops the reconcile before its next write', async () => {
    await queue.add({ cluster: CLUSTER, kind: 'ConfigMap', namespace: ns.name, name: 'x' });
    const lease = (await queue.get(2_000)) as Lease;
    const fence = new LeaseFence(queue, lease, { leaseMs: LEASE_MS });
    const rest = new KubeRest(CLUSTER, c.kc, new TokenBucket(100, 100));
    // The first batch (1 create) goes out; then the lease expires and another holder takes the key.
    await applyActions(rest, configMaps(1), fence);
    expect(await written()).toBe(1);
    const other = await queue.get(LEASE_MS * 4);
    expect(other?.id).toBe(lease.id);
    expect(await fence.renew()).toBe(false);
    await expect(applyActions(rest, configMaps(7), fence)).rejects.toMatchObject({ code: 'LeaseLost' });
    expect(await written()).toBe(1);
  });

  it('a lease whose local deadline passed refuses to write, even a request queued in the rate limiter', async () => {
    await queue.add({ cluster: CLUSTER, kind: 'ConfigMap', namespace: ns.name, name: 'x' });
    const lease = (await queue.get(2_000)) as Lease;
    const fence = new LeaseFence(queue, lease, { leaseMs: LEASE_MS });
    // 1 request per 1.5 s: batch 2's creates wait in the limiter past the lease's local deadline (the
    // queue itself would still renew: nobody took the key).
    const rest = new KubeRest(CLUSTER, c.kc, new TokenBucket(1 / 1.5, 1));
    expect(fence.held()).toBe(true);
    await expect(applyActions(rest, configMaps(3), fence)).rejects.toMatchObject({ code: 'LeaseLost' });
    expect(fence.lostReason).toMatch(/local lease deadline passed/);
    expect(await written()).toBe(1); // batch 1 only: batch 2's first create was stopped after its limiter wait
    const sent = rest.requestCount;
    await expect(applyActions(rest, configMaps(3), fence)).rejects.toMatchObject({ code: 'LeaseLost' });
    expect(rest.requestCount).toBe(sent);
  });
});
