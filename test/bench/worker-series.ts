// How many Prometheus series a long-running worker's /metrics holds as the clusters it serves grow: the real
// `fleetq worker` process (redis driver, live reads) with a registry of --clusters names, all pointing at the
// sandbox cluster fleetq-1 (one apiserver, so the figure is the worker's own labels, not a bigger cluster's).
// One Deployment is created in a fresh namespace; its key is added for the first --first clusters, then for the
// rest; after each step (every key reconciled, no key ready) /metrics is scraped and its series counted, in all and with a
// `cluster` label. The per-cluster figure is the slope between the two steps; the base is what is left.
//   npx tsx test/bench/worker-series.ts [--clusters 40] [--first 8] [--json out.json]
// A bench: it prints figures and asserts nothing.
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { AppsV1Api } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { kwokDeployment } from '../helpers/bench/lambda-pipeline.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { spawnTsx } from '../helpers/processes.js';
import { REDIS_URL, redisClient } from '../helpers/queue/redis.js';
import { sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';

const { values } = parseArgs({
  options: {
    clusters: { type: 'string', default: '40' },
    first: { type: 'string', default: '8' },
    json: { type: 'string' },
  },
});
const CLUSTERS = Number(values.clusters);
const FIRST = Number(values.first);

type Scrape = { clusters: number; series: number; withCluster: number; reconciles: number };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Series lines of a Prometheus exposition (comments left out), those with a cluster label, and reconciles. */
function count(text: string, clusters: number): Scrape {
  const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const reconciles = series
    .filter((l) => l.startsWith('fleetq_reconcile_total{'))
    .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  return {
    clusters,
    series: series.length,
    withCluster: series.filter((l) => /[{,]cluster="/.test(l)).length,
    reconciles,
  };
}

async function main(): Promise<void> {
  const log = (s: string) => process.stderr.write(`worker-series: ${s}\n`);
  const loadBefore = loadavg();
  const date = new Date().toISOString();
  const c = await sandboxCluster('fleetq-1');
  const ns = await testNamespace(c.kc);
  const names = Array.from({ length: CLUSTERS }, (_, i) => `series-${i + 1}`);
  const registryPath = writeRegistry(
    names.map((name) => ({ name, kubeconfig: c.state.kubeconfig, owns: ['Deployment', 'ReplicaSet'] })),
  );
  const queueName = `series-${randomUUID().slice(0, 8)}`;
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const port = await freePort();
  const worker = spawnTsx(
    'functions/worker.ts',
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      FLEETQ_DRIVER: 'redis',
      FLEETQ_READS: 'live',
      REDIS_URL,
      FLEETQ_QUEUE: queueName,
      FLEETQ_REDIS_PREFIX: prefix,
      FLEETQ_REGISTRY: registryPath,
      LOG_LEVEL: 'warn',
    },
    'worker',
    ['--metrics-port', String(port)],
  );
  const queue = new RedisQueue({ name: queueName, prefix, redis: REDIS_URL });
  try {
    const apps = c.kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: ns.name, body: kwokDeployment('web', 2) });
    const scrape = async (clusters: number): Promise<Scrape> =>
      count(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), clusters);
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).ok,
      60_000,
      250,
      'the worker serves /metrics',
    );
    const steps: Scrape[] = [];
    let added = 0;
    for (const upTo of [FIRST, CLUSTERS]) {
      for (const cluster of names.slice(added, upTo)) {
        await queue.add({ cluster, kind: 'Deployment', namespace: ns.name, name: 'web' });
      }
      added = upTo;
      await waitFor(async () => (await scrape(upTo)).reconciles >= upTo, 120_000, 500, `${upTo} clusters reconciled`);
      // Settle: a reconcile's requeues and the ReplicaSet's own keys run too. Not an empty queue: the Deployment
      // controller requeues each Deployment for its progress deadline (minutes), so delayed keys stay. Settled is
      // no key ready (due delayed keys included) and the reconcile count unchanged since the last look.
      let last = -1;
      await waitFor(
        async () => {
          const ready = (await queue.oldestReadyBreakdown()).clusters.length;
          const reconciles = (await scrape(upTo)).reconciles;
          const settled = ready === 0 && reconciles === last;
          last = reconciles;
          return settled;
        },
        60_000,
        500,
        'no key ready and the reconciles settled',
      );
      steps.push(await scrape(upTo));
      log(`${upTo} clusters: ${JSON.stringify(steps.at(-1))}`);
    }
    const [a, b] = steps as [Scrape, Scrape];
    const perCluster = (b.series - a.series) / (b.clusters - a.clusters);
    const base = a.series - perCluster * a.clusters;
    const result = {
      date,
      load: { before: loadBefore.map((x) => Number(x.toFixed(2))), after: loadavg().map((x) => Number(x.toFixed(2))) },
      steps,
      perCluster: Number(perCluster.toFixed(1)),
      base: Number(base.toFixed(0)),
      withClusterPerCluster: Number(((b.withCluster - a.withCluster) / (b.clusters - a.clusters)).toFixed(1)),
    };
    console.log(
      [
        `Worker /metrics series — ${date}, fleetq worker (redis driver, live reads), ${CLUSTERS} cluster names on fleetq-1, one Deployment each`,
        `load ${result.load.before.join(' ')} → ${result.load.after.join(' ')}`,
        ...steps.map(
          (s) =>
            `  ${s.clusters} clusters: ${s.series} series (${s.withCluster} with a cluster label), ${s.reconciles} reconciles`,
        ),
        `  per cluster served: ${result.perCluster} series (${result.withClusterPerCluster} with a cluster label); base ${result.base}`,
      ].join('\n'),
    );
    if (values.json !== undefined) await writeFile(values.json, JSON.stringify(result, null, 2) + '\n');
  } finally {
    await worker.stop();
    await queue.close();
    await ns.remove();
    await rm(dirname(registryPath), { recursive: true, force: true });
    const redis = redisClient();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`worker-series: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
