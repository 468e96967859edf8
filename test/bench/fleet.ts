// The fleet bench (docs/cost-model.md): a fleet of sandbox clusters (fleetq mode, kwok nodes) served by one forwarder process and
// two worker processes on the Redis driver. For each fleet size: every cluster converges a Deployment
// rollout (create, then a rolling update, all clusters at once); prints time to converge, the peak RSS of
// the forwarder and of each worker (sampled every 500 ms), the Redis memory this run's keys hold (MEMORY
// USAGE under its own prefix, by key kind) and the INFO used_memory delta, and API requests per cluster
// (fleetq_kube_requests_total over the workers). Then, once, fairness under a storm: 2,000 keys of one
// cluster added at once while one Deployment changes elsewhere (see storm()). Prints; asserts nothing.
//   npx tsx test/bench/fleet.ts [--clusters 5,10,20] [--replicas 10] [--storm 2000] [--json out.json] [--keep]
// Clusters are fl-1..fl-N (3 kwok nodes each), started as needed and reused by the next size; stopped at the
// end unless --keep.
import { writeFileSync } from 'node:fs';
import { freemem, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { printFleet, type NotStarted, type SizeResult } from '../helpers/bench/fleet-report.js';
import { storm } from '../helpers/bench/fleet-storm.js';
import { startOwnRedis } from '../helpers/queue/redis.js';
import {
  commandCalls,
  deleteByPrefix,
  deleteNamespace,
  FLEET_REDIS_URL,
  FleetPipeline,
  kubeConfigOf,
  parseMetric,
  redisFootprint,
  rollout,
  RssSampler,
  startFleetClusters,
  stopFleetClusters,
  type RolloutTimes,
} from '../helpers/pipeline/fleet-pipeline.js';
import { max, median, min } from '../helpers/stats.js';

const { values } = parseArgs({
  options: {
    clusters: { type: 'string', default: '5,10,20' },
    replicas: { type: 'string', default: '10' },
    nodes: { type: 'string', default: '3' },
    workers: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '8' },
    storm: { type: 'string', default: '2000' },
    json: { type: 'string' },
    'shared-redis': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'timeout-s': { type: 'string', default: '600' },
  },
});
const SIZES = (values.clusters ?? '')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const REPLICAS = Number(values.replicas);
const TIMEOUT_MS = Number(values['timeout-s']) * 1000;
const STORM = Number(values.storm);
const log = (m: string): void => console.error(`fleet: ${m}`);
const load = (): string => loadavg()[0]?.toFixed(1) ?? '?';
const MiB = (b: number): number => Math.round((b / 2 ** 20) * 10) / 10;

const IDLE_WINDOW_MS = 10_000;
let idleCallsPerS = 0;
const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);
const spread = (xs: number[]) => ({ median: median(xs) ?? 0, min: min(xs) ?? 0, max: max(xs) ?? 0 });

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);
}

