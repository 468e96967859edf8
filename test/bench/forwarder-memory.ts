// Forwarder memory per watched object, for docs/cost-model.md ("forwarder RSS per cluster watched"). The fleet
// bench's clusters held about 13 objects each, too few to move a process's RSS; this grows one cluster's objects
// in steps and fits the slope.
//
// One forwarder process, run as the fleet bench runs it (functions/forwarder.ts through tsx, the Redis driver,
// Redis checkpoints and event log, and its default read mode, `cache`: the objects materialized in the queue's
// Redis), watches one cluster of its own, fmem-1 (fleetq mode: no upstream Deployment or ReplicaSet controller;
// kwok nodes run the pods). No worker runs: what the forwarder keeps does not depend on keys being taken off the
// queue (they wait in Redis), and without one nothing but the bench changes the cluster's workloads. The bench
// creates the fleet's shape itself, one Deployment and one ReplicaSet (owned by it) per 20 pods (owned by the
// ReplicaSet, as the ReplicaSet controller would create them; the scheduler binds them, unless --direct-bind),
// in a fresh namespace; one such workload warms the forwarder up before the first sample. At each step it waits
// until kwok runs every pod, the forwarder has handled an ADDED event of every object (and, reading from the
// cache, the cache in Redis holds them all), and its event stream has been quiet for QUIET_MS; then it samples
// the forwarder's RSS (/proc) and V8 heap used after a forced full GC. After the last step, a relist in the running
// process: the bench deletes the queue's data-loss marker (redis-loss.ts), as a FLUSHALL would, and the forwarder
// refills its cache (a list of every watched resource, applied page by page) and resyncs (a list of each owned
// kind); its RSS peak over that, and the settled figures after it (--no-relist leaves it out).
// The heap after a forced GC is read through the inspector: the process starts with --inspect on a loopback port
// (NODE_OPTIONS), and the bench asks it over the DevTools protocol for HeapProfiler.collectGarbage and
// Runtime.getHeapUsage. CPU per event comes from the forwarder's own /metrics (Node's default process metrics,
// metrics.ts withProcessMetrics): process_cpu_seconds_total over fleetq_forwarder_events_total, both taken before a
// step's objects are created and once its event stream is quiet (the quiet wait and the samples are in the CPU
// too: idle, a few ms a second); for the restart, its CPU from the spawn to quiet over the objects it listed. After the last step the forwarder is stopped and started again on the same queue:
// its start on a cluster that large (it lists every watched resource into the cache) and the RSS peak of that.
// Prints a table, the least-squares bytes per object and the CPU per event; asserts nothing; not in CI.
//   npx tsx test/bench/forwarder-memory.ts [--steps 0,1000,3000,6000] [--json out.json] [--reads cache|live]
//     [--nodes N] [--direct-bind] [--samples 5] [--timeout-s 300] [--no-relist] [--no-restart] [--keep]
// The cluster is started (or reused) and stopped at the end unless --keep; the namespace, the forwarder and the
// run's Redis keys are removed whatever happens.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { readsMode } from '../../shared/runtime/config.js';
import { epochKey } from '../../shared/queue/redis/redis-loss.js';
import { BenchClient } from '../helpers/bench/client.js';
import {
  countObjects,
  metricSum,
  metricsText,
  sampleMemory,
  startForwarder,
  stopProc,
  untilListed,
  untilQuiet,
  untilSynced,
  type RunningForwarder,
} from '../helpers/bench/forwarder.js';
import { MiB, reportForwarderMemory, type Restart, type Step } from '../helpers/bench/memory-report.js';
import {
  createWorkload,
  createWorkloadNamespace,
  meanPodJsonBytes,
  nodeNamesOf,
  untilPodsRunning,
} from '../helpers/bench/workloads.js';
import {
  deleteByPrefix,
  FLEET_REDIS_URL,
  kubeConfigOf,
  RssSampler,
  startFleetClusters,
  stopFleetClusters,
} from '../helpers/pipeline/fleet-pipeline.js';
import { jsonLines, type Proc } from '../helpers/processes.js';
import { ascending } from '../helpers/stats.js';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '0,1000,3000,6000' },
    json: { type: 'string' },
    reads: { type: 'string' },
    nodes: { type: 'string' },
    'direct-bind': { type: 'boolean', default: false },
    samples: { type: 'string', default: '5' },
    'timeout-s': { type: 'string', default: '300' },
    keep: { type: 'boolean', default: false },
    'no-restart': { type: 'boolean', default: false },
    'no-relist': { type: 'boolean', default: false },
  },
});

