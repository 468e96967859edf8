// The fleet bench on simulated clusters (test/cluster-sim): N clusters × D Deployments served by a forwarder pool
// of F members and W workers on the Redis driver (a redis-server of its own, or with --redis-cluster a real 6-node
// Redis Cluster, test/helpers/redis-cluster.ts). The simulator runs in this process; fleetq's processes are its
// real entry points (functions/forwarder.ts as pool members, functions/worker.ts). Phases:
//   create    every Deployment created at once; until all are rolled out
//   roll      --roll Deployments of each cluster (default all) set to a new image at once; until all are rolled out
//   storm     --storm keys of one cluster added to the queue at once, while one Deployment changes in each of
//             --quiet other clusters: the quiet changes' event→reconcile against the roll's (fairness)
//   failover  one pool member killed (SIGKILL) while one Deployment changes in every cluster: time until each
//             of its clusters has a new lease holder, and until the change there is reconciled
// Reports keys/s (reconciles per second, fleetq_reconcile_total over the workers), event→reconcile (a change at
// the simulated apiserver to fleetq's first write for it: the new ReplicaSet, or a status write observing the
// new generation) p50/p99 per cluster, forwarder and worker peak RSS and CPU seconds (from /proc) per cluster,
// Redis used_memory and commands per node (INFO commandstats deltas). Prints a JSON report; --json writes it.
//   npx tsx test/bench/fleet-sim.ts [--clusters 100] [--deployments 10] [--replicas 1] [--forwarders 4]
//     [--workers 4] [--concurrency 32] [--roll D] [--storm 2000] [--quiet 50] [--no-failover] [--redis-cluster]
//     [--lease-ms 15000] [--quarantine-deaths 3] [--cluster-idle-ms 600000] [--timeout-s 900]
//     [--json docs/cost-model-sim.json] [--cpu-prof DIR]
// --cpu-prof writes a V8 CPU profile of every worker and forwarder into DIR when it stops (node --cpu-prof).
// On a starved machine a member's renewals can lapse while it syncs its clusters, which the pool counts as deaths
// while syncing: after 3 the cluster is quarantined for an hour (cluster-quarantine.ts). --quarantine-deaths
// raises that limit for a run that should measure throughput rather than the quarantine.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { waitFor } from '../../infra/sandbox/process.js';
import { forwarderLeaseKey, forwarderSyncingKey, queuePrefixOf } from '../../shared/forwarder/forwarder-keys.js';
import { createQueue } from '../../shared/queue/index.js';
import type { Obj, SimCluster } from '../cluster-sim/sim-cluster.js';
import { ensureNamespace, isRolledOut, kwokDeployment, setImage, SimFleet } from '../helpers/cluster-sim/sim-fleet.js';
import { parseMetric, RssSampler } from '../helpers/pipeline/fleet-pipeline.js';
import { startOwnRedis } from '../helpers/queue/redis.js';
import { median, percentile } from '../helpers/stats.js';

const { values } = parseArgs({
  options: {
    clusters: { type: 'string', default: '100' },
    deployments: { type: 'string', default: '10' },
    replicas: { type: 'string', default: '1' },
    forwarders: { type: 'string', default: '4' },
    workers: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '32' },
    /** Deployments per cluster the roll phase changes (app-0 … app-K-1); default every one. */
    roll: { type: 'string' },
    storm: { type: 'string', default: '2000' },
    quiet: { type: 'string', default: '50' },
    'no-failover': { type: 'boolean', default: false },
    'redis-cluster': { type: 'boolean', default: false },
    'lease-ms': { type: 'string', default: '15000' },
    /** FLEETQ_FORWARDER_QUARANTINE_DEATHS of the pool members (default fleetq's, 3). */
    'quarantine-deaths': { type: 'string' },
    /** FLEETQ_CLUSTER_IDLE_MS of the workers (default fleetq's): per-cluster state forgotten once idle this long. */
    'cluster-idle-ms': { type: 'string' },
    'timeout-s': { type: 'string', default: '900' },
    json: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const N = Number(values.clusters);
const D = Number(values.deployments);
const R = Number(values.replicas);
const F = Number(values.forwarders);
const W = Number(values.workers);
const ROLL = Math.min(D, Number(values.roll ?? D));
const STORM = Number(values.storm);
const QUIET = Math.min(Number(values.quiet), N - 1);
const TIMEOUT_MS = Number(values['timeout-s']) * 1000;
const NS = 'bench';
/** A Deployment's image after the roll phase: app:2 for the ones it changed, app:1 for the rest. */
const rolledImage = (name: string): string => (Number(name.slice('app-'.length)) < ROLL ? 'app:2' : 'app:1');
/** The Deployment the failover changes in every cluster (another than the storm's quiet one when there are two). */
const FAILOVER_APP = D > 1 ? 'app-1' : 'app-0';
const log = (m: string): void => console.error(`fleet-sim ${new Date().toISOString().slice(11, 19)}: ${m}`);
const load = (): number => Math.round((loadavg()[0] ?? 0) * 10) / 10;
const MiB = (b: number): number => Math.round((b / 2 ** 20) * 10) / 10;
const round = (x: number | undefined, digits = 0): number | null =>
  x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits;

/** utime + stime of a process, in seconds (0 once it is gone). */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return 0;
  }
}

