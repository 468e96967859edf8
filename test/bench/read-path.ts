// Issue 9's bench figures, counted on the apiserver side: API requests per converged change and convergence
// time under the upstream controllers (bench-upstream) and under fleetq (bench-fleetq, fleetq in this process),
// both sandbox clusters of this bench's own, started with an audit log (infra/sandbox/audit.ts) and stopped at
// the end, failure or not. Requests are counted from the audit log by client (test/helpers/audit-log.ts): the
// controller side is fleetq's ServiceAccounts against kube-controller-manager's workload controllers; kwok,
// kube-scheduler, the other kcm controllers and the bench itself are listed apart, not counted.
// Both sides get the same total client budget: kube-controller-manager's default per controller client (qps 20,
// burst 30; the sandbox passes none), and for fleetq's one per-cluster budget that times the two controllers.
// Steps run in turn, upstream then fleetq, so both see the same machine.
// Phases (--phases, comma-separated):
//   rolling  a rolling update of a --rolling-replicas (10) Deployment, --runs (3) times: median
//   rollout  create --replicas (300), rolling update, scale to a tenth
//   big      one namespace, --big-deployments (100) × --big-replicas (50) pods created at once; also fleetq's
//            cache memory per object and event → visible-in-cache lag (test/helpers/cache-probe.ts)
// Prints; asserts nothing.
//   npx tsx test/bench/read-path.ts [--phases rolling,rollout,big] [--big-deployments 20 --big-replicas 10]
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { down, up } from '../../infra/sandbox/sandbox.js';
import { isNotFound } from '../../shared/kube/errors.js';
import { AuditLog } from '../helpers/audit-log.js';
import { BenchClient, type RunningWatch } from '../helpers/bench-client.js';
import { CacheLagProbe, cachedObjects, heapAfterGc } from '../helpers/cache-probe.js';
import { credentialsFrom, startFleetq, type RunningFleetq } from '../helpers/conformance-fleetq.js';
import { deploymentComplete } from '../helpers/conformance-predicates.js';
import type { Check, Deployment, Pod, ReplicaSet, Snapshot } from '../helpers/conformance-types.js';
import { deployment, setImage } from '../conformance/scenarios/builders.js';
import { printComparison, printSummary, type CacheFigures, type Comparison, type Step } from './read-path-report.js';

const { values } = parseArgs({
  options: {
    phases: { type: 'string', default: 'rolling,rollout,big' },
    'rolling-replicas': { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    replicas: { type: 'string', default: '300' },
    'big-deployments': { type: 'string', default: '100' },
    'big-replicas': { type: 'string', default: '50' },
    qps: { type: 'string', default: '20' },
    burst: { type: 'string', default: '30' },
    'timeout-s': { type: 'string', default: '300' },
    'big-timeout-s': { type: 'string', default: '1200' },
  },
  strict: true,
});
const int = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
  return n;
};
const PHASES = new Set(String(values.phases).split(',').filter(Boolean));
const ROLLING = int('rolling-replicas');
const RUNS = int('runs');
const REPLICAS = int('replicas');
const BIG = { deployments: int('big-deployments'), replicas: int('big-replicas') };
const LIMITS = { qps: int('qps'), burst: int('burst') };
/**
 * kube-controller-manager gives each controller its own client with LIMITS; fleetq's budget is one per cluster.
 * The same total for fleetq: LIMITS times the controllers in play (Deployment and ReplicaSet).
 */
const CONTROLLERS = 2;
const FLEETQ_LIMITS = { qps: LIMITS.qps * CONTROLLERS, burst: LIMITS.burst * CONTROLLERS };
const TIMEOUT_MS = int('timeout-s') * 1000;
const BIG_TIMEOUT_MS = int('big-timeout-s') * 1000;
/** After convergence, requests still count for this long (a last status write or Event). */
const SETTLE_MS = 3_000;
const CLUSTERS = [
  { name: 'bench-upstream', mode: SandboxMode.Upstream, audit: true },
  { name: 'bench-fleetq', mode: SandboxMode.Fleetq, audit: true },
] as const;
const NAMES = CLUSTERS.map((c) => c.name);
const CACHED_KINDS = ['Pod', 'ReplicaSet', 'Deployment'] as const;

