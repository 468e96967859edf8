// The read path's figures, counted on the apiserver side: API requests per converged change and convergence
// time under the upstream controllers (bench-upstream) and under fleetq (bench-fleetq, fleetq in this process),
// both sandbox clusters of this bench's own, started with an audit log (infra/sandbox/audit.ts) and stopped at
// the end, failure or not. Requests are counted from the audit log by client (test/helpers/sandbox/audit-log.ts): the
// controller side is fleetq's ServiceAccounts against kube-controller-manager's workload controllers; kwok,
// kube-scheduler, the other kcm controllers and the bench itself are listed apart, not counted.
// Both sides run at their defaults: kube-controller-manager's client per controller (qps 20, burst 30; the sandbox
// passes none), and fleetq's registry defaults, a budget per controller and cluster of the same (DEFAULT_LIMITS).
// Steps run in turn, upstream then fleetq, so both see the same machine.
// Phases (--phases, comma-separated):
//   rolling  a rolling update of a --rolling-replicas (10) Deployment, --runs (3) times: median
//   rollout  create --replicas (300), rolling update, scale to a tenth
//   big      one namespace, --big-deployments (100) × --big-replicas (50) pods created at once; also fleetq's
//            cache memory per object and event → visible-in-cache lag (test/helpers/pipeline/cache-probe.ts)
// Prints; asserts nothing.
//   npx tsx test/bench/read-path.ts [--phases rolling,rollout,big] [--big-deployments 20 --big-replicas 10]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_LIMITS } from '../../shared/kube/registry.js';
import { type RunningWatch } from '../helpers/bench/client.js';
import {
  benchLog,
  benchNamespace,
  deploymentSnapshot,
  loadLine,
  removeNamespace,
  step,
  until,
  withBenchSides,
  type Side,
  type Sides,
} from '../helpers/bench/sides.js';
import { phaseLines, phaseTotals } from '../helpers/bench/phases.js';
import { CacheLagProbe, cachedObjects, heapAfterGc } from '../helpers/pipeline/cache-probe.js';
import { deploymentComplete } from '../helpers/conformance/predicates.js';
import type { Check, Deployment } from '../helpers/conformance/types.js';
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
/** fleetq at its registry defaults: each controller (Deployment, ReplicaSet) a budget of its own, as kcm's. */
const FLEETQ_LIMITS = DEFAULT_LIMITS;
const TIMEOUT_MS = int('timeout-s') * 1000;
const BIG_TIMEOUT_MS = int('big-timeout-s') * 1000;
const CACHED_KINDS = ['Pod', 'ReplicaSet', 'Deployment'] as const;

const log = benchLog('read-path');
const apps = (ns: string, name?: string): string =>
  `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`;
const namespace = (side: Side, prefix: string): Promise<string> => benchNamespace(side, `rp-${prefix}`);

/** fleetq's per-phase reconcile times of the phases that collect them (test/helpers/bench/phases.ts). */
const PHASE_NOTES: string[] = [];

const pollFor = (pods: number): number => (pods <= 50 ? 200 : pods <= 1000 ? 500 : 2_000);

async function rollingPhase(sides: Sides): Promise<Comparison[]> {
  const c: Comparison = { title: `rolling update, ${ROLLING} replicas (median of ${RUNS})`, upstream: [], fleetq: [] };
  const ns = { upstream: await namespace(sides.upstream, 'rolling'), fleetq: await namespace(sides.fleetq, 'rolling') };
  try {
    for (const k of ['upstream', 'fleetq'] as const) {
      const side = sides[k];
      await side.client.request('POST', apps(ns[k]), deployment('web', { replicas: ROLLING }));
      const ready = await until(
        async () => deploymentComplete('web')(await deploymentSnapshot(side, ns[k])),
        TIMEOUT_MS,
      );
      if (ready.ms === null)
        throw new Error(`${side.state.name}: the ${ROLLING}-replica Deployment never became ready`);
    }
    const phases0 = await phaseTotals(sides.fleetq);
    for (let run = 1; run <= RUNS; run++) {
      for (const k of ['upstream', 'fleetq'] as const) {
        log(`rolling update ${run}/${RUNS} on ${sides[k].state.name}`);
        c[k].push(
          await step(
            sides[k],
            async () =>
              void (await sides[k].client.update<Deployment>(apps(ns[k], 'web'), (d) => setImage(run + 1)(d))),
            async () => deploymentComplete('web')(await deploymentSnapshot(sides[k], ns[k])),
            { timeoutMs: TIMEOUT_MS, pollMs: pollFor(ROLLING), log },
          ),
        );
      }
    }
    for (const line of phaseLines(phases0, await phaseTotals(sides.fleetq))) PHASE_NOTES.push(`${c.title}: ${line}`);
  } finally {
    await Promise.all((['upstream', 'fleetq'] as const).map((k) => removeNamespace(sides[k], ns[k], log)));
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
            async () => deploymentComplete('web')(await deploymentSnapshot(sides[k], ns[k])),
            { timeoutMs: TIMEOUT_MS, pollMs: pollFor(REPLICAS), log },
          ),
        );
      }
      out.push(c);
    }
  } finally {
    await Promise.all((['upstream', 'fleetq'] as const).map((k) => removeNamespace(sides[k], ns[k], log)));
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
      log,
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
  const results: Comparison[] = [];
  await withBenchSides(
    { names: { upstream: 'bench-upstream', fleetq: 'bench-fleetq' }, nodes, fleetqLimits: FLEETQ_LIMITS, log },
    async (sides) => {
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
    },
  );
  console.log(
    `\nread-path bench: API requests counted by the apiserver (audit log, by user and user agent), ` +
      `bench-upstream (kube-controller-manager) vs bench-fleetq (fleetq in-process, reads from its cache)`,
  );
  console.log(
    `client limits, both at defaults: kube-controller-manager qps 20 burst 30 per controller client (none passed); ` +
      `fleetq qps ${FLEETQ_LIMITS.qps} burst ${FLEETQ_LIMITS.burst} per controller and cluster (registry defaults); ` +
      `${nodes} kwok nodes per cluster`,
  );
  console.log(loadLine(load0, started));
  for (const c of results) printComparison(c);
  for (const line of PHASE_NOTES) console.log(`  ${line}`);
  printSummary(results);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`read-path: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
