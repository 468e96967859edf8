// A worker re-reads its registry while it runs (shared/runtime/registry-watch.ts): a key of a cluster added to
// the registry file after the worker started is reconciled without a restart, and waits (retried with backoff)
// instead of being dead-lettered meanwhile, and a cluster removed from it leaves no series on the worker's /metrics;
// past FLEETQ_UNKNOWN_CLUSTER_WAIT_MS it is dead-lettered with a
// message that says what to do. The worker is the real runtime (makeDeps + WorkerLoop, the Redis driver), the
// cluster is the sandbox's fleetq-2 (no workload controllers of its own).
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../../infra/sandbox/process.js';
import { keyString } from '../../shared/kube/key.js';
import { deleteQueueKeys, redisKeyPrefix } from '../../shared/queue/redis/redis-keys.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { closeDeps, makeDeps, type Deps } from '../../shared/runtime/deps.js';
import { WorkerLoop } from '../../shared/runtime/loop.js';
import { REDIS_URL, redisClient, testQueueName } from '../helpers/queue/redis.js';
import { kwokPodTemplate, sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

const redis = redisClient();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  await redis.quit();
});

const entry = (name: string, kubeconfig: string) => `  - name: ${name}\n    kubeconfig: ${kubeconfig}\n`;

async function startWorker(
  env: Record<string, string>,
): Promise<{ deps: Deps; queue: WorkQueue; prefix: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'fleetq-worker-reg-'));
  const path = join(dir, 'fleet.yaml');
  await writeFile(path, env.REGISTRY ?? '');
  const name = testQueueName();
  const prefix = redisKeyPrefix(name, 'fleetq');
  const config = loadConfig({
    FLEETQ_REGISTRY: path,
    FLEETQ_DRIVER: 'redis',
    REDIS_URL,
    FLEETQ_QUEUE: name,
    FLEETQ_READS: 'live',
    FLEETQ_API_BUDGET: 'process',
    FLEETQ_REGISTRY_CHECK_MS: '200',
    LOG_LEVEL: 'error',
    ...env,
  });
  const deps = await makeDeps(config, { service: 'worker-registry-it' });
  const queue = deps.queue;
  const loop = new WorkerLoop(deps, { concurrency: 1, pollMs: 200 });
  loop.start();
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    () => deleteQueueKeys(redis, prefix),
    () => closeDeps(deps),
    () => loop.stop(),
  );
  return { deps, queue, prefix, path };
}

describe('worker registry reload', () => {
  it('reconciles a key of a cluster added to the registry after the worker started, without dead-lettering it', async () => {
    const one = await sandboxCluster('fleetq-1');
    const two = await sandboxCluster('fleetq-2');
    const ns = await testNamespace(two.kc);
    cleanups.push(() => ns.remove());
    const head = 'defaults:\n  owns: [ReplicaSet]\nclusters:\n';
    const { deps, queue, prefix, path } = await startWorker({
      REGISTRY: head + entry('fleetq-1', one.state.kubeconfig),
    });

    const labels = { app: 'reg-reload' };
    await two.kc.makeApiClient(AppsV1Api).createNamespacedReplicaSet({
      namespace: ns.name,
      body: {
        metadata: { name: 'web' },
        spec: { replicas: 1, selector: { matchLabels: labels }, template: kwokPodTemplate(labels) },
      },
    });
    const key = { cluster: 'fleetq-2', kind: 'ReplicaSet', namespace: ns.name, name: 'web' };
    await queue.add(key);
    // The worker has seen the key (twice) while fleetq-2 was not in its registry: it waits, it is not parked.
    await waitFor(
      async () =>
        Number(await redis.hget(`${prefix}fail`, keyString(key))) >= 2 || (await queue.deadLetters()).length > 0,
      15_000,
      50,
      'the worker to handle the key of the unknown cluster',
    );
    expect(await queue.deadLetters()).toEqual([]);

    // fleetq-2 joins the registry file: the same worker reconciles the key (the ReplicaSet gets its pod).
    await writeFile(path, head + entry('fleetq-1', one.state.kubeconfig) + entry('fleetq-2', two.state.kubeconfig));
    const core = two.kc.makeApiClient(CoreV1Api);
    await waitFor(
      async () => (await core.listNamespacedPod({ namespace: ns.name })).items.length === 1,
      20_000,
      100,
      'the pod of the ReplicaSet in the added cluster',
    );
    expect(await queue.deadLetters()).toEqual([]);

    // fleetq-2 leaves the registry file: the worker's /metrics keeps none of its series.
    const scrape = () => deps.metrics.registry.metrics();
    await waitFor(async () => (await scrape()).includes('cluster="fleetq-2"'), 10_000, 100, "fleetq-2's series");
    await writeFile(path, head + entry('fleetq-1', one.state.kubeconfig));
    await waitFor(
      async () => !(await scrape()).includes('cluster="fleetq-2"'),
      10_000,
      100,
      "fleetq-2's series dropped from the worker's /metrics",
    );
  }, 60_000);

  it('dead-letters a key whose cluster stays unknown past the wait, saying what to do', async () => {
    const one = await sandboxCluster('fleetq-1');
    const { queue } = await startWorker({
      REGISTRY: 'clusters:\n' + entry('fleetq-1', one.state.kubeconfig),
      FLEETQ_UNKNOWN_CLUSTER_WAIT_MS: '300',
    });
    await queue.add({ cluster: 'nowhere', kind: 'ReplicaSet', namespace: 'ns', name: 'x' });
    await waitFor(async () => (await queue.deadLetters()).length === 1, 15_000, 50, 'the key dead-lettered');
    const [letter] = await queue.deadLetters();
    expect(letter?.reason).toMatch(/^UnknownCluster: cluster nowhere is not in the registry .*\(waited about \d+ s\)/);
    expect(letter?.reason).toMatch(/add it to the registry .*fleetq dlq redrive --cluster nowhere/);
    // It waited first: retried with its backoff (at least 5 + 10 + … ms ≥ 300 ms) before it was parked.
    expect(letter?.failures).toBeGreaterThanOrEqual(6);
  }, 30_000);
});