type Side = {
  readonly state: ClusterState;
  readonly client: BenchClient;
  readonly audit: AuditLog;
  readonly fleetq?: RunningFleetq;
};
type Sides = { readonly upstream: Side; readonly fleetq: Side };

const log = (msg: string): void => console.error(`${new Date().toISOString().slice(11, 19)} read-path: ${msg}`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const apps = (ns: string, name?: string): string =>
  `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`;

async function namespace(side: Side, prefix: string): Promise<string> {
  const ns = `rp-${prefix}-${randomUUID().slice(0, 6)}`;
  await side.client.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  // Pods are admitted only once kube-controller-manager made the namespace's default ServiceAccount.
  await until(async () => {
    try {
      await side.client.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
      return true;
    } catch (err) {
      if (isNotFound(err)) return 'no default ServiceAccount yet';
      throw err;
    }
  }, 60_000);
  return ns;
}

async function removeNamespace(side: Side, ns: string): Promise<void> {
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

/** Polls until `check` is true; ms from the start, or null at the deadline (with the last answer). */
async function until(
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

async function snapshot(side: Side, ns: string): Promise<Snapshot> {
  const list = async <T>(path: string): Promise<T[]> => (await side.client.request<{ items: T[] }>('GET', path)).items;
  return {
    at: Date.now(),
    deployments: await list<Deployment>(apps(ns)),
    replicaSets: await list<ReplicaSet>(`/apis/apps/v1/namespaces/${ns}/replicasets`),
    jobs: [],
    pods: await list<Pod>(`/api/v1/namespaces/${ns}/pods`),
  };
}

/** fleetq's own count of its API requests to the cluster (fleetq_kube_requests_total). */
async function selfCount(side: Side): Promise<number | undefined> {
  const m = side.fleetq?.app.deps.metrics.registry.getSingleMetric('fleetq_kube_requests_total');
  if (!m) return undefined;
  const { values: vs } = await m.get();
  return vs.filter((v) => v.labels.cluster === side.state.name).reduce((a, v) => a + v.value, 0);
}

/** One change and its convergence; the requests the apiserver received from its start to SETTLE_MS after. */
async function step(
  side: Side,
  act: () => Promise<void>,
  check: () => Promise<Check>,
  o: { timeoutMs: number; pollMs: number },
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
  log(`${side.state.name}: ${done.ms === null ? `did not converge (${done.last})` : `${done.ms} ms`}`);
  return {
    ms: done.ms,
    tally,
    load: loadavg()[0] ?? 0,
    ...(self0 !== undefined && self1 !== undefined && { selfCount: self1 - self0 }),
    ...(done.ms === null && { note: `${side.state.name} did not converge in ${o.timeoutMs / 1000} s: ${done.last}` }),
  };
}

const pollFor = (pods: number): number => (pods <= 50 ? 200 : pods <= 1000 ? 500 : 2_000);

async function rollingPhase(sides: Sides): Promise<Comparison[]> {
  const c: Comparison = { title: `rolling update, ${ROLLING} replicas (median of ${RUNS})`, upstream: [], fleetq: [] };
  const ns = { upstream: await namespace(sides.upstream, 'rolling'), fleetq: await namespace(sides.fleetq, 'rolling') };
  try {
    for (const k of ['upstream', 'fleetq'] as const) {
      const side = sides[k];
      await side.client.request('POST', apps(ns[k]), deployment('web', { replicas: ROLLING }));
      const ready = await until(async () => deploymentComplete('web')(await snapshot(side, ns[k])), TIMEOUT_MS);
      if (ready.ms === null)
        throw new Error(`${side.state.name}: the ${ROLLING}-replica Deployment never became ready`);
    }
    for (let run = 1; run <= RUNS; run++) {
      for (const k of ['upstream', 'fleetq'] as const) {
        log(`rolling update ${run}/${RUNS} on ${sides[k].state.name}`);
        c[k].push(
          await step(
            sides[k],
            async () =>
              void (await sides[k].client.update<Deployment>(apps(ns[k], 'web'), (d) => setImage(run + 1)(d))),
            async () => deploymentComplete('web')(await snapshot(sides[k], ns[k])),
            { timeoutMs: TIMEOUT_MS, pollMs: pollFor(ROLLING) },
          ),
        );
      }
    }
  } finally {
    await Promise.all((['upstream', 'fleetq'] as const).map((k) => removeNamespace(sides[k], ns[k])));
  }
  return [c];
}

async function rolloutPhase(sides: Sides): Promise<Comparison[]> {
  const scaled = Math.max(1, Math.round(REPLICAS / 10));
  const changes: Array<{ title: string; act: (side: Side, ns: string) => Promise<void> }> = [
    {
      title: `create ${REPLICAS}`,
      act: async (side, ns) =>
        void (await side.client.request('POST', apps(ns), deployment('web', { replicas: REPLICAS }))),
    },
    {
      title: `rolling update ${REPLICAS}`,
      act: async (side, ns) => void (await side.client.update<Deployment>(apps(ns, 'web'), (d) => setImage(2)(d))),
    },
    {
      title: `scale ${REPLICAS} → ${scaled}`,
      act: async (side, ns) =>
        void (await side.client.update<Deployment>(apps(ns, 'web'), (d) => {
          d.spec.replicas = scaled;
        })),
    },
  ];
  const ns = { upstream: await namespace(sides.upstream, 'rollout'), fleetq: await namespace(sides.fleetq, 'rollout') };
  const out: Comparison[] = [];
  try {
    for (const change of changes) {
      const c: Comparison = { title: change.title, upstream: [], fleetq: [] };
      for (const k of ['upstream', 'fleetq'] as const) {
        log(`${change.title} on ${sides[k].state.name}`);
        c[k].push(
          await step(
            sides[k],
            () => change.act(sides[k], ns[k]),
            async () => deploymentComplete('web')(await snapshot(sides[k], ns[k])),
            { timeoutMs: TIMEOUT_MS, pollMs: pollFor(REPLICAS) },
          ),
        );
      }
      out.push(c);
    }
  } finally {
    await Promise.all((['upstream', 'fleetq'] as const).map((k) => removeNamespace(sides[k], ns[k])));
  }
  return out;
}

/** kubectl rollout status' "successfully rolled out", from the Deployment's status alone. */
function isRolledOut(d: Deployment): boolean {
  const want = d.spec.replicas ?? 1;
  const st = d.status ?? {};
  return (
    (st.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
    st.updatedReplicas === want &&
    st.replicas === want &&
    st.availableReplicas === want
  );
}

async function bigOn(side: Side): Promise<Step> {
  const ns = await namespace(side, 'big');
  const names = Array.from({ length: BIG.deployments }, (_, i) => `d-${String(i).padStart(3, '0')}`);
  const store = side.fleetq?.app.deps.caches?.storeFor(side.state.name);
  const probe = store && new CacheLagProbe(store, ns);
  const watches: RunningWatch[] = [];
  let before: { heap: number; objects: number } | undefined;
  try {
    if (store && probe) {
      probe.start();
      const paths: Record<(typeof CACHED_KINDS)[number], string> = {
        Pod: `/api/v1/namespaces/${ns}/pods`,
        ReplicaSet: `/apis/apps/v1/namespaces/${ns}/replicasets`,
        Deployment: apps(ns),
      };
      for (const kind of CACHED_KINDS) {
        const list = await side.client.request<{ metadata: { resourceVersion: string } }>(
          'GET',
          `${paths[kind]}?limit=1`,
        );
        watches.push(
          await side.client.watch(paths[kind], list.metadata.resourceVersion, (e, at) =>
            probe.watchedEvent(kind, e, at),
          ),
        );
      }
      before = { objects: (await cachedObjects(store, CACHED_KINDS)).objects, heap: heapAfterGc() };
    }
    const create = async (): Promise<void> => {
      for (let i = 0; i < names.length; i += 10)
        await Promise.all(
          names
            .slice(i, i + 10)
            .map((n) => side.client.request('POST', apps(ns), deployment(n, { replicas: BIG.replicas }))),
        );
    };
    const check = async (): Promise<Check> => {
      const ds = (await side.client.request<{ items: Deployment[] }>('GET', apps(ns))).items;
      const done = ds.filter(isRolledOut).length;
      return done === names.length || `${done}/${names.length} Deployments rolled out`;
    };
    const s = await step(side, create, check, {
      timeoutMs: BIG_TIMEOUT_MS,
      pollMs: pollFor(BIG.deployments * BIG.replicas),
    });
    if (!store || !probe || !before) return s;
    const after = await cachedObjects(store, CACHED_KINDS);
    const heap = heapAfterGc();
    const cache: CacheFigures = {
      objects: after.objects - before.objects,
      heapDelta: heap - before.heap,
      jsonBytesPerObject: after.objects > 0 ? after.jsonBytes / after.objects : 0,
      lag: probe.result(),
    };
    return { ...s, cache };
  } finally {
    for (const w of watches) w.stop();
    probe?.stop();
  }
}

async function bigPhase(sides: Sides): Promise<Comparison[]> {
  const title = `one namespace, ${BIG.deployments} Deployments × ${BIG.replicas} pods`;
  log(`${title} on ${sides.upstream.state.name}`);
  const upstream = await bigOn(sides.upstream);
  log(`${title} on ${sides.fleetq.state.name}`);
  const fleetq = await bigOn(sides.fleetq);
  // The namespaces stay: the clusters are stopped right after, and a deletion would only load the machine.
  return [{ title, upstream: [upstream], fleetq: [fleetq] }];
}

async function main(): Promise<void> {
  const started = Date.now();
  const load0 = loadavg();
  const bigPods = PHASES.has('big') ? BIG.deployments * BIG.replicas : 0;
  // kwok nodes take 1 000 pods each (cluster.ts fakeNode); room for the largest phase and the ones before it.
  const nodes = Math.max(2, Math.ceil((bigPods + 2 * REPLICAS) / 900));
  let fleetq: RunningFleetq | undefined;
  const cleanup = async (): Promise<void> => {
    await fleetq?.stop().catch((err: unknown) => log(`fleetq stop: ${String(err)}`));
    fleetq = undefined;
    await down(NAMES).catch((err: unknown) => log(`sandbox down: ${String(err)}`));
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => {
      log(`${sig}: stopping fleetq and the bench clusters`);
      void cleanup().finally(() => process.exit(130));
    });
  const results: Comparison[] = [];
  try {
    await down(NAMES); // a previous run that died leaves its clusters; start from fresh ones
    const states = await up({ clusters: CLUSTERS, nodes, log: (m) => log(`sandbox: ${m}`) });
    const state = (name: string): ClusterState => {
      const s = states.find((c) => c.name === name);
      if (!s?.auditLog) throw new Error(`cluster ${name} has no audit log`);
      return s;
    };
    fleetq = await startFleetq('bench-fleetq', FLEETQ_LIMITS);
    const onAdmin = credentialsFrom() === 'admin';
    const sideOf = (s: ClusterState, f?: RunningFleetq): Side => ({
      state: s,
      client: BenchClient.fromKubeconfig(s.kubeconfig),
      audit: new AuditLog(s.auditLog ?? '', onAdmin),
      ...(f && { fleetq: f }),
    });
    const sides: Sides = { upstream: sideOf(state('bench-upstream')), fleetq: sideOf(state('bench-fleetq'), fleetq) };
    const phases: Array<[string, (s: Sides) => Promise<Comparison[]>]> = [
      ['rolling', rollingPhase],
      ['rollout', rolloutPhase],
      ['big', bigPhase],
    ];
    for (const [name, run] of phases) {
      if (!PHASES.has(name)) continue;
      try {
        results.push(...(await run(sides)));
      } catch (err) {
        log(`phase ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    }
  } finally {
    await cleanup();
  }
  console.log(
    `\nread-path bench: API requests counted by the apiserver (audit log, by user and user agent), ` +
      `bench-upstream (kube-controller-manager) vs bench-fleetq (fleetq in-process, reads from its cache)`,
  );
  console.log(
    `client limits: kube-controller-manager qps ${LIMITS.qps} burst ${LIMITS.burst} per controller client ` +
      `(${CONTROLLERS} controllers); fleetq qps ${FLEETQ_LIMITS.qps} burst ${FLEETQ_LIMITS.burst}, the cluster's ` +
      `one budget for all its handlers (the same total); ${nodes} kwok nodes per cluster`,
  );
  console.log(
    `load average (1/5/15 min): ${load0.map((l) => l.toFixed(1)).join('/')} at the start, ` +
      `${loadavg()
        .map((l) => l.toFixed(1))
        .join('/')} at the end; ${((Date.now() - started) / 60_000).toFixed(1)} min`,
  );
  for (const c of results) printComparison(c);
  printSummary(results);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`read-path: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
