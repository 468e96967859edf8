// Event → reconcile-start latency through the whole pipeline, per driver: a forwarder watching
// ConfigMaps on sandbox cluster fleetq-2, the queue, and a worker loop whose controller only records
// when each reconcile starts. A ConfigMap is created every `gapMs` (not saturated); latency is from
// just before the create request to the start of the first reconcile of its key.
//   npx tsx test/bench/pipeline-latency.ts [--count 200] [--gap-ms 20] [--drivers memory,redis,sqs]
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import type { ReconcileKey } from '../../shared/kube/key.js';
import type { Controller } from '../../shared/controllers/controller.js';
import { MIRROR_TO } from '../../shared/controllers/configmap-mirror/types.js';
import { FleetForwarder } from '../../shared/forwarder/fleet-forwarder.js';
import { ClusterRegistry } from '../../shared/kube/registry.js';
import { createQueue, type QueueConfig } from '../../shared/queue/index.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { clusterClients } from '../../shared/runtime/clients.js';
import { Logger } from '../../shared/runtime/logger.js';
import { WorkerLoop } from '../../shared/runtime/loop.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { sandboxCluster } from '../helpers/sandbox/clusters.js';
import { startSqsEmulator } from '../helpers/queue/sqs.js';
import { max, percentile } from '../helpers/stats.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '200' },
    'gap-ms': { type: 'string', default: '20' },
    drivers: { type: 'string', default: 'memory,redis,sqs' },
  },
});
const COUNT = Number(values.count);
const GAP_MS = Number(values['gap-ms']);

async function measure(
  driver: 'memory' | 'redis' | 'sqs',
): Promise<{ p50: number; p99: number; max: number; n: number; addP50: number; addP99: number }> {
  const c = await sandboxCluster('fleetq-2');
  const core = c.kc.makeApiClient(CoreV1Api);
  const ns = `bench-${randomUUID().slice(0, 8)}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const sqs = driver === 'sqs' ? await startSqsEmulator() : undefined;
  const name = `bench-${randomUUID().slice(0, 8)}`;
  const config: QueueConfig =
    driver === 'memory'
      ? { driver, name }
      : driver === 'redis'
        ? { driver, name }
        : { driver, name, endpoint: sqs?.endpoint ?? '' };
  const queue = await createQueue(config);
  const registry = new ClusterRegistry([
    {
      name: 'fleetq-2',
      owns: ['ConfigMap'],
      limits: { qps: 1000, burst: 1000 },
      connection: { type: 'kubeconfig', path: c.state.kubeconfig },
    },
  ]);
  const started = new Map<string, number>();
  const recorder: Controller = {
    kind: 'ConfigMap',
    observe: async (_view, key) => {
      if (key.namespace === ns && !started.has(key.name)) started.set(key.name, Date.now());
      return null;
    },
    plan: () => ({ actions: [] }),
  };
  const logger = new Logger('bench', process.env.LOG_LEVEL ?? 'warn');
  const loop = new WorkerLoop(
    {
      registry,
      queue,
      logger,
      clients: clusterClients(registry),
      controllers: new Map([['ConfigMap', recorder]]),
      now: () => new Date(),
    },
    { concurrency: 8, pollMs: 200 },
  );
  // Split the latency: when the forwarder hands each key to the queue.
  const addedAt = new Map<string, number>();
  const recordingQueue = {
    add: async (key: ReconcileKey) => {
      if (key.namespace === ns && !addedAt.has(key.name)) addedAt.set(key.name, Date.now());
      await queue.add(key);
    },
    addAfter: async (key: ReconcileKey, delayMs: number) => {
      if (key.namespace === ns && !addedAt.has(key.name)) addedAt.set(key.name, Date.now());
      await queue.addAfter(key, delayMs);
    },
    parkInvalid: (raw: string, reason: string) => queue.parkInvalid(raw, reason),
  };
  const fleet = new FleetForwarder(registry, {
    queue: recordingQueue,
    checkpoints: new MemoryCheckpointStore(),
    resyncMs: 0,
    logger,
    logListed: false,
  });
  loop.start();
  await fleet.start();
  const sent = new Map<string, number>();
  try {
    for (let i = 0; i < COUNT; i++) {
      const cm = `cm-${i}`;
      sent.set(cm, Date.now());
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: cm, annotations: { [MIRROR_TO]: '' } } },
      });
      if (GAP_MS > 0) await new Promise((r) => setTimeout(r, GAP_MS));
    }
    await waitFor(async () => started.size >= COUNT, 120_000, 100, `${COUNT} reconciles`);
  } finally {
    await fleet.stop();
    await loop.stop();
    await queue.close();
    await sqs?.stop();
    await core.deleteNamespace({ name: ns }).catch(() => undefined);
    // The next driver's forwarder would otherwise see this namespace's deletions flood in during its own run.
    await waitFor(
      async () =>
        core.readNamespace({ name: ns }).then(
          () => false,
          () => true,
        ),
      180_000,
      500,
      `namespace ${ns} to be gone`,
    );
  }
  const lat = [...sent].map(([k, t]) => (started.get(k) ?? NaN) - t);
  const toAdd = [...sent].map(([k, t]) => (addedAt.get(k) ?? NaN) - t);
  return {
    p50: percentile(lat, 0.5) ?? NaN,
    p99: percentile(lat, 0.99) ?? NaN,
    max: max(lat) ?? NaN,
    n: lat.length,
    addP50: percentile(toAdd, 0.5) ?? NaN,
    addP99: percentile(toAdd, 0.99) ?? NaN,
  };
}

const rows: string[] = [];
for (const d of (values.drivers ?? '').split(',') as Array<'memory' | 'redis' | 'sqs'>) {
  const r = await measure(d);
  rows.push(
    `${d.padEnd(8)} ${String(r.n).padStart(6)} ${r.p50.toFixed(0).padStart(8)} ${r.p99.toFixed(0).padStart(8)} ${r.max.toFixed(0).padStart(8)} ${r.addP50.toFixed(0).padStart(10)} ${r.addP99.toFixed(0).padStart(10)}`,
  );
}
console.log(`\nevent → reconcile start, ${COUNT} ConfigMaps created ${GAP_MS} ms apart (ms)`);
console.log(`driver        n      p50      p99      max  →add p50  →add p99`);
for (const r of rows) console.log(r);
process.exit(0);