type Redises = { url: string; nodes: () => Promise<Array<{ name: string; client: Redis }>>; stop(): Promise<void> };

async function startRedis(): Promise<Redises> {
  if (values['redis-cluster']) {
    const { startRedisCluster } = await import('../helpers/redis-cluster.js');
    const rc = await startRedisCluster();
    const clients = new Map<number, Redis>();
    return {
      url: rc.url,
      nodes: async () =>
        (await rc.nodes())
          .filter((n) => n.role === 'primary' && !n.killed)
          .map((n) => {
            let c = clients.get(n.port);
            if (!c) clients.set(n.port, (c = new Redis({ port: n.port, host: '127.0.0.1', lazyConnect: false })));
            return { name: `127.0.0.1:${n.port}`, client: c };
          }),
      stop: async () => {
        for (const c of clients.values()) c.disconnect();
        await rc.stop();
      },
    };
  }
  const own = await startOwnRedis();
  const client = new Redis(own.url);
  return {
    url: own.url,
    nodes: async () => [{ name: `127.0.0.1:${own.port}`, client }],
    stop: async () => {
      client.disconnect();
      await own.stop();
    },
  };
}

async function commandStats(r: Redises): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>();
  for (const n of await r.nodes()) {
    const calls: Record<string, number> = {};
    for (const m of (await n.client.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      calls[m[1] as string] = Number(m[2]);
    out.set(n.name, calls);
  }
  return out;
}

async function usedMemory(r: Redises): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const n of await r.nodes())
    out[n.name] = Number(/used_memory:(\d+)/.exec(await n.client.info('memory'))?.[1] ?? 0);
  return out;
}

function callsDelta(a: Map<string, Record<string, number>>, b: Map<string, Record<string, number>>) {
  return [...b].map(([node, after]) => {
    const before = a.get(node) ?? {};
    const by = Object.fromEntries(
      Object.entries(after)
        .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
        .filter(([, v]) => v > 0)
        .sort((x, y) => y[1] - x[1]),
    );
    return { node, calls: Object.values(by).reduce((s, v) => s + v, 0), byCommand: by };
  });
}

/**
 * Event → reconcile clocks: `expect(cluster, deployment)` starts one at a change; fleetq's first write for it stops
 * it: a ReplicaSet created under the Deployment, or a status write whose observedGeneration reaches the new one.
 */
