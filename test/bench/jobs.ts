// The Job bench: --jobs (1,000) single-pod Jobs created at once, run to completion under the upstream Job
// controller (bench-up-jobs, kube-controller-manager's job-controller) and under fleetq (bench-fq-jobs, fleetq in
// this process), one cluster after the other so both see the same machine. Each pod asks to succeed through
// its template (the sandbox's kwok outcome stage: annotation fleetq.dev/sandbox-outcome=Succeeded, so it
// succeeds as soon as kwok runs it). Done when every Job has its Complete condition (which upstream sets only
// once no pod is running and every tracking finalizer is gone).
// Requests are counted on the apiserver from its audit log by client (test/helpers/sandbox/audit-log.ts): the
// controller side is fleetq's ServiceAccounts against kcm's job-controller. Both sides at their defaults: kcm
// gives each controller its own client (qps 20, burst 30; the sandbox passes none), fleetq each controller a
// budget per cluster of the same (registry defaults, DEFAULT_LIMITS).
// Also printed: when the Jobs completed (from a watch: first, median, 90th percentile, last, after the first
// create), and fleetq's reconciles. Prints; asserts nothing.
//   npx tsx test/bench/jobs.ts [--jobs 1000] [--timeout-s 1800]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_LIMITS } from '../../shared/kube/registry.js';
import type { RunningWatch } from '../helpers/bench/client.js';
import {
  benchLog,
  benchNamespace,
  fleetqCounter,
  fleetqTimes,
  fleetqTimesLine,
  loadLine,
  serverTimeLine,
  SIDE_KEYS,
  step,
  withBenchSides,
  type Side,
  type Sides,
} from '../helpers/bench/sides.js';
import { phaseLines, phaseTotals } from '../helpers/bench/phases.js';
import type { Job } from '../helpers/conformance/types.js';
import { job } from '../conformance/scenarios/job.js';
import { max, median, min, percentile } from '../helpers/stats.js';
import { printComparison, printSummary, type Comparison, type Step } from './read-path-report.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '1000' },
    'create-concurrency': { type: 'string', default: '10' },
    'timeout-s': { type: 'string', default: '1800' },
  },
  strict: true,
});
const int = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
  return n;
};
const JOBS = int('jobs');
/** fleetq at its registry defaults: each controller a budget of its own, as kcm's. */
const FLEETQ_LIMITS = DEFAULT_LIMITS;
const CREATE_CONCURRENCY = int('create-concurrency');
const TIMEOUT_MS = int('timeout-s') * 1000;
/** kwok nodes take 1,000 pods each (infra/sandbox/cluster.ts fakeNode). */
const NODES = Math.max(2, Math.ceil(JOBS / 900));
/** The watch is the signal; a list this often also counts, in case the watch ended. */
const LIST_EVERY_MS = 15_000;
const OUTCOME = 'fleetq.dev/sandbox-outcome';

const log = benchLog('jobs');
const jobsPath = (ns: string): string => `/apis/batch/v1/namespaces/${ns}/jobs`;

/** A single-pod Job whose pod succeeds as soon as kwok runs it. */
function succeedingJob(name: string): Job {
  const j = job(name);
  const meta = j.spec.template.metadata ?? {};
  j.spec.template.metadata = { ...meta, annotations: { ...meta.annotations, [OUTCOME]: 'Succeeded' } };
  return j;
}

