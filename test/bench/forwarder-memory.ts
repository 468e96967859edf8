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
// the forwarder's RSS (/proc) and V8 heap used after a forced full GC.
// The forwarder serves no default Node metrics (its /metrics registry has only the queue's and its own), so the
// heap is read through the inspector: the process starts with --inspect on a loopback port (NODE_OPTIONS), and
// the bench asks it over the DevTools protocol for HeapProfiler.collectGarbage and Runtime.getHeapUsage. No
// product code is involved. After the last step the forwarder is stopped and started again on the same queue:
// its start on a cluster that large (it lists every watched resource into the cache) and the RSS peak of that.
// Prints a table and the least-squares bytes per object; asserts nothing; not in CI.
//   npx tsx test/bench/forwarder-memory.ts [--steps 0,1000,3000,6000] [--json out.json] [--reads cache|live]
//     [--nodes N] [--direct-bind] [--samples 5] [--timeout-s 300] [--no-restart] [--keep]
// The cluster is started (or reused) and stopped at the end unless --keep; the namespace, the forwarder and the
// run's Redis keys are removed whatever happens.
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { WebSocket } from 'undici';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { readsMode } from '../../shared/runtime/config.js';
import { BenchClient } from '../helpers/bench-client.js';
import {
  benchDeployment,
  deleteByPrefix,
  FLEET_REDIS_URL,
  kubeConfigOf,
  parseMetric,
  rssOf,
  RssSampler,
  startFleetClusters,
  stopFleetClusters,
} from '../helpers/fleet-pipeline.js';
import { writeRegistry } from '../helpers/fleet.js';
import { jsonLines, spawnTsx, type Proc } from '../helpers/processes.js';
import { kwokPodTemplate } from '../helpers/sandbox.js';
import { ascending, leastSquaresSlope } from '../helpers/stats.js';

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
const MiB = (b: number): number => Math.round((b / 2 ** 20) * 10) / 10;

type Step = {
  /** Deployments, ReplicaSets and Pods the forwarder watches in the cluster (every namespace). */
  objects: number;
  /** Of which pods (the warm-up's 20 included). */
  pods: number;
  rssMiB: number;
  heapUsedMiB: number;
  /** Every sample of the step (bytes): the figures above are their minimum. */
  rssBytes: number[];
  heapUsedBytes: number[];
  /** Heap used by code spaces (compiled code), at each sample. */
  codeBytes: number[];
  /** The highest RSS sampled (every 250 ms) from the step's first create to its last sample. */
  rssPeakMiB: number;
  /** Watch events the forwarder handled so far (fleetq_forwarder_events_total, all types). */
  events: number;
  /** From the step's first create to the forwarder's quiet (s). */
  settleS: number;
  load: string;
};

