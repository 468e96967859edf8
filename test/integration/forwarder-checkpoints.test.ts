// Checkpoints against a real kube-apiserver and Redis: a restarted forwarder resumes its watches from the
// stored resourceVersions (the one change arrives, nothing is relisted), and a checkpoint the apiserver no
// longer has history for (410 "too old resource version") makes it relist and enqueue every key.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { AppsV1Api, CoreV1Api, Watch } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { IDENTITY_CHECKPOINT, readClusterIdentity } from '../../shared/forwarder/cluster-identity.js';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { Logger } from '../../shared/runtime/logger.js';
import { keyString } from '../../shared/kube/key.js';
import type { Kind } from '../../shared/kube/kinds.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { redisClient } from '../helpers/queue/redis.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { RecordingQueue } from '../helpers/queue/recording-queue.js';

const CLUSTER = 'fleetq-1';
const OWNS: readonly Kind[] = ['Deployment', 'ConfigMap'];

describe('forwarder checkpoints', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let checkpoints: RedisCheckpointStore;
  const redis = redisClient();
  const queues: RecordingQueue[] = [];
  const running: Forwarder[] = [];
  const key = (kind: string, name: string): string => keyString({ cluster: CLUSTER, kind, namespace: ns.name, name });
  const inNamespace = (q: RecordingQueue): string[] => q.added.filter((k) => k.split('/')[2] === ns.name);

  function forwarder(registry = new Registry()): { f: Forwarder; q: RecordingQueue } {
    const q = new RecordingQueue();
    const f = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: OWNS,
      queue: q,
      checkpoints,
      logger: new Logger('test', 'error', () => undefined),
      registry,
      resyncMs: 0,
    });
    queues.push(q);
    running.push(f);
    return { f, q };
  }

  async function createDeployment(name: string): Promise<void> {
    await c.kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: ns.name,
      body: {
        metadata: { name },
        spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: kwokPodTemplate({ app: name }) },
      },
    });
  }

  const waitForKeys = (q: RecordingQueue, keys: readonly string[]): Promise<void> =>
    waitFor(async () => keys.every((k) => q.added.includes(k)), 30_000, 50, `keys ${keys.join(', ')}`);

  beforeEach(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    checkpoints = new RedisCheckpointStore(redis, `test-${randomUUID()}`);
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((f) => f.stop()));
    await Promise.all(queues.splice(0).map((q) => q.inner.close()));
    await checkpoints.clear();
    await ns.remove();
  });

  afterAll(async () => redis.quit());

  it('resumes from its checkpoints after a restart: the one change is enqueued, nothing is relisted', async () => {
    const first = forwarder();
    await first.f.start();
    await first.f.synced();
    for (const name of ['a', 'b', 'c']) await createDeployment(name);
    await waitForKeys(first.q, [key('Deployment', 'a'), key('Deployment', 'b'), key('Deployment', 'c')]);
    await first.f.stop();
    expect((await checkpoints.load(CLUSTER, first.f.resources)).size).toBe(first.f.resources.length);

    await createDeployment('while-down');

    const second = forwarder();
    await second.f.start();
    await waitForKeys(second.q, [key('Deployment', 'while-down')]);
    // A later change is a marker: once it is through, every earlier deployment event was handled too.
    await createDeployment('marker');
    await waitForKeys(second.q, [key('Deployment', 'marker')]);

    expect(inNamespace(second.q).sort()).toEqual([key('Deployment', 'marker'), key('Deployment', 'while-down')]);
    expect(second.f.stats.relists).toEqual({ initial: 0, expired: 0 });
  });

  /** The first thing a watch of deployments from `rv` delivers: an event type, or the ERROR status code. */
  async function firstWatchAnswer(rv: string): Promise<string> {
    return new Promise<string>((resolve) => {
      let answered = false;
      const answer = (a: string): void => {
        if (answered) return;
        answered = true;
        resolve(a);
      };
      void new Watch(c.kc)
        .watch(
          '/apis/apps/v1/deployments',
          { resourceVersion: rv, timeoutSeconds: 2 },
          (type: string, obj: { code?: number }) => answer(type === 'ERROR' ? `ERROR ${obj.code}` : type),
          (err: unknown) => answer(err ? `failed ${String(err)}` : 'ended'),
        )
        .then((ctl) => (answered ? ctl.abort() : undefined));
    });
  }

  /**
   * The watch cache keeps every deployment event since it was filled until it is full and its oldest event
   * is over 75 s old; only then is "1" too old. Generate deployment events until the apiserver says so.
   */
  async function churnUntilTooOld(): Promise<void> {
    const apps = c.kc.makeApiClient(AppsV1Api);
    let i = 0;
    await waitFor(
      async () => {
        for (let n = 0; n < 20; n++, i++) {
          await createDeployment(`churn-${i}`);
          await apps.deleteNamespacedDeployment({ namespace: ns.name, name: `churn-${i}` });
        }
        return (await firstWatchAnswer('1')) === 'ERROR 410';
      },
      240_000,
      250,
      'a watch of deployments from resourceVersion 1 to answer 410',
    );
  }

  it('relists and enqueues every key when its checkpoint has expired (410 Gone)', async () => {
    await churnUntilTooOld();
    const names = ['d0', 'd1', 'd2', 'd3', 'd4'];
    for (const name of names) await createDeployment(name);
    // Current checkpoints for everything but deployments, whose "1" is long out of the watch cache's window.
    const core = c.kc.makeApiClient(CoreV1Api);
    const apps = c.kc.makeApiClient(AppsV1Api);
    const now = async (list: Promise<{ metadata?: { resourceVersion?: string } }>): Promise<string> =>
      (await list).metadata?.resourceVersion ?? '';
    await checkpoints.save(
      CLUSTER,
      new Map([
        [IDENTITY_CHECKPOINT, await readClusterIdentity(c.kc)],
        ['deployments', '1'],
        ['replicasets', await now(apps.listReplicaSetForAllNamespaces({ limit: 1 }))],
        ['pods', await now(core.listPodForAllNamespaces({ limit: 1 }))],
        ['configmaps', await now(core.listConfigMapForAllNamespaces({ limit: 1 }))],
      ]),
    );

    const registry = new Registry();
    const { f, q } = forwarder(registry);
    await f.start();
    await waitForKeys(
      q,
      names.map((n) => key('Deployment', n)),
    );
    expect(f.stats.relists).toEqual({ initial: 0, expired: 1 });
    const relists = await registry.getSingleMetric('fleetq_forwarder_relists_total')?.get();
    expect(relists?.values).toEqual([
      expect.objectContaining({ value: 1, labels: { cluster: CLUSTER, resource: 'deployments', reason: 'expired' } }),
    ]);
    // Watching again from the relist's resourceVersion: new changes still arrive.
    await createDeployment('after-relist');
    await waitForKeys(q, [key('Deployment', 'after-relist')]);
  });
});