const PODS_PER_WORKLOAD = 20;
/** The forwarder's event stream must be this long without a new event before a step is sampled. */
const QUIET_MS = 5_000;
/** Between two heap/RSS samples of one step (a sampling interval: the step has settled already). */
const SAMPLE_INTERVAL_MS = 1_000;
/** Deployments created at once (each: its ReplicaSet, then its 20 pods together). */
const PARALLEL_WORKLOADS = 4;
const CLUSTER_PREFIX = 'fmem';
const KINDS = [
  { kind: 'Deployment', resource: 'deployments', path: '/apis/apps/v1/deployments' },
  { kind: 'ReplicaSet', resource: 'replicasets', path: '/apis/apps/v1/replicasets' },
  { kind: 'Pod', resource: 'pods', path: '/api/v1/pods' },
] as const;

const STEPS = ascending([
  ...new Set(
    (values.steps ?? '')
      .split(',')
      .map((s) => Math.ceil(Number(s) / PODS_PER_WORKLOAD) * PODS_PER_WORKLOAD)
      .filter((n) => Number.isFinite(n) && n >= 0),
  ),
]);
const MAX_PODS = Math.max(0, ...STEPS);
/** kwok nodes hold 1,000 pods each (infra/sandbox/cluster.ts): one spare. */
const NODES = Number(values.nodes ?? Math.ceil(MAX_PODS / 1_000) + 1);
const SAMPLES = Math.max(1, Number(values.samples));
const TIMEOUT_MS = Number(values['timeout-s']) * 1000;
if (STEPS.length < 2) throw new Error('--steps needs at least two sizes to fit a slope');
if (values.reads !== undefined && values.reads !== 'cache' && values.reads !== 'live')
  throw new Error('--reads is cache or live');

const log = (m: string): void => console.error(`forwarder-memory: ${m}`);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
/** Registry files written for the forwarder (each in a temporary folder of its own), removed at the end. */
const registries: string[] = [];
const forwarderOptions = { registries, ...(values.reads !== undefined && { reads: values.reads }) };
const workloadOf = (nodes: readonly string[]) => ({
  pods: PODS_PER_WORKLOAD,
  nodes,
  directBind: values['direct-bind'] ?? false,
});

const queue = `fm-${randomUUID().slice(0, 8)}`;
const namespace = `fmem-${queue}`;
const redis = new Redis(FLEET_REDIS_URL);
let cluster: ClusterState | undefined;
let forwarder: RunningForwarder | undefined;
/** The forwarder process now running (set at its spawn, before it serves), for the RSS sampler. */
let spawned: Proc | undefined;
const rss = new RssSampler(() => new Map([['forwarder', spawned?.child.pid]]), 250);
let cleaning: Promise<void> | undefined;
const cleanup = (): Promise<void> =>
  (cleaning ??= (async () => {
    forwarder?.inspector.close();
    if (forwarder) await stopProc(forwarder.proc).catch((err: unknown) => log(`forwarder stop: ${String(err)}`));
    if (cluster) {
      const client = new BenchClient(kubeConfigOf(cluster));
      await client.request('DELETE', `/api/v1/namespaces/${namespace}`).catch(() => undefined);
      if (!values.keep) await stopFleetClusters([cluster]).catch((err: unknown) => log(`cluster stop: ${String(err)}`));
    }
    rss.stop();
    for (const r of registries) rmSync(dirname(r), { recursive: true, force: true });
    await deleteByPrefix(redis, queue).catch((err: unknown) => log(`Redis keys: ${String(err)}`));
    redis.disconnect();
  })());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