/** A DevTools-protocol session with the forwarder's inspector (started by --inspect). */
class Inspector {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (e) => {
      const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
      if (!p || msg.id === undefined) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error.message));
      else p.resolve(msg.result);
    });
    ws.addEventListener('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('inspector closed'));
      this.pending.clear();
    });
  }

  static async connect(url: string, timeoutMs: number): Promise<Inspector> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`inspector ${url}: no connection in ${timeoutMs} ms`)),
        timeoutMs,
      );
      ws.addEventListener('open', () => (clearTimeout(timer), resolve()), { once: true });
      ws.addEventListener('error', () => (clearTimeout(timer), reject(new Error(`inspector ${url}: error`))), {
        once: true,
      });
    });
    return new Inspector(ws);
  }

  call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`inspector ${method}: no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v as T)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /**
   * V8 heap used after a full GC (the main isolate: tsx's loader thread is not in it, though it is in the RSS),
   * and of it what code spaces hold (compiled code grows as the process warms up, not with objects).
   */
  async heapUsedAfterGc(): Promise<{ used: number; code: number }> {
    await this.call('HeapProfiler.collectGarbage');
    const used = (await this.call<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
    const spaces = await this.call<{ result: { value?: unknown } }>('Runtime.evaluate', {
      // The inspector's command-line API gives `require` in the process's main context.
      expression:
        "require('v8').getHeapSpaceStatistics().filter((s) => s.space_name.startsWith('code')).reduce((a, s) => a + s.space_used_size, 0)",
      includeCommandLineAPI: true,
      returnByValue: true,
    });
    return { used, code: typeof spaces.result.value === 'number' ? spaces.result.value : NaN };
  }

  close(): void {
    this.ws.close();
  }
}

/** Registry files written for the forwarder (each in a temporary folder of its own), removed at the end. */
const registries: string[] = [];

type RunningForwarder = { readonly proc: Proc; readonly port: number; readonly inspector: Inspector };

/**
 * The forwarder process: functions/forwarder.ts with the env FleetPipeline gives it (fleet-pipeline.ts), plus the
 * inspector on a loopback port. Resolves once it logs that it runs (its lists go on in the background).
 */
async function startForwarder(
  cluster: ClusterState,
  queue: string,
  onSpawn: (proc: Proc) => void,
): Promise<RunningForwarder> {
  const registry = writeRegistry([
    {
      name: cluster.name,
      kubeconfig: cluster.kubeconfig,
      owns: ['Deployment', 'ReplicaSet'],
      limits: { qps: 100, burst: 200 },
    },
  ]);
  registries.push(registry);
  const port = await freePort();
  const proc = spawnTsx(
    'functions/forwarder.ts',
    {
      FLEETQ_REGISTRY: registry,
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queue,
      FLEETQ_REDIS_PREFIX: queue,
      REDIS_URL: FLEET_REDIS_URL,
      FLEETQ_CHECKPOINTS: 'redis',
      FLEETQ_METRICS_PORT: String(port),
      LOG_LEVEL: 'info',
      NODE_OPTIONS: '--inspect=127.0.0.1:0',
      ...(values.reads !== undefined && { FLEETQ_READS: values.reads }),
    },
    'forwarder',
  );
  onSpawn(proc);
  try {
    const line = await proc.waitForLine(/Debugger listening on ws:\/\//, 120_000);
    const url = /(ws:\/\/\S+)/.exec(line)?.[1] ?? '';
    const inspector = await Inspector.connect(url, 30_000);
    // tsx compiles the sources at start: minutes at a high load on 2 cores (fleet-pipeline.ts).
    await proc.waitForLine(/"Forwarder running"/, 360_000);
    return { proc, port, inspector };
  } catch (err) {
    await stopProc(proc);
    throw err;
  }
}

/** SIGTERM, and SIGKILL if it has not exited within 20 s. */
async function stopProc(proc: Proc): Promise<void> {
  const killer = setTimeout(() => proc.child.kill('SIGKILL'), 20_000);
  await proc.stop('SIGTERM');
  clearTimeout(killer);
}

const metricsText = async (port: number): Promise<string> =>
  (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();

const metricSum = (text: string, name: string, match: Record<string, string> = {}): number =>
  parseMetric(text, name)
    .filter((s) => Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);

/** Objects of one kind in the whole cluster (limit=1: the apiserver says how many remain). */
async function countObjects(client: BenchClient, path: string): Promise<number> {
  const list = await client.request<{ items: unknown[]; metadata?: { remainingItemCount?: number } }>(
    'GET',
    `${path}?limit=1`,
  );
  return list.items.length + (list.metadata?.remainingItemCount ?? 0);
}

const shortHash = (): string => randomBytes(5).toString('hex').slice(0, 9);

/** One Deployment, its ReplicaSet and its 20 pods, as the Deployment and ReplicaSet controllers would make them. */
async function createWorkload(client: BenchClient, namespace: string, name: string, nodes: readonly string[]) {
  const base = `/apis/apps/v1/namespaces/${namespace}`;
  const d = await client.request<{ metadata: { uid: string } }>('POST', `${base}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    ...benchDeployment(name, PODS_PER_WORKLOAD),
  });
  const hash = shortHash();
  const labels = { app: name, 'pod-template-hash': hash };
  const template = kwokPodTemplate(labels);
  const rsName = `${name}-${hash}`;
  const rs = await client.request<{ metadata: { uid: string } }>('POST', `${base}/replicasets`, {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: rsName,
      labels,
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(PODS_PER_WORKLOAD),
        'deployment.kubernetes.io/max-replicas': String(PODS_PER_WORKLOAD + 5),
        'deployment.kubernetes.io/revision': '1',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name,
          uid: d.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { replicas: PODS_PER_WORKLOAD, selector: { matchLabels: labels }, template },
  });
  await Promise.all(
    Array.from({ length: PODS_PER_WORKLOAD }, (_, i) =>
      client.request('POST', `/api/v1/namespaces/${namespace}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `${rsName}-${randomBytes(3).toString('hex').slice(0, 5)}`,
          labels,
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: rsName,
              uid: rs.metadata.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: {
          ...template.spec,
          ...(values['direct-bind'] && { nodeName: nodes[i % nodes.length] }),
        },
      }),
    ),
  );
}

/** Waits until the forwarder has handled no watch event for QUIET_MS; returns how many it handled so far. */
async function untilQuiet(port: number): Promise<number> {
  let last = -1;
  let since = Date.now();
  await waitFor(
    async () => {
      const events = metricSum(await metricsText(port), 'fleetq_forwarder_events_total');
      if (events !== last) {
        last = events;
        since = Date.now();
      }
      return Date.now() - since >= QUIET_MS;
    },
    TIMEOUT_MS,
    500,
    `the forwarder's events quiet for ${QUIET_MS} ms`,
  );
  return last;
}

type Samples = { rssBytes: number[]; heapUsedBytes: number[]; codeBytes: number[] };

/** SAMPLES times: a forced full GC, the heap used after it, and the RSS. */
async function sampleMemory(fwd: RunningForwarder): Promise<Samples> {
  const out: Samples = { rssBytes: [], heapUsedBytes: [], codeBytes: [] };
  for (let i = 0; i < SAMPLES; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, SAMPLE_INTERVAL_MS));
    const heap = await fwd.inspector.heapUsedAfterGc();
    out.heapUsedBytes.push(heap.used);
    out.codeBytes.push(heap.code);
    out.rssBytes.push(rssOf(fwd.proc.child.pid));
  }
  return out;
}

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
/** The forwarder started again on the largest step's objects (see below). */
let restart:
  | {
      objects: number;
      rssMiB: number;
      heapUsedMiB: number;
      rssPeakMiB: number;
      firstStartRssPeakMiB: number;
      startS: number;
      load: string;
    }
  | undefined;
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
  await client.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  // The service-account controller makes `default` in a new namespace; pods cannot be admitted before it exists.
  await waitFor(
    async () =>
      (await client.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${namespace}/serviceaccounts`)).items
        .length > 0,
    60_000,
    250,
    `serviceaccount default in ${namespace}`,
  );
  const nodeNames = (
    await client.request<{ items: Array<{ metadata: { name: string } }> }>('GET', '/api/v1/nodes')
  ).items.map((n) => n.metadata.name);
  log(`starting the forwarder (queue ${queue}; load ${load()})`);
  forwarder = await startForwarder(c, queue, (p) => (spawned = p));
  const fwd = forwarder;
  // Synced: the first list of each watched resource is done (relists{reason=initial}).
  await waitFor(
    async () => {
      const text = await metricsText(fwd.port);
      return KINDS.every(
        (k) => metricSum(text, 'fleetq_forwarder_relists_total', { resource: k.resource, reason: 'initial' }) >= 1,
      );
    },
    TIMEOUT_MS,
    500,
    'the forwarder listed deployments, replicasets and pods',
  );
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
    const names: string[] = warmUp ? ['warm-up'] : [];
    for (let i = created / PODS_PER_WORKLOAD; i < target / PODS_PER_WORKLOAD; i++) names.push(`w-${i}`);
    const what = warmUp ? 'warm-up' : `step ${target} pods`;
    log(`${what}: creating ${names.length} Deployments of ${PODS_PER_WORKLOAD} (load ${load()})`);
    for (let i = 0; i < names.length; i += PARALLEL_WORKLOADS) {
      await Promise.all(
        names.slice(i, i + PARALLEL_WORKLOADS).map((n) => createWorkload(client, namespace, n, nodeNames)),
      );
    }
    created = target;
    workloads += names.length;
    // kwok has run every pod (a pod's last changes, Running and Ready, are watch events the forwarder handles too).
    await waitFor(
      async () =>
        (
          await client.request<{ items: unknown[] }>(
            'GET',
            `/api/v1/namespaces/${namespace}/pods?limit=1&fieldSelector=${encodeURIComponent('status.phase!=Running')}`,
          )
        ).items.length === 0,
      TIMEOUT_MS,
      1_000,
      `every pod of ${namespace} Running`,
    );
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
    const events = await untilQuiet(fwd.port);
    const settleS = Math.round((Date.now() - t0) / 100) / 10;
    if (warmUp) {
      log(`warm-up: settled in ${settleS} s`);
      continue;
    }
    const { rssBytes, heapUsedBytes, codeBytes } = await sampleMemory(fwd);
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
  if (!values['no-restart']) {
    const largest = steps[steps.length - 1] as Step;
    log(`restarting the forwarder on ${largest.objects} objects (load ${load()})`);
    forwarder = undefined;
    fwd.inspector.close();
    await stopProc(fwd.proc);
    spawned = undefined;
    rss.reset();
    const t0 = Date.now();
    const again = await startForwarder(c, queue, (p) => (spawned = p));
    forwarder = again;
    const lists = readMode === 'cache' ? KINDS.map((k) => k.resource) : ['deployments', 'replicasets'];
    await waitFor(
      async () => {
        const listed = new Set(
          jsonLines(again.proc)
            .filter((l) => l.message === 'Listed')
            .map((l) => l.resource),
        );
        return lists.every((r) => listed.has(r));
      },
      TIMEOUT_MS,
      500,
      `the restarted forwarder listed ${lists.join(', ')}`,
    );
    await untilQuiet(again.port);
    const listS = Math.round((Date.now() - t0) / 100) / 10;
    const samples = await sampleMemory(again);
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
  // The mean size of a watched pod as the apiserver sends it (JSON), over a page of this run's pods.
  const page = await client.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${namespace}/pods?limit=500`);
  if (page.items.length > 0)
    objectBytesJson = Math.round(
      page.items.reduce<number>(
        (a, p) => a + Buffer.byteLength(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...(p as object) })),
        0,
      ) / page.items.length,
    );
} finally {
  await cleanup();
}

