// Checkpoints bound to the cluster's identity, against a real kube-apiserver (sandbox fleetq-1) and Redis: a
// checkpoint store written for another incarnation of the cluster (another kube-system uid, resourceVersions far
// ahead, which the apiserver answers with silence) is discarded; the forwarder lists and enqueues every key, and
// later events arrive.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { BatchV1Api, CoreV1Api, type V1PodTemplateSpec } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { Logger } from '../../shared/runtime/logger.js';
import { keyString } from '../../shared/kube/key.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { redisClient } from '../helpers/queue/redis.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { RecordingQueue } from '../helpers/queue/recording-queue.js';

const CLUSTER = 'fleetq-1';
/** The checkpoint entry naming the cluster's identity (the uid of kube-system). */
const IDENTITY = '@identity';
const FAR_AHEAD = '999999999';

describe('forwarder checkpoints bound to the cluster identity', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let checkpoints: RedisCheckpointStore;
  let forwarder: Forwarder | undefined;
  const queue = new RecordingQueue();
  const redis = redisClient();
  const logs: Array<Record<string, unknown>> = [];
  const key = (name: string): string => keyString({ cluster: CLUSTER, kind: 'CronJob', namespace: ns.name, name });
  const waitForKeys = (names: readonly string[]): Promise<void> =>
    waitFor(async () => names.every((n) => queue.added.includes(key(n))), 30_000, 50, `keys ${names.join(', ')}`);

  async function createCronJob(name: string): Promise<void> {
    const base = kwokPodTemplate({});
    const template: V1PodTemplateSpec = { ...base, spec: { containers: [], ...base.spec, restartPolicy: 'Never' } };
    await c.kc.makeApiClient(BatchV1Api).createNamespacedCronJob({
      namespace: ns.name,
      body: { metadata: { name }, spec: { schedule: '0 3 * * *', suspend: true, jobTemplate: { spec: { template } } } },
    });
  }

  beforeEach(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    checkpoints = new RedisCheckpointStore(redis, `test-${randomUUID()}`);
  });

  afterEach(async () => {
    await forwarder?.stop();
    await checkpoints.clear();
    await ns.remove();
  });

  afterAll(async () => {
    await queue.inner.close();
    await redis.quit();
  });

  it('discards checkpoints of another cluster incarnation, relists, enqueues every key, and keeps watching', async () => {
    for (const n of ['a', 'b', 'c']) await createCronJob(n);
    await checkpoints.save(
      CLUSTER,
      new Map([
        [IDENTITY, 'uid-of-a-cluster-that-is-gone'],
        ['cronjobs', FAR_AHEAD],
        ['jobs', FAR_AHEAD],
      ]),
    );
    forwarder = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['CronJob'],
      queue,
      checkpoints,
      logger: new Logger('test', 'warn', (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
      registry: new Registry(),
      resyncMs: 0,
    });
    await forwarder.start();
    await waitForKeys(['a', 'b', 'c']);
    // Jobs are listed after the CronJobs (workloads first): both initial lists have run once it has synced.
    await forwarder.synced();
    expect(forwarder.stats.relists.initial).toBe(2);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'Cluster identity changed; discarding checkpoints',
        storedIdentity: 'uid-of-a-cluster-that-is-gone',
      }),
    );
    await createCronJob('later');
    await waitForKeys(['later']);

    const uid = (await c.kc.makeApiClient(CoreV1Api).readNamespace({ name: 'kube-system' })).metadata?.uid;
    await forwarder.stop();
    const stored = await checkpoints.load(CLUSTER, [IDENTITY, 'cronjobs', 'jobs']);
    expect(stored.get(IDENTITY)).toBe(uid);
    expect(stored.get('cronjobs')).not.toBe(FAR_AHEAD);
  });

  it('discards checkpoints ahead of the cluster under the same identity (etcd restored from a backup)', async () => {
    for (const n of ['a', 'b']) await createCronJob(n);
    const uid = (await c.kc.makeApiClient(CoreV1Api).readNamespace({ name: 'kube-system' })).metadata?.uid ?? '';
    await checkpoints.save(
      CLUSTER,
      new Map([
        [IDENTITY, uid],
        ['cronjobs', FAR_AHEAD],
        ['jobs', FAR_AHEAD],
      ]),
    );
    forwarder = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['CronJob'],
      queue,
      checkpoints,
      logger: new Logger('test', 'warn', (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
      registry: new Registry(),
      resyncMs: 0,
    });
    await forwarder.start();
    await waitForKeys(['a', 'b']);
    // Jobs are listed after the CronJobs (workloads first): both initial lists have run once it has synced.
    await forwarder.synced();
    expect(forwarder.stats.relists.initial).toBe(2);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'Checkpoints ahead of the cluster (etcd restored from a backup?); discarding checkpoints',
      }),
    );
    await createCronJob('later');
    await waitForKeys(['later']);
  });

  it('resumes without a relist when the identity matches', async () => {
    const first = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['CronJob'],
      queue,
      checkpoints,
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 0,
    });
    await first.start();
    await first.synced();
    await first.stop();
    await createCronJob('while-down');
    forwarder = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['CronJob'],
      queue,
      checkpoints,
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 0,
    });
    await forwarder.start();
    await waitForKeys(['while-down']);
    expect(forwarder.stats.relists).toEqual({ initial: 0, expired: 0 });
  });
});
