// The forwarder against a real kube-apiserver (sandbox fleetq-1, where nothing else reconciles workloads):
// each kind of event yields the keys DESIGN.md "Event → keys" promises, on a real memory-driver queue.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { AppsV1Api, BatchV1Api, CoreV1Api, type V1ObjectMeta, type V1PodTemplateSpec } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { Logger } from '../../shared/runtime/logger.js';
import { MIRROR_OF_LABEL, MIRROR_TO_ANNOTATION } from '../../shared/controllers/configmap-mirror/watch-keys.js';
import { keyString } from '../../shared/kube/key.js';
import { ALL_KINDS } from '../../shared/kube/kinds.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { redisClient } from '../helpers/queue/redis.js';
import {
  kubectl,
  kwokPodTemplate,
  sandboxCluster,
  testNamespace,
  type TestCluster,
} from '../helpers/sandbox/clusters.js';
import { RecordingQueue } from '../helpers/queue/recording-queue.js';

const CLUSTER = 'fleetq-1';

/** The memory driver, recording every add: the assertions are about what the forwarder enqueued. */
describe('forwarder: events → keys', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let forwarder: Forwarder;
  let checkpoints: RedisCheckpointStore;
  const queue = new RecordingQueue();
  const redis = redisClient();
  const key = (kind: string, name: string): string => keyString({ cluster: CLUSTER, kind, namespace: ns.name, name });
  /** Waits until every key was added after position `from` of the record. */
  const expectKeys = (from: number, ...keys: string[]): Promise<void> =>
    waitFor(async () => keys.every((k) => queue.added.slice(from).includes(k)), 30_000, 50, `keys ${keys.join(', ')}`);

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    checkpoints = new RedisCheckpointStore(redis, `test-${randomUUID()}`);
    forwarder = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ALL_KINDS,
      queue,
      checkpoints,
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 0,
    });
    await forwarder.start();
    await forwarder.synced();
  });

  afterAll(async () => {
    await forwarder.stop();
    await checkpoints.clear();
    await redis.quit();
    await queue.inner.close();
    await ns.remove();
  });

  const apps = (): AppsV1Api => c.kc.makeApiClient(AppsV1Api);
  const core = (): CoreV1Api => c.kc.makeApiClient(CoreV1Api);
  const selector = (app: string) => ({ matchLabels: { app } });

  /** Pods are refused until the namespace's default ServiceAccount exists. */
  async function createPod(metadata: V1ObjectMeta): Promise<void> {
    await waitFor(
      async () => {
        await core().createNamespacedPod({ namespace: ns.name, body: { metadata, spec: kwokPodTemplate({}).spec } });
        return true;
      },
      30_000,
      200,
      `pod ${metadata.name} created`,
    );
  }

  it('a Deployment enqueues its own key', async () => {
    const from = queue.added.length;
    await apps().createNamespacedDeployment({
      namespace: ns.name,
      body: {
        metadata: { name: 'web' },
        spec: { replicas: 1, selector: selector('web'), template: kwokPodTemplate({ app: 'web' }) },
      },
    });
    await expectKeys(from, key('Deployment', 'web'));
  });

  it('a ReplicaSet enqueues itself and the Deployment that controls it', async () => {
    const deployment = await apps().readNamespacedDeployment({ namespace: ns.name, name: 'web' });
    const from = queue.added.length;
    await apps().createNamespacedReplicaSet({
      namespace: ns.name,
      body: {
        metadata: {
          name: 'web-1',
          labels: { app: 'web', hash: '1' },
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: 'web',
              uid: deployment.metadata?.uid ?? '',
              controller: true,
            },
          ],
        },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web', hash: '1' } },
          template: kwokPodTemplate({ app: 'web', hash: '1' }),
        },
      },
    });
    await expectKeys(from, key('ReplicaSet', 'web-1'), key('Deployment', 'web'));
  });

  it('a Pod controlled by a ReplicaSet enqueues the ReplicaSet', async () => {
    const rs = await apps().createNamespacedReplicaSet({
      namespace: ns.name,
      body: {
        metadata: { name: 'rs1' },
        spec: { replicas: 0, selector: selector('rs1'), template: kwokPodTemplate({ app: 'rs1' }) },
      },
    });
    await expectKeys(0, key('ReplicaSet', 'rs1'));
    const from = queue.added.length;
    await createPod({
      name: 'rs1-pod',
      labels: { app: 'rs1' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs1', uid: rs.metadata?.uid ?? '', controller: true },
      ],
    });
    await expectKeys(from, key('ReplicaSet', 'rs1'));
  });

  it('an orphan Pod enqueues the Deployment whose selector matches it', async () => {
    const from = queue.added.length;
    await createPod({ name: 'orphan', labels: { app: 'web' } });
    await expectKeys(from, key('Deployment', 'web'));
  });

  it('a Job enqueues itself and the CronJob that controls it', async () => {
    const batch = c.kc.makeApiClient(BatchV1Api);
    const base = kwokPodTemplate({});
    const template: V1PodTemplateSpec = { ...base, spec: { containers: [], ...base.spec, restartPolicy: 'Never' } };
    const cron = await batch.createNamespacedCronJob({
      namespace: ns.name,
      body: {
        metadata: { name: 'nightly' },
        spec: { schedule: '0 3 * * *', suspend: true, jobTemplate: { spec: { template } } },
      },
    });
    const from = queue.added.length;
    await batch.createNamespacedJob({
      namespace: ns.name,
      body: {
        metadata: {
          name: 'nightly-1',
          ownerReferences: [
            {
              apiVersion: 'batch/v1',
              kind: 'CronJob',
              name: 'nightly',
              uid: cron.metadata?.uid ?? '',
              controller: true,
            },
          ],
        },
        spec: { suspend: true, template },
      },
    });
    await expectKeys(from, key('Job', 'nightly-1'), key('CronJob', 'nightly'));
  });

  it('a Node change that changes where a DaemonSet fits enqueues that DaemonSet', async () => {
    // Node events wake only the DaemonSets whose fit on the node changed (unit: node-changes.test.ts): this one
    // selects nodes by a label of its own, and the label put on a node makes the node fit.
    const label = `fleetq-test-${ns.name.slice(5, 13)}`;
    const template = kwokPodTemplate({ app: 'agent' });
    await apps().createNamespacedDaemonSet({
      namespace: ns.name,
      body: {
        metadata: { name: 'agent' },
        spec: {
          selector: selector('agent'),
          template: { ...template, spec: { ...template.spec, nodeSelector: { [label]: '1' } } } as typeof template,
        },
      },
    });
    await expectKeys(0, key('DaemonSet', 'agent'));
    const from = queue.added.length;
    await kubectl(c.state, ['label', 'node', 'kwok-node-0', `${label}=1`]);
    try {
      await expectKeys(from, key('DaemonSet', 'agent'));
    } finally {
      await kubectl(c.state, ['label', 'node', 'kwok-node-0', `${label}-`]);
    }
  });

  it('a mirror-source ConfigMap enqueues itself, and a copy enqueues its source', async () => {
    const from = queue.added.length;
    await core().createNamespacedConfigMap({
      namespace: ns.name,
      body: {
        metadata: { name: 'app.config', annotations: { [MIRROR_TO_ANNOTATION]: 'elsewhere' } },
        data: { k: 'v' },
      },
    });
    await expectKeys(from, key('ConfigMap', 'app.config'));
    const copyFrom = queue.added.length;
    await core().createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'copy', labels: { [MIRROR_OF_LABEL]: `${ns.name}.app.config` } }, data: { k: 'v' } },
    });
    await expectKeys(copyFrom, key('ConfigMap', 'app.config'));
    expect(queue.added.slice(copyFrom)).not.toContain(key('ConfigMap', 'copy'));
  });

  it('a resync enqueues every owned object of the cluster again', async () => {
    const from = queue.added.length;
    const count = await forwarder.resync();
    expect(count).toBeGreaterThanOrEqual(7);
    await expectKeys(
      from,
      key('Deployment', 'web'),
      key('ReplicaSet', 'web-1'),
      key('ReplicaSet', 'rs1'),
      key('Job', 'nightly-1'),
      key('CronJob', 'nightly'),
      key('DaemonSet', 'agent'),
      key('ConfigMap', 'app.config'),
    );
  });

  it('resyncs on its own every resyncMs', async () => {
    const timed = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['Deployment'],
      queue,
      checkpoints,
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 300,
    });
    await timed.start();
    try {
      const from = queue.added.length;
      await waitFor(async () => timed.stats.resyncs >= 2, 30_000, 50, 'two periodic resyncs');
      expect(queue.added.slice(from)).toContain(key('Deployment', 'web'));
    } finally {
      await timed.stop();
    }
  });

  it('checkpoints what it handled in Redis', async () => {
    const stored = await checkpoints.load(CLUSTER, forwarder.resources);
    expect([...stored.keys()].sort()).toEqual([...forwarder.resources].sort());
    expect(forwarder.stats.relists.initial).toBe(forwarder.resources.length);
  });
});
