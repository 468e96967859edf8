// Data never wedges the forwarder, against a real kube-apiserver (sandbox fleetq-1): objects anyone can create
// that yield an invalid key (a Pod whose controller owner is named "Not A Name", a ConfigMap labelled
// fleetq.dev/mirror-of=a._b) are logged, counted and parked with queue.parkInvalid, and the same watch goes on
// to deliver the next good event; a resync with them present completes. And a burst of 300 events into a slow
// queue never holds more than the buffer bound (20) unhandled, while every key still arrives.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { Logger } from '../../shared/runtime/logger.js';
import { MIRROR_OF_LABEL, MIRROR_TO_ANNOTATION } from '../../shared/controllers/configmap-mirror/watch-keys.js';
import { keyString, type ReconcileKey } from '../../shared/kube/key.js';
import type { Kind } from '../../shared/kube/kinds.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { RecordingQueue } from '../helpers/queue/recording-queue.js';

const CLUSTER = 'fleetq-1';

describe('forwarder with bad data and bursts', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  const running: Forwarder[] = [];
  const queues: RecordingQueue[] = [];
  const key = (kind: string, name: string, namespace = ns.name): string =>
    keyString({ cluster: CLUSTER, kind, namespace, name });
  const core = (): CoreV1Api => c.kc.makeApiClient(CoreV1Api);

  function forwarder(
    owns: readonly Kind[],
    o: { q?: RecordingQueue; registry?: Registry; logs?: Array<Record<string, unknown>>; maxPending?: number } = {},
  ): { f: Forwarder; q: RecordingQueue } {
    const q = o.q ?? new RecordingQueue();
    const logs = o.logs;
    const f = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns,
      queue: q,
      checkpoints: new MemoryCheckpointStore(),
      logger: new Logger('test', 'warn', (line) => logs?.push(JSON.parse(line) as Record<string, unknown>)),
      registry: o.registry ?? new Registry(),
      resyncMs: 0,
      ...(o.maxPending === undefined ? {} : { maxPendingEvents: o.maxPending }),
    });
    running.push(f);
    queues.push(q);
    return { f, q };
  }

  const waitForKeys = (q: RecordingQueue, keys: readonly string[]): Promise<void> =>
    waitFor(async () => keys.every((k) => q.added.includes(k)), 60_000, 50, `keys ${keys.slice(0, 3).join(', ')}…`);

  /** Pods are refused until the namespace's default ServiceAccount exists. */
  async function createPod(body: { metadata: object }): Promise<string> {
    let uid = '';
    await waitFor(
      async () => {
        const pod = await core().createNamespacedPod({
          namespace: ns.name,
          body: { ...body, spec: kwokPodTemplate({}).spec },
        });
        uid = pod.metadata?.uid ?? '';
        return true;
      },
      30_000,
      200,
      'pod created',
    );
    return uid;
  }

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
  });
  beforeEach(async () => {
    ns = await testNamespace(c.kc);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((f) => f.stop()));
    await Promise.all(queues.splice(0).map((q) => q.inner.close()));
    await ns.remove();
  });
  afterAll(() => undefined);

  it('a Pod owned by "Not A Name" is parked and skipped; the next pod event still arrives', async () => {
    const logs: Array<Record<string, unknown>> = [];
    const registry = new Registry();
    // Jobs: nothing on fleetq-1 reconciles them, so only pod events can add a Job's key.
    const { f, q } = forwarder(['Job'], { logs, registry });
    await f.start();
    await f.synced();
    const base = kwokPodTemplate({ app: 'web' });
    await c.kc.makeApiClient(BatchV1Api).createNamespacedJob({
      namespace: ns.name,
      body: {
        metadata: { name: 'web' },
        spec: {
          suspend: true,
          manualSelector: true,
          selector: { matchLabels: { app: 'web' } },
          template: { ...base, spec: { containers: [], ...base.spec, restartPolicy: 'Never' } },
        },
      },
    });
    await waitForKeys(q, [key('Job', 'web')]);

    const badUid = await createPod({
      metadata: {
        name: 'bad-owner',
        ownerReferences: [
          { apiVersion: 'batch/v1', kind: 'Job', name: 'Not A Name', uid: randomUUID(), controller: true },
        ],
      },
    });
    // An orphan pod after it, on the same pods watch: its adopter's key must still come through.
    const from = q.added.length;
    await createPod({ metadata: { name: 'orphan', labels: { app: 'web' } } });
    await waitFor(async () => q.added.slice(from).includes(key('Job', 'web')), 30_000, 50, 'orphan event');

    expect(q.added.filter((k) => k.includes('Not A Name'))).toEqual([]);
    const parked = q.parked.find((p) => p.raw.includes('bad-owner'));
    expect(parked?.reason).toBe('name "Not A Name" is not a valid name');
    expect(JSON.parse(parked?.raw ?? '{}')).toMatchObject({
      cluster: CLUSTER,
      object: { kind: 'Pod', namespace: ns.name, name: 'bad-owner', uid: badUid },
    });
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'Invalid reconcile key skipped',
        kind: 'Pod',
        namespace: ns.name,
        name: 'bad-owner',
        uid: badUid,
      }),
    );
    const invalid = await registry.getSingleMetric('fleetq_forwarder_invalid_keys_total')?.get();
    expect(invalid?.values).toContainEqual(
      expect.objectContaining({ labels: { cluster: CLUSTER, resource: 'pods' }, value: expect.any(Number) }),
    );
    expect(f.stats.errors).toBe(0);
  });

  it('a ConfigMap labelled mirror-of=a._b is parked and skipped; later events and a resync go on', async () => {
    const { f, q } = forwarder(['ConfigMap']);
    await f.start();
    await f.synced();
    await core().createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'bad-copy', labels: { [MIRROR_OF_LABEL]: 'a._b' } } },
    });
    await core().createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'src', annotations: { [MIRROR_TO_ANNOTATION]: 'elsewhere' } } },
    });
    await waitForKeys(q, [key('ConfigMap', 'src')]);
    expect(q.parked.find((p) => p.raw.includes('bad-copy'))?.reason).toBe('name "_b" is not a valid name');

    // The resync meets the bad ConfigMap too, records it, and still enqueues the good source.
    const from = q.added.length;
    await f.resync();
    expect(q.added.slice(from)).toContain(key('ConfigMap', 'src'));
    expect(f.stats.errors).toBe(0);
  });

  it('a burst of 300 events into a slow queue: at most 20 pending, every key arrives', async () => {
    const q = new RecordingQueue();
    // A queue that takes adds one at a time, 20 ms each, however many the forwarder sends at once (it enqueues a
    // batch's keys together): slower than the burst, so the buffer bound is reached.
    let line: Promise<void> = Promise.resolve();
    const slow = Object.assign(Object.create(q) as RecordingQueue, {
      add: (k: ReconcileKey): Promise<void> => {
        const turn = line.then(async () => {
          await new Promise((r) => setTimeout(r, 20));
          await q.add(k);
        });
        line = turn.catch(() => undefined);
        return turn;
      },
    });
    const { f } = forwarder(['ConfigMap'], { q: slow, maxPending: 20 });
    await f.start();
    await f.synced();
    const names = Array.from({ length: 300 }, (_, i) => `burst-${i}`);
    for (let i = 0; i < names.length; i += 15) {
      await Promise.all(
        names.slice(i, i + 15).map((name) =>
          core().createNamespacedConfigMap({
            namespace: ns.name,
            body: { metadata: { name, annotations: { [MIRROR_TO_ANNOTATION]: 'elsewhere' } } },
          }),
        ),
      );
    }
    await waitForKeys(
      q,
      names.map((n) => key('ConfigMap', n)),
    );
    expect(f.peakPending).toBeGreaterThan(0);
    expect(f.peakPending).toBeLessThanOrEqual(20);
    expect(f.stats.watchRestarts).toBeGreaterThan(0);
  });
});