const rssPerObject = leastSquaresSlope(steps.map((s) => [s.objects, Math.min(...s.rssBytes)]));
const heapPerObject = leastSquaresSlope(steps.map((s) => [s.objects, Math.min(...s.heapUsedBytes)]));
/** Heap used less code spaces, at the sample of least heap. */
const heapLessCode = (s: Step): number => {
  const i = s.heapUsedBytes.indexOf(Math.min(...s.heapUsedBytes));
  return (s.heapUsedBytes[i] ?? 0) - (s.codeBytes[i] ?? 0);
};
const heapLessCodePerObject = leastSquaresSlope(steps.map((s) => [s.objects, heapLessCode(s)]));
const runLoad = load();
console.log(
  `forwarder memory: one forwarder (functions/forwarder.ts, Redis driver, reads ${readMode}) watching ${CLUSTER_PREFIX}-1;`,
);
console.log(
  `Deployments of ${PODS_PER_WORKLOAD} pods (1 Deployment + 1 ReplicaSet + ${PODS_PER_WORKLOAD} pods), no worker; minimum of ${SAMPLES} samples after a forced GC`,
);
console.log(
  ['objects', 'pods', 'RSS MiB', 'heap MiB', 'heap less code MiB', 'RSS peak MiB', 'events', 'settle s', 'load'].join(
    '\t',
  ),
);
for (const s of steps)
  console.log(
    [s.objects, s.pods, s.rssMiB, s.heapUsedMiB, MiB(heapLessCode(s)), s.rssPeakMiB, s.events, s.settleS, s.load].join(
      '\t',
    ),
  );