const conditionTrue = (j: Job, type: string): boolean =>
  (j.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

type Timeline = { readonly createdMs: number; readonly completedAt: number[]; readonly failed: number };

async function jobsOn(
  side: Side,
): Promise<{ step: Step; timeline: Timeline | undefined; reconciles?: number; times?: string; phases: string[] }> {
  const ns = await benchNamespace(side, 'bench-jobs');
  const names = Array.from({ length: JOBS }, (_, i) => `j-${String(i).padStart(4, '0')}`);
  const completed = new Map<string, number>();
  const failed = new Set<string>();
  const seen = (j: Job, at: number): void => {
    const name = j.metadata.name ?? '';
    if (conditionTrue(j, 'Complete') && !completed.has(name)) completed.set(name, at);
    if (conditionTrue(j, 'Failed')) failed.add(name);
  };
  const list = await side.client.request<{ metadata: { resourceVersion: string } }>('GET', `${jobsPath(ns)}?limit=1`);
  let watch: RunningWatch | undefined;
  let t0 = 0;
  let createdMs = 0;
  let listedAt = 0;
  const reconciles0 = await fleetqCounter(side, 'fleetq_reconcile_total');
  const times0 = await fleetqTimes(side);
  const phases0 = await phaseTotals(side);
  try {
    watch = await side.client.watch(jobsPath(ns), list.metadata.resourceVersion, (e, at) => {
      if (e.type === 'ADDED' || e.type === 'MODIFIED') seen(e.object as Job, at);
    });
    const create = async (): Promise<void> => {
      t0 = Date.now();
      for (let i = 0; i < names.length; i += CREATE_CONCURRENCY)
        await Promise.all(
          names
            .slice(i, i + CREATE_CONCURRENCY)
            .map((n) => side.client.request('POST', jobsPath(ns), succeedingJob(n))),
        );
      createdMs = Date.now() - t0;
      log(`${side.state.name}: ${JOBS} Jobs created in ${createdMs} ms`);
    };
    const check = async (): Promise<true | string> => {
      if (completed.size < JOBS && Date.now() - listedAt >= LIST_EVERY_MS) {
        listedAt = Date.now();
        const items = (await side.client.request<{ items: Job[] }>('GET', jobsPath(ns))).items;
        for (const j of items) seen(j, listedAt);
      }
      if (failed.size > 0) return `${failed.size} Jobs failed (${[...failed].slice(0, 3).join(', ')})`;
      return completed.size >= JOBS || `${completed.size}/${JOBS} Jobs complete`;
    };
    const s = await step(side, create, check, { timeoutMs: TIMEOUT_MS, pollMs: 1_000, log });
    const reconciles1 = await fleetqCounter(side, 'fleetq_reconcile_total');
    const times = fleetqTimesLine(times0, await fleetqTimes(side));
    return {
      step: s,
      timeline: { createdMs, completedAt: [...completed.values()].map((at) => at - t0), failed: failed.size },
      ...(reconciles0 !== undefined && reconciles1 !== undefined && { reconciles: reconciles1 - reconciles0 }),
      ...(times !== undefined && { times }),
      phases: phaseLines(phases0, await phaseTotals(side)),
    };
  } finally {
    watch?.stop();
    // The namespace stays: the clusters are stopped right after, and a deletion would only load the machine.
  }
}

function printTimeline(side: string, t: Timeline | undefined, reconciles: number | undefined): void {
  if (!t) return;
  const sec = (ms: number | undefined): string => (ms === undefined ? '—' : (ms / 1000).toFixed(1));
  const xs = t.completedAt;
  console.log(
    `  ${side}: all created after ${sec(t.createdMs)} s; Jobs complete after (s): first ${sec(min(xs))}, ` +
      `median ${sec(median(xs))}, p90 ${sec(percentile(xs, 0.9))}, last ${sec(max(xs))} ` +
      `(${xs.length}/${JOBS} complete, ${t.failed} failed)` +
      (reconciles === undefined ? '' : `; fleetq reconciles ${reconciles}`),
  );
}

async function main(): Promise<void> {
  const started = Date.now();
  const load0 = loadavg();
  const results: Comparison[] = [];
  const extra: Array<() => void> = [];
  await withBenchSides(
    { names: { upstream: 'bench-up-jobs', fleetq: 'bench-fq-jobs' }, nodes: NODES, fleetqLimits: FLEETQ_LIMITS, log },
    async (sides: Sides) => {
      const c: Comparison = { title: `${JOBS} single-pod Jobs to completion`, upstream: [], fleetq: [] };
      for (const k of SIDE_KEYS) {
        log(`${c.title} on ${sides[k].state.name}`);
        try {
          const r = await jobsOn(sides[k]);
          c[k].push(r.step);
          extra.push(() => {
            printTimeline(k, r.timeline, r.reconciles);
            if (r.times) console.log(`    ${r.times}`);
            for (const line of r.phases) console.log(`    ${line}`);
          });
        } catch (err) {
          log(`${sides[k].state.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        }
      }
      results.push(c);
    },
  );
  console.log(
    `\njobs bench: API requests counted by the apiserver (audit log, by user and user agent), ` +
      `bench-up-jobs (kube-controller-manager's job-controller) vs bench-fq-jobs (fleetq in-process)`,
  );
  console.log(
    `client limits, both at defaults: kube-controller-manager qps 20 burst 30 per controller client (none passed); ` +
      `fleetq qps ${FLEETQ_LIMITS.qps} burst ${FLEETQ_LIMITS.burst} per controller and cluster (registry defaults); ` +
      `${NODES} kwok nodes per cluster`,
  );
  console.log(loadLine(load0, started));
  for (const c of results) {
    printComparison(c);
    console.log(serverTimeLine(c));
  }
  for (const f of extra) f();
  printSummary(results);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`jobs: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
