// The two sides of a fleetq-against-upstream bench (test/bench/read-path.ts, jobs.ts, daemonset-statefulset.ts):
// a sandbox cluster of the bench's own in upstream mode (kube-controller-manager's workload controllers) and one
// in fleetq mode with fleetq in this process, both started with the apiserver's audit log and stopped at the end,
// failure or signal. A step is one change and its convergence, with the requests the apiserver received from its
// start to a few seconds after (test/helpers/sandbox/audit-log.ts counts them by client).
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../../infra/sandbox/modes.js';
import { down, up } from '../../../infra/sandbox/sandbox.js';
import { isNotFound } from '../../../shared/kube/errors.js';
import type { Comparison, Step } from '../../bench/read-path-report.js';
import { AuditLog, controllerSide } from '../sandbox/audit-log.js';
import { BenchClient } from './client.js';
import { credentialsFrom, startFleetq, type RunningFleetq } from '../conformance/fleetq.js';
import type { Check, Deployment, Pod, ReplicaSet, Snapshot } from '../conformance/types.js';

export type Side = {
  readonly state: ClusterState;
  readonly client: BenchClient;
  readonly audit: AuditLog;
  readonly fleetq?: RunningFleetq;
};
export type Sides = { readonly upstream: Side; readonly fleetq: Side };
export const SIDE_KEYS = ['upstream', 'fleetq'] as const;

export type Log = (msg: string) => void;