const steps: Step[] = [];
/** CPU per handled watch event of each step (and of the warm-up), from the forwarder's /metrics. */
type CpuStep = { what: string; events: number; cpuS: number; usPerEvent: number };
const cpuSteps: CpuStep[] = [];
let restartCpu: { objects: number; cpuS: number; usPerObject: number } | undefined;
/** The relist in the running forwarder after a data loss (refill and resync). */
let relist:
  | {
      objects: number;
      restRssMiB: number;
      rssPeakMiB: number;
      rssMiB: number;
      heapUsedMiB: number;
      s: number;
      cpuS: number;
    }
  | undefined;
/** The forwarder's CPU seconds (user + system) and watch events handled so far. */
const cpuAndEvents = async (port: number): Promise<{ cpuS: number; events: number }> => {
  const text = await metricsText(port);
  return {
    cpuS: metricSum(text, 'process_cpu_seconds_total'),
    events: metricSum(text, 'fleetq_forwarder_events_total'),
  };
};
/** The forwarder started again on the largest step's objects (see below). */
let restart: Restart | undefined;
let objectBytesJson = 0;
// What functions/forwarder.ts decides from the same settings (it fills the Redis cache only in `cache` mode).
const readMode = readsMode({ FLEETQ_READS: values.reads as 'cache' | 'live' | undefined, FLEETQ_DRIVER: 'redis' });
const started = Date.now();
try {
  log(`starting ${CLUSTER_PREFIX}-1 (${NODES} kwok nodes; load ${load()})`);
  [cluster] = await startFleetClusters(CLUSTER_PREFIX, 1, NODES);
  if (!cluster) throw new Error('no cluster started');
  const c = cluster;
  const client = new BenchClient(kubeConfigOf(c));
  await createWorkloadNamespace(client, namespace);
  const nodeNames = await nodeNamesOf(client);
  log(`starting the forwarder (queue ${queue}; load ${load()})`);
  forwarder = await startForwarder(c, queue, { ...forwarderOptions, onSpawn: (p) => (spawned = p) });
  const fwd = forwarder;
  await untilSynced(fwd.port, KINDS, TIMEOUT_MS);
  const firstStartPeak = rss.peak.get('forwarder') ?? 0;
  const cachePrefix = `${queue}:{cache:${c.name}}:`;
  // A warm-up workload before the first sample: the first step's growth is then not the code (compiled code and
  // inline caches are heap too) and buffers of the first events the forwarder ever handles. It stays, and counts.
  const phases = [{ target: 0, warmUp: true }, ...STEPS.map((target) => ({ target, warmUp: false }))];
  let created = 0;
  let workloads = 0;
  for (const { target, warmUp } of phases) {
    const t0 = Date.now();
    rss.reset();
    const before = await cpuAndEvents(fwd.port);
    const names: string[] = warmUp ? ['warm-up'] : [];
    for (let i = created / PODS_PER_WORKLOAD; i < target / PODS_PER_WORKLOAD; i++) names.push(`w-${i}`);
    const what = warmUp ? 'warm-up' : `step ${target} pods`;
    log(`${what}: creating ${names.length} Deployments of ${PODS_PER_WORKLOAD} (load ${load()})`);
    for (let i = 0; i < names.length; i += PARALLEL_WORKLOADS) {
      await Promise.all(
        names.slice(i, i + PARALLEL_WORKLOADS).map((n) => createWorkload(client, namespace, n, workloadOf(nodeNames))),
      );
    }
    created = target;
    workloads += names.length;
    // kwok has run every pod (a pod's last changes, Running and Ready, are watch events the forwarder handles too).
    await untilPodsRunning(client, namespace, TIMEOUT_MS);
    const objects = new Map<string, number>();
    for (const k of KINDS) objects.set(k.kind, await countObjects(client, k.path));
    // The forwarder has handled an ADDED event of every object the bench made; reading from the cache, the cache
    // in Redis holds every object of the cluster (what it lists at its start included).
    const perWorkload = { Deployment: 1, ReplicaSet: 1, Pod: PODS_PER_WORKLOAD } as const;
    await waitFor(
      async () => {
        const text = await metricsText(fwd.port);
        for (const k of KINDS) {
          const added = metricSum(text, 'fleetq_forwarder_events_total', { resource: k.resource, type: 'ADDED' });
          if (added < workloads * perWorkload[k.kind]) return false;
          if (readMode === 'cache' && (await redis.scard(`${cachePrefix}i:all:${k.kind}`)) < (objects.get(k.kind) ?? 0))
            return false;
        }
        return true;
      },
      TIMEOUT_MS,
      500,
      `the forwarder saw every object (${what})`,
    );
    const events = await untilQuiet(fwd.port, QUIET_MS, TIMEOUT_MS);
    const settleS = Math.round((Date.now() - t0) / 100) / 10;
    const after = await cpuAndEvents(fwd.port);
    const stepEvents = after.events - before.events;
    const cpuS = after.cpuS - before.cpuS;
    cpuSteps.push({
      what,
      events: stepEvents,
      cpuS: Math.round(cpuS * 1000) / 1000,
      usPerEvent: stepEvents > 0 ? Math.round((cpuS / stepEvents) * 1e6) : 0,
    });
    log(`${what}: ${stepEvents} events, ${cpuS.toFixed(2)} CPU s (${cpuSteps.at(-1)?.usPerEvent} µs per event)`);
    if (warmUp) {
      log(`warm-up: settled in ${settleS} s`);
      continue;
    }
    const { rssBytes, heapUsedBytes, codeBytes } = await sampleMemory(fwd, SAMPLES, SAMPLE_INTERVAL_MS);
    rss.sample();
    const total = [...objects.values()].reduce((a, b) => a + b, 0);
    const step: Step = {
      objects: total,
      pods: objects.get('Pod') ?? 0,
      rssMiB: MiB(Math.min(...rssBytes)),
      heapUsedMiB: MiB(Math.min(...heapUsedBytes)),
      rssBytes,
      heapUsedBytes,
      codeBytes,
      rssPeakMiB: MiB(rss.peak.get('forwarder') ?? 0),
      events,
      settleS,
      load: load(),
    };
    steps.push(step);
    log(
      `step ${target} pods: ${total} objects, RSS ${step.rssMiB} MiB, heap ${step.heapUsedMiB} MiB, settled in ${settleS} s (load ${step.load})`,
    );
  }
  // A forwarder that starts on the cluster as it now is: the same queue, so it resumes from the checkpoints the
  // first one wrote at its stop; reading from the cache it lists every watched resource again (warm lists, into
  // the cache), holding each list whole while it files it (forwarder.ts onList). Its peak RSS, less the first
  // start's (0 objects), is that list's transient; its settled figures are a start at this size.
  if (!values['no-relist']) {
    const largest = steps[steps.length - 1] as Step;
    log(`relist: deleting the data-loss marker; the forwarder refills its cache and resyncs (load ${load()})`);
    const resynced = (): number =>
      jsonLines(fwd.proc).filter((l) => l.message === 'Resynced after Redis data loss').length;
    const before = resynced();
    const cpuBefore = await cpuAndEvents(fwd.port);
    rss.reset();
    const t0 = Date.now();
    await redis.del(epochKey(queue, queue));
    await waitFor(async () => resynced() > before, TIMEOUT_MS, 200, 'the resync after the data loss');
    const s = Math.round((Date.now() - t0) / 100) / 10;
    const cpuAfter = await cpuAndEvents(fwd.port);
    await untilQuiet(fwd.port, QUIET_MS, TIMEOUT_MS);
    const samples = await sampleMemory(fwd, SAMPLES, SAMPLE_INTERVAL_MS);
    rss.sample();
    relist = {
      objects: largest.objects,
      restRssMiB: largest.rssMiB,
      rssPeakMiB: MiB(rss.peak.get('forwarder') ?? 0),
      rssMiB: MiB(Math.min(...samples.rssBytes)),
      heapUsedMiB: MiB(Math.min(...samples.heapUsedBytes)),
      s,
      cpuS: Math.round((cpuAfter.cpuS - cpuBefore.cpuS) * 1000) / 1000,
    };
    log(`relist: ${JSON.stringify(relist)}`);
  }
  if (!values['no-restart']) {
    const largest = steps[steps.length - 1] as Step;
    log(`restarting the forwarder on ${largest.objects} objects (load ${load()})`);
    forwarder = undefined;
    fwd.inspector.close();
    await stopProc(fwd.proc);
    spawned = undefined;
    rss.reset();
    const t0 = Date.now();
    const again = await startForwarder(c, queue, { ...forwarderOptions, onSpawn: (p) => (spawned = p) });
    forwarder = again;
    const lists = readMode === 'cache' ? KINDS.map((k) => k.resource) : ['deployments', 'replicasets'];
    await untilListed(again.proc, lists, TIMEOUT_MS);
    await untilQuiet(again.port, QUIET_MS, TIMEOUT_MS);
    const listS = Math.round((Date.now() - t0) / 100) / 10;
    // CPU from the metrics' start (collectDefaultMetrics counts from there: module loading left out) to quiet.
    const { cpuS } = await cpuAndEvents(again.port);
    restartCpu = {
      objects: largest.objects,
      cpuS: Math.round(cpuS * 1000) / 1000,
      usPerObject: Math.round((cpuS / largest.objects) * 1e6),
    };
    const samples = await sampleMemory(again, SAMPLES, SAMPLE_INTERVAL_MS);
    rss.sample();
    restart = {
      objects: largest.objects,
      rssMiB: MiB(Math.min(...samples.rssBytes)),
      heapUsedMiB: MiB(Math.min(...samples.heapUsedBytes)),
      rssPeakMiB: MiB(rss.peak.get('forwarder') ?? 0),
      firstStartRssPeakMiB: MiB(firstStartPeak),
      startS: listS,
      load: load(),
    };
    log(`restart: ${JSON.stringify(restart)}`);
  }
  objectBytesJson = await meanPodJsonBytes(client, namespace);
} finally {
  await cleanup();
}

