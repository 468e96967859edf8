// The whole pipeline on a sandbox cluster: forwarder → Redis queue (redis driver) → two worker
// processes → the ConfigMap-mirror controller. Also: a worker killed mid-reconcile loses nothing, and
// terminal bad input (a malformed message, an unknown cluster) is dead-lettered and an unreachable cluster's
// key is retried without end, while the worker keeps going.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { FleetForwarder } from '../../shared/forwarder/fleet-forwarder.js';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { deleteQueueKeys, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { MIRROR_TO } from '../../shared/controllers/configmap-mirror/types.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { readConfigMap, unreachableCluster, updateConfigMap, writeRegistry } from '../helpers/pipeline/fleet.js';
import { jsonLines, spawnTsx, type Proc } from '../helpers/processes.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLUSTER = 'fleetq-2';

type Ns = { name: string; remove: () => Promise<void> };

function workerEnv(registry: string, queue: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    FLEETQ_REGISTRY: registry,
    FLEETQ_DRIVER: 'redis',
    FLEETQ_QUEUE: queue,
    REDIS_URL,
    FLEETQ_LEASE_MS: '3000',
    FLEETQ_CONCURRENCY: '4',
    ...extra,
  };
}

describe('pipeline on the redis driver', () => {
  let c: TestCluster;
  let src: Ns, dstA: Ns, dstB: Ns;
  let redis: Redis;
  const queues: RedisQueue[] = [];
  const procs: Proc[] = [];
  let forwarder: FleetForwarder | undefined;

  /** Each test has a queue of its own, so no worker of one test takes another's keys. */
  function newQueue(): { name: string; queue: RedisQueue } {
    const name = `e2e-${randomUUID().slice(0, 8)}`;
    const queue = new RedisQueue({ name, redis: REDIS_URL, leaseMs: 3000 });
    queues.push(queue);
    return { name, queue };
  }

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    [src, dstA, dstB] = await Promise.all([testNamespace(c.kc), testNamespace(c.kc), testNamespace(c.kc)]);
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await forwarder?.stop();
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    for (const q of queues) {
      await q.close();
      await deleteQueueKeys(redis, q.prefix);
    }
    redis.disconnect();
    await Promise.all([src, dstA, dstB].map((n) => n?.remove()));
  });

  it('converges the mirror controller through the forwarder and two worker processes', async () => {
    const registry = writeRegistry([
      {
        name: CLUSTER,
        kubeconfig: c.state.kubeconfig,
        owns: ['ConfigMap'],
        mirror: { allowedNamespaces: ['test-*'] },
        limits: { qps: 100, burst: 200 },
      },
    ]);
    const { name: queueName, queue } = newQueue();
    forwarder = new FleetForwarder(new ClusterRegistry(loadRegistry(registry)), {
      queue,
      checkpoints: new MemoryCheckpointStore(),
      resyncMs: 0,
    });
    await forwarder.start();
    const workers = [1, 2].map((i) => spawnTsx('functions/worker.ts', workerEnv(registry, queueName), `worker-${i}`));
    procs.push(...workers);
    await Promise.all(workers.map((w) => w.waitForLine(/"Worker started"/)));

    const core = c.kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: src.name,
      body: {
        metadata: { name: 'settings', annotations: { [MIRROR_TO]: `${dstA.name},${dstB.name}` } },
        data: { color: 'blue' },
      },
    });
    const copiesAre = async (want: Record<string, string | null>): Promise<boolean> => {
      for (const [ns, color] of Object.entries(want)) {
        const cm = await readConfigMap(c.kc, ns, 'settings');
        if ((cm?.data?.color ?? null) !== color) return false;
      }
      return true;
    };
    await waitFor(
      () => copiesAre({ [dstA.name]: 'blue', [dstB.name]: 'blue' }),
      60_000,
      200,
      'copies in both namespaces',
    );

    await updateConfigMap(c.kc, src.name, 'settings', (cm) => ({ ...cm, data: { color: 'green' } }));
    await waitFor(
      () => copiesAre({ [dstA.name]: 'green', [dstB.name]: 'green' }),
      60_000,
      200,
      'copies updated to green',
    );

    await updateConfigMap(c.kc, src.name, 'settings', (cm) => ({
      ...cm,
      metadata: { ...cm.metadata, annotations: { [MIRROR_TO]: dstA.name } },
    }));
    await waitFor(
      () => copiesAre({ [dstA.name]: 'green', [dstB.name]: null }),
      60_000,
      200,
      'the copy in the dropped namespace deleted',
    );

    await core.deleteNamespacedConfigMap({ namespace: src.name, name: 'settings' });
    await waitFor(
      () => copiesAre({ [dstA.name]: null, [dstB.name]: null }),
      60_000,
      200,
      'every copy deleted with the source',
    );

    const planned = workers.map(
      (w) => jsonLines(w).filter((l) => l.message === 'Plan computed' && l.name === 'settings').length,
    );
    expect(planned.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(4);
    for (const w of workers) expect(w.child.exitCode).toBeNull();
    await Promise.all(workers.map(async (w) => expect(await w.stop('SIGTERM')).toBe(0)));
  });

  it('reconciles a key whose worker was killed mid-reconcile, after its lease expires', async () => {
    // `slow` is the same apiserver registered with 0.5 requests/s, so one reconcile takes seconds.
    const { name: queueName, queue } = newQueue();
    const registry = writeRegistry([
      {
        name: 'slow',
        kubeconfig: c.state.kubeconfig,
        owns: ['ConfigMap'],
        mirror: { allowedNamespaces: ['test-*'] },
        limits: { qps: 0.5, burst: 1 },
      },
    ]);
    const core = c.kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: src.name,
      body: { metadata: { name: 'slow', annotations: { [MIRROR_TO]: dstB.name } }, data: { v: '1' } },
    });
    const victim = spawnTsx('functions/worker.ts', workerEnv(registry, queueName, { LOG_LEVEL: 'debug' }), 'victim');
    procs.push(victim);
    await victim.waitForLine(/"Worker started"/);
    await queue.add({ cluster: 'slow', kind: 'ConfigMap', namespace: src.name, name: 'slow' });
    await victim.waitForLine(/"Reconcile started".*"name":"slow"/);
    expect(await victim.stop('SIGKILL')).toBeNull();
    expect(victim.lines.some((l) => l.includes('"Plan computed"'))).toBe(false);
    expect(await readConfigMap(c.kc, dstB.name, 'slow')).toBeNull();

    const heir = spawnTsx('functions/worker.ts', workerEnv(registry, queueName, { LOG_LEVEL: 'debug' }), 'heir');
    procs.push(heir);
    await waitFor(
      async () => (await readConfigMap(c.kc, dstB.name, 'slow'))?.data?.v === '1',
      90_000,
      250,
      'the copy made by the second worker',
    );
    expect(heir.lines.some((l) => l.includes('"Plan computed"') && l.includes('"name":"slow"'))).toBe(true);
    await heir.stop('SIGTERM');
  });

  it('dead-letters a malformed message and an unknown cluster, retries an unreachable one without end, and keeps going', async () => {
    const registry = writeRegistry([
      { name: CLUSTER, kubeconfig: c.state.kubeconfig, owns: ['ConfigMap'], mirror: { allowedNamespaces: ['test-*'] } },
      await unreachableCluster('gone'),
    ]);
    const { name, queue: q } = newQueue();
    // An unknown cluster's key waits for a registry reload first (FLEETQ_UNKNOWN_CLUSTER_WAIT_MS); 1 s here.
    const worker = spawnTsx(
      'functions/worker.ts',
      workerEnv(registry, name, { FLEETQ_UNKNOWN_CLUSTER_WAIT_MS: '1000' }),
      'dl-worker',
    );
    procs.push(worker);
    {
      await worker.waitForLine(/"Worker started"/);
      const keys = redisKeys(q.prefix);
      await redis.hset(keys.pending, 'this is not a key', Date.now());
      await redis.rpush(keys.ready('corrupt'), 'this is not a key');
      await redis.rpush(keys.rotation, 'corrupt');
      await q.add({ cluster: 'nowhere', kind: 'ConfigMap', namespace: src.name, name: 'x' });
      await q.add({ cluster: 'gone', kind: 'ConfigMap', namespace: src.name, name: 'y' });
      // The unreachable cluster's key fails again and again (transient: retried without end, never dead-lettered).
      const goneFailures = (): number[] =>
        jsonLines(worker)
          .filter((l) => l.message === 'Reconcile failed; retrying' && l.cluster === 'gone')
          .map((l) => Number(l.failures));
      await waitFor(async () => goneFailures().length >= 4, 90_000, 200, 'four failed runs of the unreachable key');
      await waitFor(async () => (await q.deadLetters()).length >= 2, 60_000, 200, 'two dead letters');
      const letters = await q.deadLetters();
      expect(letters).toHaveLength(2);
      expect(letters).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            key: null,
            raw: 'this is not a key',
            reason: expect.stringMatching(/malformed reconcile key/),
          }),
          expect.objectContaining({
            key: expect.objectContaining({ cluster: 'nowhere' }),
            reason: expect.stringMatching(/UnknownCluster: .*nowhere/),
          }),
        ]),
      );
      // Counted failures, one more each run, past the old limit of 3; the key waits out its backoff.
      expect(goneFailures().slice(0, 4)).toEqual([1, 2, 3, 4]);
      // The gauge counts a key between its runs (not while it is held): wait for such a moment, with a deadline.
      await waitFor(
        async () => (await q.backoffBreakdown()).some((b) => b.cluster === 'gone' && b.keys === 1),
        30_000,
        50,
        'the unreachable key in the keys-in-backoff gauge',
      );
      const logged = jsonLines(worker).filter((l) => String(l.message).includes('dead-lettered'));
      expect(logged.map((l) => l.cluster)).toContain('nowhere');
      expect(logged.map((l) => l.cluster)).not.toContain('gone');
      expect(logged).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            level: 'error',
            message: 'Malformed message dead-lettered',
            body: 'this is not a key',
          }),
        ]),
      );

      // The worker keeps going: a good key after all that is reconciled.
      await c.kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({
        namespace: src.name,
        body: { metadata: { name: 'after', annotations: { [MIRROR_TO]: dstA.name } }, data: { ok: 'yes' } },
      });
      await q.add({ cluster: CLUSTER, kind: 'ConfigMap', namespace: src.name, name: 'after' });
      await waitFor(
        async () => (await readConfigMap(c.kc, dstA.name, 'after'))?.data?.ok === 'yes',
        60_000,
        200,
        'the good key reconciled',
      );
      expect(worker.child.exitCode).toBeNull();
    }
  });
});