console.log(
  `bytes per object: RSS ${Math.round(rssPerObject)}, heap ${Math.round(heapPerObject)}, heap less code ${Math.round(heapLessCodePerObject)} (least squares over ${steps.length} steps)`,
);
if (restart)
  console.log(
    `restarted on ${restart.objects} objects: RSS ${restart.rssMiB} MiB, heap ${restart.heapUsedMiB} MiB, RSS peak ${restart.rssPeakMiB} MiB (first start, 0 objects: ${restart.firstStartRssPeakMiB}), listed and quiet in ${restart.startS} s`,
  );
console.log(
  `mean JSON size of a watched pod: ${objectBytesJson} B; run ${Math.round((Date.now() - started) / 1000)} s; load ${runLoad}`,
);
if (values.json) {
  const doc = {
    at: new Date().toISOString(),
    load: runLoad,
    node: process.version,
    readMode,
    cluster: `${CLUSTER_PREFIX}-1`,
    nodes: NODES,
    bind: values['direct-bind'] ? 'direct' : 'scheduler',
    podsPerWorkload: PODS_PER_WORKLOAD,
    samplesPerStep: SAMPLES,
    steps: steps.map((s) => ({
      objects: s.objects,
      pods: s.pods,
      rssMiB: s.rssMiB,
      heapUsedMiB: s.heapUsedMiB,
      rssPeakMiB: s.rssPeakMiB,
      rssSamplesMiB: s.rssBytes.map(MiB),
      heapUsedSamplesMiB: s.heapUsedBytes.map(MiB),
      heapLessCodeMiB: MiB(heapLessCode(s)),
      events: s.events,
      settleS: s.settleS,
      load: s.load,
    })),
    bytesPerObject: {
      rss: Math.round(rssPerObject),
      heap: Math.round(heapPerObject),
      heapLessCode: Math.round(heapLessCodePerObject),
    },
    objectBytesJson,
    ...(restart && { restart }),
  };
  writeFileSync(values.json, `${JSON.stringify(doc, null, 2)}\n`);
}
process.exit(0);