reportForwarderMemory(
  {
    readMode,
    cluster: `${CLUSTER_PREFIX}-1`,
    nodes: NODES,
    directBind: values['direct-bind'] ?? false,
    podsPerWorkload: PODS_PER_WORKLOAD,
    samples: SAMPLES,
    ms: Date.now() - started,
    load: load(),
    ...(values.json !== undefined && { json: values.json }),
  },
  steps,
  restart,
  objectBytesJson,
);
console.log('\nCPU per watch event (process_cpu_seconds_total / fleetq_forwarder_events_total, per step):');
for (const s of cpuSteps) console.log(`  ${s.what}: ${s.events} events, ${s.cpuS} CPU s, ${s.usPerEvent} µs per event`);
const measured = cpuSteps.filter((s) => s.what !== 'warm-up' && s.events > 0);
const allEvents = measured.reduce((a, s) => a + s.events, 0);
const allCpu = measured.reduce((a, s) => a + s.cpuS, 0);
if (allEvents > 0)
  console.log(`  steps together: ${allEvents} events, ${Math.round((allCpu / allEvents) * 1e6)} µs per event`);
if (relist)
  console.log(
    `relist in the running forwarder after a data loss (cache refill + resync) on ${relist.objects} objects: ` +
      `RSS at rest ${relist.restRssMiB} MiB, peak ${relist.rssPeakMiB} MiB during it, ${relist.rssMiB} MiB after ` +
      `(heap ${relist.heapUsedMiB} MiB); done in ${relist.s} s, ${relist.cpuS} CPU s`,
  );
if (restartCpu)
  console.log(
    `  restart (metrics start, after module loading, to quiet; its lists included): ${restartCpu.cpuS} CPU s for ${restartCpu.objects} objects, ` +
      `${restartCpu.usPerObject} µs per object`,
  );
process.exit(0);