class ReactionClock {
  private readonly pending = new Map<string, { t: number; generation: number; cluster: string }>();
  readonly done = new Map<string, number[]>();
  watch(c: SimCluster): void {
    c.observers.add((type, res, o) => {
      if (this.pending.size === 0) return;
      let uid: string | undefined;
      if (res.kind === 'ReplicaSet' && type === 'ADDED') {
        uid = o.metadata.ownerReferences?.find((r) => r.controller)?.uid;
      } else if (res.kind === 'Deployment' && type === 'MODIFIED') {
        const p = this.pending.get(o.metadata.uid);
        const observed = (o.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0;
        if (p && observed >= p.generation) uid = o.metadata.uid;
      }
      const p = uid === undefined ? undefined : this.pending.get(uid);
      if (!p || uid === undefined) return;
      this.pending.delete(uid);
      const list = this.done.get(p.cluster) ?? [];
      list.push(Date.now() - p.t);
      this.done.set(p.cluster, list);
    });
  }
  expect(cluster: string, d: Obj, t: number): void {
    this.pending.set(d.metadata.uid, { t, generation: Number(d.metadata.generation ?? 1), cluster });
  }
  get waiting(): number {
    return this.pending.size;
  }
  reset(): void {
    this.pending.clear();
    this.done.clear();
  }
  summary() {
    const all = [...this.done.values()].flat();
    const p50s = [...this.done.values()].map((xs) => percentile(xs, 0.5) ?? 0);
    const p99s = [...this.done.values()].map((xs) => percentile(xs, 0.99) ?? 0);
    return {
      reactions: all.length,
      p50Ms: round(percentile(all, 0.5)),
      p99Ms: round(percentile(all, 0.99)),
      maxMs: round(Math.max(...all)),
      perCluster: {
        clusters: this.done.size,
        p50Ms: { median: round(median(p50s)), max: round(Math.max(...p50s)) },
        p99Ms: { median: round(median(p99s)), max: round(Math.max(...p99s)) },
      },
    };
  }
}

function imageOf(d: Obj): string | undefined {
  return (d.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]
    ?.image;
}

function countRolledOut(fleet: SimFleet, image: (cluster: string, name: string) => string): number {
  let n = 0;
  for (const c of fleet.clusters) {
    for (const d of c.list(c.resource('apps', 'deployments'), NS).items)
      if (imageOf(d) === image(c.name, d.metadata.name) && isRolledOut(d)) n++;
  }
  return n;
}

async function reconciles(fleet: SimFleet): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const name of fleet.procs.keys()) {
    if (!name.startsWith('worker-')) continue;
    const text = await fleet.scrape(name).catch(() => '');
    for (const s of parseMetric(text, 'fleetq_reconcile_total')) {
      const k = s.labels.cluster ?? '';
      out.set(k, (out.get(k) ?? 0) + s.value);
    }
  }
  return out;
}
const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

function cpuByRole(fleet: SimFleet): { forwarder: number; worker: number } {
  let forwarder = 0;
  let worker = 0;
  for (const [name, pid] of fleet.pids()) {
    if (name.startsWith('forwarder-')) forwarder += cpuSeconds(pid);
    else worker += cpuSeconds(pid);
  }
  return { forwarder, worker };
}

/** What main started, stopped on a failure (in reverse). */
const cleanups: Array<() => Promise<void>> = [];