async function runSize(
  clusters: ClusterState[],
  redis: Redis,
  redisUrl: string,
  stormRun: boolean,
): Promise<SizeResult> {
  const n = clusters.length;
  const stormCluster = clusters[0]?.name ?? '';
  const pipeline = new FleetPipeline({
    clusters,
    redisUrl,
    workers: Number(values.workers),
    concurrency: Number(values.concurrency),
  });
  const used0 = await usedMemory(redis);
  log(`${n} clusters: starting forwarder + ${values.workers} workers (queue ${pipeline.queue}; load ${load()})`);
  await pipeline.start();
  const rss = new RssSampler(() => pipeline.pids());
  const namespace = `fleet-${pipeline.queue}`;
  const workerNames = [...pipeline.procs.keys()].filter((k) => k.startsWith('worker-'));
  const sumOver = async (metric: string): Promise<number> =>
    (await Promise.all(workerNames.map((w) => pipeline.total(w, metric)))).reduce((a, b) => a + b, 0);
  // The commands an idle pipeline sends (blocked gets waking every 200 ms, heartbeats), measured over a
  // window before the rollouts and subtracted from the per-reconcile figures.
  await redis.config('RESETSTAT');
  const idleStart = Date.now();
  await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
  idleCallsPerS = (sum(await commandCalls(redis)) * 1000) / (Date.now() - idleStart);
  await redis.config('RESETSTAT');
  // Start-up (tsx compiling the sources) is not reconcile work.
  const cpu0 = await sumOver('process_cpu_seconds_total');
  const t0 = Date.now();
  let results: RolloutTimes[] = [];
  let result: SizeResult;
  try {
    results = await Promise.all(clusters.map((c) => rollout(c, namespace, REPLICAS, TIMEOUT_MS)));
    const wallMs = Date.now() - t0;
    rss.sample();
    const requests = await pipeline.workerSum('fleetq_kube_requests_total', 'cluster');
    const reconciles = await pipeline.workerSum('fleetq_reconcile_total', 'cluster');
    const footprint = await redisFootprint(redis, pipeline.prefix);
    const cpuS = (await sumOver('process_cpu_seconds_total')) - cpu0;
    const wallS = await sumOver('fleetq_reconcile_duration_seconds_sum');
    const allReconciles = [...reconciles.values()].reduce((a, b) => a + b, 0);
    const used1 = await usedMemory(redis);
    const calls = await commandCalls(redis);
    const perCluster = results.map((r) => ({
      ...r,
      requests: requests.get(r.cluster) ?? 0,
      reconciles: reconciles.get(r.cluster) ?? 0,
    }));
    const ok = (xs: Array<number | null>) => xs.filter((x): x is number => x !== null);
    result = {
      clusters: n,
      startClustersS: 0,
      freeMemGiBAfterStart: 0,
      converged: results.filter((r) => r.updateMs !== null).length,
      createMs: {
        median: median(ok(results.map((r) => r.createMs))) ?? null,
        max: maxOf(results.map((r) => r.createMs)),
      },
      updateMs: {
        median: median(ok(results.map((r) => r.updateMs))) ?? null,
        max: maxOf(results.map((r) => r.updateMs)),
      },
      wallMs,
      rssPeakMiB: Object.fromEntries([...rss.peak].map(([k, v]) => [k, MiB(v)])),
      redis: {
        bytes: footprint.bytes,
        keys: footprint.keys,
        usedMemoryDelta: used1 - used0,
        byKind: footprint.byKind,
        calls,
        idleCallsPerS: Math.round(idleCallsPerS),
        busyCalls: Math.round(sum(calls) - (idleCallsPerS * wallMs) / 1000),
      },
      apiRequestsPerCluster: spread(perCluster.map((p) => p.requests)),
      reconcilesPerCluster: spread(perCluster.map((p) => p.reconciles)),
      workerCpuMsPerReconcile: allReconciles > 0 ? Math.round((cpuS * 1000 * 10) / allReconciles) / 10 : 0,
      reconcileWallMsPerReconcile: allReconciles > 0 ? Math.round((wallS * 1000 * 10) / allReconciles) / 10 : 0,
      forwarderCpuS: Math.round((await pipeline.total('forwarder', 'process_cpu_seconds_total')) * 10) / 10,
      forwarderEventsPerCluster: await perClusterMedian(pipeline, 'fleetq_forwarder_events_total'),
      forwarderKeysPerCluster: await perClusterMedian(pipeline, 'fleetq_forwarder_keys_total'),
      perCluster,
      load: load(),
    };
    log(
      `${n} clusters: ${result.converged}/${n} converged in ${(wallMs / 1000).toFixed(1)} s; RSS ${JSON.stringify(result.rssPeakMiB)} MiB; load ${result.load}`,
    );
    if (stormRun && STORM > 0 && clusters.length >= 2) {
      (result as SizeResult & { storm?: unknown }).storm = await storm(
        pipeline,
        clusters,
        stormCluster,
        redis,
        redisUrl,
        {
          keys: STORM,
          timeoutMs: TIMEOUT_MS,
          idleCallsPerS,
          load,
          log,
        },
      );
    }
  } finally {
    rss.stop();
    await pipeline.stop();
    await Promise.all(clusters.map((c) => deleteNamespace(kubeConfigOf(c), namespace)));
    await deleteByPrefix(redis, pipeline.prefix);
  }
  return result;
}

async function perClusterMedian(pipeline: FleetPipeline, metric: string): Promise<number> {
  const by = new Map<string, number>();
  for (const x of parseMetric(await pipeline.scrape('forwarder'), metric)) {
    const c = x.labels.cluster ?? '';
    by.set(c, (by.get(c) ?? 0) + x.value);
  }
  return median([...by.values()]) ?? 0;
}

function maxOf(xs: Array<number | null>): number | null {
  return xs.some((x) => x === null) ? null : Math.max(...(xs as number[]));
}

// A Redis of the bench's own, so that INFO memory and commandstats count this run only.
const own = values['shared-redis'] ? undefined : await startOwnRedis();
const redisUrl = own?.url ?? FLEET_REDIS_URL;
const redis = new Redis(redisUrl);
const out: SizeResult[] = [];
let notStarted: NotStarted | undefined;
const writeJson = (): void => {
  if (values.json) {
    const doc = { at: new Date().toISOString(), replicas: REPLICAS, sizes: out, ...(notStarted && { notStarted }) };
    writeFileSync(values.json, JSON.stringify(doc, null, 2));
  }
};
let started: ClusterState[] = [];
try {
  for (const [i, n] of SIZES.entries()) {
    const t = Date.now();
    log(`starting ${n} clusters (free memory ${(freemem() / 2 ** 30).toFixed(1)} GiB, load ${load()})`);
    try {
      started = await startFleetClusters('fl', n, Number(values.nodes));
    } catch (err) {
      // Reported, not thrown: the sizes already measured are kept (and written below).
      notStarted = { clusters: n, load: load(), reason: err instanceof Error ? err.message : String(err) };
      log(`${n} clusters could not start: ${notStarted.reason}`);
      break;
    }
    const startClustersS = (Date.now() - t) / 1000;
    const r = await runSize(started, redis, redisUrl, i === 0);
    r.startClustersS = startClustersS;
    r.freeMemGiBAfterStart = Math.round((freemem() / 2 ** 30) * 10) / 10;
    out.push(r);
    writeJson();
  }
} finally {
  writeJson();
  // After a failed start, stop every fl-<i> the state file records. Clusters of the failed batch that did come up
  // are not in it (up() records a batch only when all of it started): their processes must be stopped by hand.
  const names = Array.from({ length: Math.max(0, ...SIZES) }, (_, i) => ({ name: `fl-${i + 1}` }));
  if (!values.keep) await stopFleetClusters(notStarted ? (names as ClusterState[]) : started);
  redis.disconnect();
  await own?.stop();
}
printFleet(
  out,
  { replicas: REPLICAS, workers: values.workers ?? '', concurrency: values.concurrency ?? '', stormKeys: STORM },
  notStarted,
);
process.exit(0);