/** A bench's progress log on stderr (the tables go to stdout): `hh:mm:ss <bench>: <msg>`. */
export const benchLog =
  (bench: string): Log =>
  (msg) =>
    console.error(`${new Date().toISOString().slice(11, 19)} ${bench}: ${msg}`);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` is true; ms from `t0`, or null at the deadline (with the last answer). */
export async function until(
  check: () => Promise<Check>,
  timeoutMs: number,
  pollMs = 250,
  t0 = Date.now(),
): Promise<{ ms: number | null; last: string }> {
  let last = '';
  while (Date.now() - t0 < timeoutMs) {
    try {
      const c = await check();
      if (c === true) return { ms: Date.now() - t0, last: '' };
      last = String(c);
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await sleep(pollMs);
  }
  return { ms: null, last };
}

/** A fresh namespace `<prefix>-<random>`, once its default ServiceAccount exists (pods need it to be admitted). */
export async function benchNamespace(side: Side, prefix: string): Promise<string> {
  const ns = `${prefix}-${randomUUID().slice(0, 6)}`;
  await side.client.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  const made = await until(async () => {
    try {
      await side.client.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
      return true;
    } catch (err) {
      if (isNotFound(err)) return 'no default ServiceAccount yet';
      throw err;
    }
  }, 60_000);
  if (made.ms === null) throw new Error(`${side.state.name}: namespace ${ns}: ${made.last} after 60 s`);
  return ns;
}

export async function removeNamespace(side: Side, ns: string, log: Log): Promise<void> {
  await side.client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  const gone = await until(async () => {
    try {
      await side.client.request('GET', `/api/v1/namespaces/${ns}`);
      return 'still there';
    } catch (err) {
      return isNotFound(err) ? true : String(err);
    }
  }, 180_000);
  if (gone.ms === null) log(`${side.state.name}: namespace ${ns} not gone after 180 s (${gone.last}); going on`);
}

/** The sum of one of fleetq's counters over the side's cluster (undefined on the upstream side). */
export async function fleetqCounter(side: Side, metric: string): Promise<number | undefined> {
  const m = side.fleetq?.app.deps.metrics.registry.getSingleMetric(metric);
  if (!m) return undefined;
  const { values: vs } = await m.get();
  return vs.filter((v) => v.labels.cluster === side.state.name).reduce((a, v) => a + v.value, 0);
}

/** fleetq's own count of its API requests to the cluster (fleetq_kube_requests_total). */
export const selfCount = (side: Side): Promise<number | undefined> => fleetqCounter(side, 'fleetq_kube_requests_total');

/** After convergence, requests still count for this long (a last status write or Event). */
export const SETTLE_MS = 3_000;

/** One change and its convergence; the requests the apiserver received from its start to SETTLE_MS after. */
export async function step(
  side: Side,
  act: () => Promise<void>,
  check: () => Promise<Check>,
  o: { timeoutMs: number; pollMs: number; log: Log },
): Promise<Step> {
  side.audit.mark();
  const self0 = await selfCount(side);
  const t0 = Date.now();
  await act();
  const done = await until(check, o.timeoutMs, o.pollMs, t0);
  await sleep(SETTLE_MS);
  const t1 = Date.now();
  const self1 = await selfCount(side);
  await sleep(1_000); // the audit lines of requests answered at t1
  const tally = await side.audit.tally(t0, t1);
  o.log(`${side.state.name}: ${done.ms === null ? `did not converge (${done.last})` : `${done.ms} ms`}`);
  return {
    ms: done.ms,
    tally,
    load: loadavg()[0] ?? 0,
    ...(self0 !== undefined && self1 !== undefined && { selfCount: self1 - self0 }),
    ...(done.ms === null && { note: `${side.state.name} did not converge in ${o.timeoutMs / 1000} s: ${done.last}` }),
  };
}

export type BenchClusters = {
  /** The clusters' names: upstream mode, and fleetq mode (fleetq runs in this process). */
  readonly names: { readonly upstream: string; readonly fleetq: string };
  /** kwok nodes per cluster. */
  readonly nodes: number;
  /** fleetq's one API budget for the cluster. */
  readonly fleetqLimits: { readonly qps: number; readonly burst: number };
  readonly log: Log;
};

/**
 * Starts both clusters fresh (a previous run that died leaves its clusters) and fleetq on the fleetq one, runs
 * `run`, then stops fleetq and both clusters, also on SIGINT/SIGTERM.
 */
export async function withBenchSides<T>(o: BenchClusters, run: (sides: Sides) => Promise<T>): Promise<T> {
  const names = [o.names.upstream, o.names.fleetq];
  let fleetq: RunningFleetq | undefined;
  const cleanup = async (): Promise<void> => {
    await fleetq?.stop().catch((err: unknown) => o.log(`fleetq stop: ${String(err)}`));
    fleetq = undefined;
    await down(names).catch((err: unknown) => o.log(`sandbox down: ${String(err)}`));
  };
  const onSignal = (sig: NodeJS.Signals): void => {
    o.log(`${sig}: stopping fleetq and the bench clusters`);
    void cleanup().finally(() => process.exit(130));
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, onSignal);
  try {
    await down(names);
    const states = await up({
      clusters: [
        { name: o.names.upstream, mode: SandboxMode.Upstream, audit: true },
        { name: o.names.fleetq, mode: SandboxMode.Fleetq, audit: true },
      ],
      nodes: o.nodes,
      log: (m) => o.log(`sandbox: ${m}`),
    });
    const state = (name: string): ClusterState => {
      const s = states.find((c) => c.name === name);
      if (!s?.auditLog) throw new Error(`cluster ${name} has no audit log`);
      return s;
    };
    fleetq = await startFleetq(o.names.fleetq, o.fleetqLimits);
    const onAdmin = credentialsFrom() === 'admin';
    const sideOf = (s: ClusterState, f?: RunningFleetq): Side => ({
      state: s,
      client: BenchClient.fromKubeconfig(s.kubeconfig),
      audit: new AuditLog(s.auditLog ?? '', onAdmin),
      ...(f && { fleetq: f }),
    });
    return await run({ upstream: sideOf(state(o.names.upstream)), fleetq: sideOf(state(o.names.fleetq), fleetq) });
  } finally {
    await cleanup();
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.off(sig, onSignal);
  }
}

/** The load average line the benches print. */
export function loadLine(load0: readonly number[], startedMs: number): string {
  const fmt = (l: readonly number[]): string => l.map((x) => x.toFixed(1)).join('/');
  return (
    `load average (1/5/15 min): ${fmt(load0)} at the start, ${fmt(loadavg())} at the end; ` +
    `${((Date.now() - startedMs) / 60_000).toFixed(1)} min`
  );
}

/** fleetq's histograms that split a reconcile's latency: time waiting in the queue, working, waiting for the cache. */
const FLEETQ_HISTOGRAMS = [
  ['workqueue_queue_duration_seconds', 'queued'],
  ['workqueue_work_duration_seconds', 'work'],
  ['fleetq_cache_own_writes_wait_seconds', 'waiting for own writes in the cache'],
] as const;
const FLEETQ_COUNTERS = [
  ['workqueue_adds_total', 'adds'],
  ['workqueue_retries_total', 'retries'],
  ['fleetq_workqueue_conflict_retries_total', 'conflict retries'],
] as const;

export type FleetqTimes = ReadonlyMap<string, { sum: number; count: number }>;

/** The sums and counts of fleetq's latency histograms and queue counters (all labels), for a difference later. */
export async function fleetqTimes(side: Side): Promise<FleetqTimes | undefined> {
  const registry = side.fleetq?.app.deps.metrics.registry;
  if (!registry) return undefined;
  const out = new Map<string, { sum: number; count: number }>();
  for (const [name] of [...FLEETQ_HISTOGRAMS, ...FLEETQ_COUNTERS]) {
    const m = registry.getSingleMetric(name);
    if (!m) continue;
    const { values: vs } = await m.get();
    const total = (suffix: string): number =>
      vs
        .filter((v) => ((v as { metricName?: string }).metricName ?? name) === `${name}${suffix}`)
        .reduce((a, v) => a + v.value, 0);
    out.set(name, { sum: total(name.endsWith('_seconds') ? '_sum' : ''), count: total('_count') });
  }
  return out;
}

/** One line: fleetq's mean queue wait, work time and cache wait per reconcile, and its queue counters, in a step. */
export function fleetqTimesLine(before: FleetqTimes | undefined, after: FleetqTimes | undefined): string | undefined {
  if (!before || !after) return undefined;
  const delta = (name: string): { sum: number; count: number } => {
    const a = after.get(name);
    const b = before.get(name);
    return { sum: (a?.sum ?? 0) - (b?.sum ?? 0), count: (a?.count ?? 0) - (b?.count ?? 0) };
  };
  const means = FLEETQ_HISTOGRAMS.map(([name, label]) => {
    const d = delta(name);
    return `${label} ${d.count > 0 ? `${Math.round((d.sum / d.count) * 1000)} ms` : '—'} (${d.count})`;
  });
  const counts = FLEETQ_COUNTERS.map(([name, label]) => `${label} ${delta(name).sum}`);
  return `fleetq per reconcile, mean: ${means.join(', ')}; ${counts.join(', ')}`;
}

/** One line: the apiserver's mean time to answer the controller side's requests (audit log), each side. */
export function serverTimeLine(c: Comparison): string {
  const mean = (steps: readonly Step[]): string => {
    let ms = 0;
    let n = 0;
    for (const s of steps) {
      const side = controllerSide(s.tally);
      ms += side.serverMs ?? 0;
      n += side.timed ?? 0;
    }
    return n > 0 ? `${(ms / n).toFixed(1)} ms (${n} requests)` : '—';
  };
  return `  apiserver time per controller request, mean: upstream ${mean(c.upstream)}; fleetq ${mean(c.fleetq)}`;
}

/** The namespace's Deployments, ReplicaSets and pods on one side, as the conformance predicates read them. */
export async function deploymentSnapshot(side: Side, ns: string): Promise<Snapshot> {
  const list = async <T>(path: string): Promise<T[]> => (await side.client.request<{ items: T[] }>('GET', path)).items;
  return {
    at: Date.now(),
    deployments: await list<Deployment>(`/apis/apps/v1/namespaces/${ns}/deployments`),
    replicaSets: await list<ReplicaSet>(`/apis/apps/v1/namespaces/${ns}/replicasets`),
    jobs: [],
    pods: await list<Pod>(`/api/v1/namespaces/${ns}/pods`),
  };
}