async function main(): Promise<void> {
  const command = `npx tsx test/bench/fleet-sim.ts ${process.argv.slice(2).join(' ')}`.trim();
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  log(`redis ${values['redis-cluster'] ? 'cluster (6 nodes)' : 'single'} at ${redis.url}; load ${load()}`);
  // Before fleetq starts: the Redis is empty, so what it holds later is fleetq's (the cache, queue, checkpoints).
  const mem0 = await usedMemory(redis);
  const t0 = Date.now();
  const fleet = await SimFleet.start({
    clusters: N,
    forwarders: F,
    workers: W,
    redisUrl: redis.url,
    concurrency: Number(values.concurrency),
    leaseMs: Number(values['lease-ms']),
    env: {
      ...(values['quarantine-deaths'] !== undefined && {
        FLEETQ_FORWARDER_QUARANTINE_DEATHS: values['quarantine-deaths'],
      }),
      ...(values['cluster-idle-ms'] !== undefined && { FLEETQ_CLUSTER_IDLE_MS: values['cluster-idle-ms'] }),
      ...(values['cpu-prof'] !== undefined && {
        NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(values['cpu-prof'])}`,
      }),
    },
    sim: { podScheduleMs: 20, podReadyMs: 100, podDeleteMs: 20, bookmarkMs: 30_000 },
  });
  cleanups.push(() => fleet.stop());
  const queuePrefix = queuePrefixOf(fleet.queue, fleet.prefix);
  const leaseClient = (await redis.nodes())[0]?.client;
  const holders = async (): Promise<Map<string, string>> => {
    const out = new Map<string, string>();
    if (values['redis-cluster']) {
      const { connectRedis } = await import('../../shared/queue/redis/redis-connection.js');
      const c = connectRedis(redis.url);
      try {
        for (const cl of fleet.clusters) out.set(cl.name, (await c.get(forwarderLeaseKey(cl.name, queuePrefix))) ?? '');
      } finally {
        c.disconnect();
      }
      return out;
    }
    const vals = await leaseClient!.mget(...fleet.clusters.map((c) => forwarderLeaseKey(c.name, queuePrefix)));
    fleet.clusters.forEach((c, i) => out.set(c.name, vals[i] ?? ''));
    return out;
  };
  await waitFor(
    async () => [...(await holders()).values()].every((h) => h !== ''),
    TIMEOUT_MS,
    500,
    'every cluster held',
  );
  const heldMs = Date.now() - t0;
  // Held is not synced: a holder's first lists are done when it takes its syncing mark off (cluster-quarantine.ts).
  const syncing = async (): Promise<number> => {
    if (values['redis-cluster']) {
      const { connectRedis } = await import('../../shared/queue/redis/redis-connection.js');
      const c = connectRedis(redis.url);
      try {
        return await c.hlen(forwarderSyncingKey(queuePrefix));
      } finally {
        c.disconnect();
      }
    }
    return leaseClient!.hlen(forwarderSyncingKey(queuePrefix));
  };
  await waitFor(async () => (await syncing()) === 0, TIMEOUT_MS, 500, 'every cluster synced');
  const startMs = Date.now() - t0;
  log(
    `${N} clusters, ${F} forwarders, ${W} workers up; every cluster held in ${heldMs} ms, synced in ${startMs} ms; load ${load()}`,
  );
  const rss = new RssSampler(() => fleet.pids(), 1000);
  const clock = new ReactionClock();
  for (const c of fleet.clusters) clock.watch(c);
  const queue = await createQueue({ driver: 'redis', redisUrl: redis.url, name: fleet.queue, prefix: fleet.prefix });

  const phases: Record<string, unknown> = {};
  const stats0 = await commandStats(redis);
  const rssAtStart = new RssSampler(() => fleet.pids(), 60_000);
  rssAtStart.stop();
  const startRss = (role: string) =>
    [...rssAtStart.last].filter(([n]) => n.startsWith(role)).reduce((a, [, b]) => a + b, 0);
  const phase = async (name: string, changed: number, act: () => void, image: (c: string, d: string) => string) => {
    clock.reset();
    const cpu0 = cpuByRole(fleet);
    const rec0 = total(await reconciles(fleet));
    const loads = [load()];
    const t = Date.now();
    act();
    let lastLog = t;
    await waitFor(
      async () => {
        loads.push(load());
        const done = countRolledOut(fleet, image);
        if (Date.now() - lastLog >= 30_000) {
          lastLog = Date.now();
          const avail = Number(/MemAvailable:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);
          log(
            `${name}: ${done}/${N * D} rolled out after ${Math.round((lastLog - t) / 1000)} s; load ${load()}; ` +
              `${Math.round((avail / 2 ** 20) * 10) / 10} GiB available`,
          );
        }
        return done === N * D;
      },
      TIMEOUT_MS,
      500,
      `${name}: every Deployment rolled out`,
    );
    const ms = Date.now() - t;
    const rec = total(await reconciles(fleet)) - rec0;
    const cpu1 = cpuByRole(fleet);
    const out = {
      ms,
      reconciles: rec,
      keysPerS: round(rec / (ms / 1000), 1),
      deploymentsChanged: changed,
      deploymentsPerS: round(changed / (ms / 1000), 1),
      cpuS: { forwarder: round(cpu1.forwarder - cpu0.forwarder, 1), worker: round(cpu1.worker - cpu0.worker, 1) },
      eventToReconcile: clock.summary(),
      load: { start: loads[0], max: Math.max(...loads) },
    };
    log(`${name}: ${JSON.stringify(out)}`);
    phases[name] = out;
  };

  for (const c of fleet.clusters) ensureNamespace(c, NS);
  await phase(
    'create',
    N * D,
    () => {
      const now = Date.now();
      for (let i = 0; i < D; i++)
        for (const c of fleet.clusters) {
          const d = c.create(c.resource('apps', 'deployments'), NS, kwokDeployment(`app-${i}`, R, 'app:1'));
          clock.expect(c.name, d, now);
        }
    },
    () => 'app:1',
  );
  await phase(
    'roll',
    N * ROLL,
    () => {
      for (let i = 0; i < ROLL; i++)
        for (const c of fleet.clusters) clock.expect(c.name, setImage(c, NS, `app-${i}`, 'app:2'), Date.now());
    },
    (_c, d) => rolledImage(d),
  );
  const stats1 = await commandStats(redis);
  const mem1 = await usedMemory(redis);
  rss.sample();
  const peak = (role: string) => [...rss.peak].filter(([n]) => n.startsWith(role)).reduce((a, [, b]) => a + b, 0);
  const cpuTotal = cpuByRole(fleet);
  // The workers' V8 heap after the roll (prom-client's default metrics): what RSS holds beyond it is GC headroom,
  // code and native memory, not state kept per cluster.
  const heap = { used: 0, total: 0, external: 0 };
  for (const name of fleet.procs.keys()) {
    if (!name.startsWith('worker-')) continue;
    const text = await fleet.scrape(name).catch(() => '');
    heap.used += parseMetric(text, 'nodejs_heap_size_used_bytes')[0]?.value ?? 0;
    heap.total += parseMetric(text, 'nodejs_heap_size_total_bytes')[0]?.value ?? 0;
    heap.external += parseMetric(text, 'nodejs_external_memory_bytes')[0]?.value ?? 0;
  }
  /** A role's (forwarder-, worker-) memory at start and peak, in all and per cluster, and its CPU seconds. */
  const roleFigures = (role: string, cpuS: number) => ({
    rssAtStartMiB: MiB(startRss(role)),
    rssPeakMiB: MiB(peak(role)),
    rssGrowthKiBPerCluster: round((peak(role) - startRss(role)) / 1024 / N, 1),
    rssPeakKiBPerCluster: round(peak(role) / 1024 / N, 1),
    cpuS: round(cpuS, 1),
    cpuMsPerCluster: round((cpuS * 1000) / N),
  });
  const processes = {
    forwarder: { members: F, ...roleFigures('forwarder-', cpuTotal.forwarder) },
    worker: {
      processes: W,
      ...roleFigures('worker-', cpuTotal.worker),
      heapAfterRollMiB: { used: MiB(heap.used), total: MiB(heap.total), external: MiB(heap.external) },
      clusterIdleMs: values['cluster-idle-ms'] === undefined ? null : Number(values['cluster-idle-ms']),
    },
  };
  const redisReport = {
    mode: values['redis-cluster'] ? 'cluster' : 'single',
    usedMemoryBytes: mem1,
    /** used_memory after the roll minus before fleetq started (an empty Redis). */
    usedMemoryDeltaBytes: Object.fromEntries(Object.entries(mem1).map(([k, v]) => [k, v - (mem0[k] ?? 0)])),
    commandsCreateAndRoll: callsDelta(stats0, stats1).map((n) => ({
      ...n,
      byCommand: Object.fromEntries(Object.entries(n.byCommand).slice(0, 8)),
    })),
  };
  log(`processes ${JSON.stringify(processes)}; redis ${JSON.stringify(redisReport)}`);

  // Storm: many keys of one cluster at once; quiet changes elsewhere.
  let storm: Record<string, unknown> | undefined;
  if (STORM > 0 && QUIET > 0) {
    const quiet = fleet.clusters.slice(1, 1 + QUIET);
    // The quiet changes without a storm first: the baseline.
    clock.reset();
    for (const c of quiet) clock.expect(c.name, setImage(c, NS, 'app-0', 'app:3a'), Date.now());
    await waitFor(async () => clock.waiting === 0, TIMEOUT_MS, 100, 'quiet baseline changes reconciled');
    const baselineSummary = clock.summary();
    clock.reset();
    const stormName = fleet.clusters[0]?.name ?? '';
    const before = (await reconciles(fleet)).get(stormName) ?? 0;
    const t = Date.now();
    await Promise.all(
      Array.from({ length: STORM }, (_, i) =>
        queue.add({ cluster: stormName, kind: 'Deployment', namespace: 'storm', name: `d-${i}` }),
      ),
    );
    for (const c of quiet) clock.expect(c.name, setImage(c, NS, 'app-0', 'app:3'), Date.now());
    await waitFor(async () => clock.waiting === 0, TIMEOUT_MS, 100, 'quiet changes reconciled');
    const quietSummary = clock.summary();
    let drainMs: number | null = null;
    await waitFor(
      async () => ((await reconciles(fleet)).get(stormName) ?? 0) - before >= STORM,
      TIMEOUT_MS,
      200,
      'storm drained',
    )
      .then(() => (drainMs = Date.now() - t))
      .catch(() => undefined);
    const baseline = baselineSummary.p50Ms ?? 0;
    storm = {
      stormKeys: STORM,
      stormCluster: stormName,
      quietClusters: QUIET,
      quietWithoutStorm: baselineSummary,
      quietDuringStorm: quietSummary,
      quietP50DuringOverWithout: round((quietSummary.p50Ms ?? 0) / Math.max(1, baseline), 2),
      quietP99DuringOverWithout: round((quietSummary.p99Ms ?? 0) / Math.max(1, baselineSummary.p99Ms ?? 0), 2),
      stormDrainMs: drainMs,
      load: load(),
    };
    log(`storm: ${JSON.stringify(storm)}`);
  }

  // Failover: one member killed; one change in every cluster.
  let failover: Record<string, unknown> | undefined;
  if (!values['no-failover'] && F > 1) {
    const victim = fleet.procs.get('forwarder-1');
    const pid = victim?.proc.child.pid;
    const before = await holders();
    const held = [...before].filter(([, h]) => h.includes(`/${pid}/`)).map(([c]) => c);
    clock.reset();
    const tKill = Date.now();
    victim?.proc.child.kill('SIGKILL');
    for (const c of fleet.clusters) clock.expect(c.name, setImage(c, NS, FAILOVER_APP, 'app:4'), tKill);
    const takeover = new Map<string, number>();
    await waitFor(
      async () => {
        const now = await holders();
        for (const c of held) {
          const h = now.get(c) ?? '';
          if (!takeover.has(c) && h !== '' && !h.includes(`/${pid}/`)) takeover.set(c, Date.now() - tKill);
        }
        return takeover.size === held.length && clock.waiting === 0;
      },
      TIMEOUT_MS,
      250,
      'the killed member clusters served again',
    );
    const served = held.flatMap((c) => clock.done.get(c) ?? []);
    const others = fleet.clusters.filter((c) => !held.includes(c.name)).flatMap((c) => clock.done.get(c.name) ?? []);
    const takeovers = [...takeover.values()];
    failover = {
      leaseMs: Number(values['lease-ms']),
      clustersOfKilledMember: held.length,
      takeoverMs: { p50: round(percentile(takeovers, 0.5)), max: round(Math.max(...takeovers)) },
      servedAgainMs: {
        p50: round(percentile(served, 0.5)),
        p99: round(percentile(served, 0.99)),
        max: round(Math.max(...served)),
      },
      otherClustersMs: { p50: round(percentile(others, 0.5)), p99: round(percentile(others, 0.99)) },
      load: load(),
    };
    log(`failover: ${JSON.stringify(failover)}`);
    await waitFor(
      async () =>
        countRolledOut(fleet, (_c, d) => (d === FAILOVER_APP ? 'app:4' : rolledImage(d))) >=
        N * D - (D > 1 ? QUIET : 0),
      TIMEOUT_MS,
      500,
      'rolled out after failover',
    ).catch((err: unknown) => log(String(err)));
  }

  const deadLetters = (await queue.deadLetters()).length;
  const report = {
    command,
    machine: '2 cores shared with other work',
    size: {
      clusters: N,
      deploymentsPerCluster: D,
      rolledPerCluster: ROLL,
      replicas: R,
      forwarders: F,
      workers: W,
      concurrency: Number(values.concurrency),
    },
    heldMs,
    startMs,
    phases,
    processes,
    redis: redisReport,
    storm,
    failover,
    deadLetters,
    costModel: {
      forwarderRssKiBPerCluster: processes.forwarder.rssPeakKiBPerCluster,
      forwarderRssGrowthKiBPerCluster: processes.forwarder.rssGrowthKiBPerCluster,
      workerRssKiBPerCluster: processes.worker.rssPeakKiBPerCluster,
      workerRssGrowthKiBPerCluster: processes.worker.rssGrowthKiBPerCluster,
      forwarderCpuMsPerCluster: processes.forwarder.cpuMsPerCluster,
      workerCpuMsPerReconcile: round(
        (cpuTotal.worker * 1000) /
          Math.max(
            1,
            (phases.create as { reconciles: number }).reconciles + (phases.roll as { reconciles: number }).reconciles,
          ),
        2,
      ),
      redisCallsPerReconcile: round(
        redisReport.commandsCreateAndRoll.reduce((a, n) => a + n.calls, 0) /
          Math.max(
            1,
            (phases.create as { reconciles: number }).reconciles + (phases.roll as { reconciles: number }).reconciles,
          ),
        1,
      ),
      redisBytesPerDeployment: round(
        Object.values(redisReport.usedMemoryDeltaBytes).reduce((a, b) => a + b, 0) / (N * D),
      ),
    },
  };
  console.log(JSON.stringify(report, null, 2));
  if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  rss.stop();
  await queue.close();
  await fleet.stop();
  await redis.stop();
}

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    console.error(err);
    // A failed phase (a timeout) still stops fleetq's processes and the Redis nodes it started.
    for (const stop of cleanups.reverse()) await stop().catch((e: unknown) => console.error(e));
    process.exit(1);
  },
);
