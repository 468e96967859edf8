// The JobSet restart bench: a JobSet of --jobs (4) replicated Jobs × --pods-per-job (32) kwok pods, restarted
// --restarts (5) times, under upstream (kube-controller-manager's Job controller and upstream's JobSet manager,
// cluster bench-up-jobset) and under fleetq (in this process, owning JobSet and Job, cluster bench-fq-jobset), one
// side after the other in one invocation, on sandbox clusters of the bench's own (a temp root: the shared sandbox
// is never touched). Each restart fails one pod of the current attempt (kwok's outcome stage; restartPolicy Never
// and backoffLimit 0, so its Job fails and the JobSet's failure policy restarts it, Recreate), a different Job
// each time. Measured per restart, from the failing patch: the time until every pod of the new attempt was
// created (the bench's pod watch sees the last of them ADDED), and until they all run; and the API requests the
// controller side sent from the failure until all the new pods ran plus a settle time, counted by the apiserver's
// audit log (test/helpers/sandbox/audit-log.ts): fleetq's ServiceAccounts against kube-controller-manager's
// job-controller plus the JobSet manager (user agent "jobset/…").
// Both sides at their defaults: kube-controller-manager gives each controller its own client (qps 20, burst 30);
// the JobSet manager's own default is qps 500, burst 500 (passed as --kube-api-qps/--kube-api-burst, which the
// sandbox helper always sets; --manager-qps/--manager-burst change them); fleetq's registry defaults give each of
// its controllers (JobSet, Job) a budget per cluster of kcm's 20/30 (DEFAULT_LIMITS).
// Prints per-restart figures, medians and fleetq/upstream ratios; asserts nothing.
//   npx tsx test/bench/jobset-restart.ts [--jobs 4] [--pods-per-job 32] [--restarts 5]
//     [--manager-qps 500 --manager-burst 500]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_LIMITS } from '../../shared/kube/registry.js';
import { type ClientCounts, type Tally } from '../helpers/sandbox/audit-log.js';
import type { RawEvent, RunningWatch } from '../helpers/bench/client.js';
import {
  attemptOf,
  isChildOf,
  jobSetsPath,
  jobsPath,
  podOutcomePatch,
  podsPath,
  restartableJobSet,
} from '../helpers/bench/jobset.js';
import { withJobSetBenchSides, type JobSetSide } from '../helpers/bench/jobset-sides.js';
import { benchLog, loadLine, sleep, SETTLE_MS, until } from '../helpers/bench/sides.js';
import { REDIS_URL } from '../helpers/queue/redis.js';
import { median } from '../helpers/stats.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '4' },
    'pods-per-job': { type: 'string', default: '32' },
    restarts: { type: 'string', default: '5' },
    'manager-qps': { type: 'string', default: '500' },
    'manager-burst': { type: 'string', default: '500' },
    'timeout-s': { type: 'string', default: '300' },
  },
  strict: true,
});
const int = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
  return n;
};
const JOBS = int('jobs');
const PODS_PER_JOB = int('pods-per-job');
const PODS = JOBS * PODS_PER_JOB;
const RESTARTS = int('restarts');
/** The JobSet manager's client (its own default: 500/500); kcm's job-controller runs at kcm's default, 20/30. */
const MANAGER_LIMITS = { qps: int('manager-qps'), burst: int('manager-burst') };
/** fleetq at its registry defaults: each controller (JobSet, Job) a budget of its own, as kcm's. */
const FLEETQ_LIMITS = DEFAULT_LIMITS;
const TIMEOUT_MS = int('timeout-s') * 1000;
const NAME = 'bench';
const MERGE_PATCH = 'application/merge-patch+json';
const NAMES = { upstream: 'bench-up-jobset', fleetq: 'bench-fq-jobset' } as const;

const log = benchLog('jobset-restart');

/** Clients of the controller side: fleetq's, or kcm's job-controller and the JobSet manager. */
const isJobSetControllerSide = (client: string): boolean =>
  client.startsWith('fleetq/') || client === 'kcm/job-controller' || client === 'jobset';

function sideCounts(tally: Tally): ClientCounts {
  const sum: ClientCounts = { total: 0, byRequest: new Map(), byCode: new Map() };
  for (const [client, c] of tally) {
    if (!isJobSetControllerSide(client)) continue;
    sum.total += c.total;
    for (const [k, n] of c.byRequest) sum.byRequest.set(k, (sum.byRequest.get(k) ?? 0) + n);
    for (const [k, n] of c.byCode) sum.byCode.set(k, (sum.byCode.get(k) ?? 0) + n);
  }
  return sum;
}

type Pod = { metadata: { name?: string; labels?: Record<string, string> }; status?: { phase?: string } };

type Restart = {
  /** failure → every pod of the new attempt created; null when it did not happen in time. */
  readonly createdMs: number | null;
  /** failure → every pod of the new attempt Running. */
  readonly runningMs: number | null;
  /** failure → the JobSet's status.restarts showed the new attempt. */
  readonly countedMs: number | null;
  readonly requests: ClientCounts;
  readonly tally: Tally;
  readonly load: number;
};

async function restartsOn(side: JobSetSide): Promise<Restart[]> {
  const ns = `bench-jobset-${Date.now().toString(36)}`;
  await side.client.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  const ready = await until(async () => {
    await side.client.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    return true;
  }, 60_000);
  if (ready.ms === null) throw new Error(`${side.state.name}: namespace ${ns}: ${ready.last}`);

  // Per attempt: when each of its pods was first seen (ADDED), and the pods now.
  const createdAt = new Map<number, Map<string, number>>();
  const pods = new Map<string, Pod>();
  let restartsSeen = 0;
  const restartsAt = new Map<number, number>();
  const watches: RunningWatch[] = [];
  const watch = async <T>(path: string, on: (e: RawEvent & { object: T }, at: number) => void): Promise<void> => {
    const list = await side.client.request<{ metadata: { resourceVersion: string } }>('GET', `${path}?limit=1`);
    watches.push(
      await side.client.watch(path, list.metadata.resourceVersion, (e, at) => on(e as RawEvent & { object: T }, at)),
    );
  };
  try {
    await watch<Pod>(podsPath(ns), (e, at) => {
      const name = e.object.metadata.name ?? '';
      const attempt = attemptOf(e.object);
      if (e.type === 'DELETED') pods.delete(name);
      else pods.set(name, e.object);
      if (attempt === undefined || !isChildOf(e.object, NAME)) return;
      const m = createdAt.get(attempt) ?? createdAt.set(attempt, new Map()).get(attempt)!;
      if (!m.has(name)) m.set(name, at);
    });
    await watch<{ status?: { restarts?: number } }>(jobSetsPath(ns), (e, at) => {
      const r = e.object.status?.restarts ?? 0;
      if (r > restartsSeen) {
        restartsSeen = r;
        if (!restartsAt.has(r)) restartsAt.set(r, at);
      }
    });
    // Jobs are watched by the controllers; the bench only lists them in its progress messages.
    const running = (attempt: number): Pod[] =>
      [...pods.values()].filter((p) => isChildOf(p, NAME) && attemptOf(p) === attempt && p.status?.phase === 'Running');
    const progress = async (attempt: number): Promise<string> => {
      const jobs = await side.client
        .request<{ items: Array<{ metadata: { name?: string; labels?: Record<string, string> } }> }>(
          'GET',
          jobsPath(ns),
        )
        .then((l) => l.items.map((j) => `${j.metadata.name}@${attemptOf(j)}`).join(' '))
        .catch((err: unknown) => String(err));
      return `attempt ${attempt}: ${createdAt.get(attempt)?.size ?? 0}/${PODS} pods created, ${running(attempt).length} running; restarts ${restartsSeen}; Jobs ${jobs}`;
    };

    await side.client.request(
      'POST',
      jobSetsPath(ns),
      restartableJobSet({
        name: NAME,
        namespace: ns,
        jobs: JOBS,
        podsPerJob: PODS_PER_JOB,
        maxRestarts: RESTARTS + 1,
      }),
    );
    const first = await until(async () => running(0).length === PODS || 'waiting', TIMEOUT_MS, 250);
    if (first.ms === null) throw new Error(`${side.state.name}: the first attempt did not run: ${await progress(0)}`);
    log(`${side.state.name}: attempt 0 running after ${first.ms} ms`);

    const out: Restart[] = [];
    for (let k = 1; k <= RESTARTS; k++) {
      // One pod of the previous attempt's Job (k - 1) % JOBS fails.
      const jobName = `${NAME}-workers-${(k - 1) % JOBS}`;
      const victim = running(k - 1).find((p) => p.metadata.name?.startsWith(`${jobName}-`));
      if (!victim) throw new Error(`${side.state.name}: no running pod of ${jobName} (${await progress(k - 1)})`);
      side.audit.mark();
      const t0 = Date.now();
      await side.client.request(
        'PATCH',
        `${podsPath(ns)}/${victim.metadata.name ?? ''}`,
        podOutcomePatch('Failed'),
        MERGE_PATCH,
      );
      const allRunning = await until(async () => running(k).length === PODS || 'waiting', TIMEOUT_MS, 100, t0);
      const created = createdAt.get(k);
      const createdMs = created?.size === PODS ? Math.max(...created.values()) - t0 : null;
      const counted = restartsAt.get(k);
      await sleep(SETTLE_MS);
      const t1 = Date.now();
      await sleep(1_000); // the audit lines of requests answered at t1
      const tally = await side.audit.tally(t0, t1);
      const r: Restart = {
        createdMs,
        runningMs: allRunning.ms,
        countedMs: counted === undefined ? null : counted - t0,
        requests: sideCounts(tally),
        tally,
        load: loadavg()[0] ?? 0,
      };
      out.push(r);
      log(
        `${side.state.name}: restart ${k}: created ${r.createdMs} ms, running ${r.runningMs} ms, ` +
          `${r.requests.total} controller requests${allRunning.ms === null ? ` (timed out: ${await progress(k)})` : ''}`,
      );
      if (allRunning.ms === null) break;
    }
    return out;
  } finally {
    for (const w of watches) w.stop();
    // The namespace stays: the clusters are stopped right after.
  }
}

const fmtMs = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '—' : `${ms}`);
const medianOf = (xs: ReadonlyArray<number | null>): number | undefined =>
  median(xs.filter((x): x is number => x !== null));

function printSide(key: string, rs: readonly Restart[]): void {
  console.log(`\n${key}: per restart (ms from the failing patch; requests until all new pods ran + ${SETTLE_MS} ms)`);
  console.log('  restart  counted  all pods created  all pods running  controller requests  load');
  rs.forEach((r, i) =>
    console.log(
      `  ${String(i + 1).padStart(7)}  ${fmtMs(r.countedMs).padStart(7)}  ${fmtMs(r.createdMs).padStart(16)}  ` +
        `${fmtMs(r.runningMs).padStart(16)}  ${String(r.requests.total).padStart(19)}  ${r.load.toFixed(1)}`,
    ),
  );
  // The controller side's requests by verb and resource, and every client's, over all restarts.
  const sum = (pick: (r: Restart) => ReadonlyMap<string, number>): string =>
    [...rs.flatMap((r) => [...pick(r)]).reduce((m, [k, n]) => m.set(k, (m.get(k) ?? 0) + n), new Map<string, number>())]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  console.log(`  controller requests by kind, all restarts: ${sum((r) => r.requests.byRequest)}`);
  console.log(
    `  every client's requests, all restarts: ${sum((r) => new Map([...r.tally].map(([c, x]) => [c, x.total])))}`,
  );
}

async function main(): Promise<void> {
  const started = Date.now();
  const load0 = loadavg();
  const results: Partial<Record<'upstream' | 'fleetq', Restart[]>> = {};
  await withJobSetBenchSides(
    {
      names: NAMES,
      nodes: 2,
      jobSetManagerLimits: MANAGER_LIMITS,
      fleetqLimits: FLEETQ_LIMITS,
      redisUrl: REDIS_URL,
      log,
    },
    async (sides) => {
      for (const k of ['upstream', 'fleetq'] as const) {
        log(`${RESTARTS} restarts of ${JOBS} Jobs × ${PODS_PER_JOB} pods on ${sides[k].state.name}`);
        try {
          results[k] = await restartsOn(sides[k]);
        } catch (err) {
          log(`${sides[k].state.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        }
      }
    },
  );
  console.log(
    `\njobset-restart bench: a JobSet of ${JOBS} Jobs × ${PODS_PER_JOB} pods (${PODS} pods) restarted ${RESTARTS} ` +
      `times, ${NAMES.upstream} (kube-controller-manager's job-controller + upstream's JobSet manager) vs ` +
      `${NAMES.fleetq} (fleetq in-process, owning JobSet and Job)`,
  );
  console.log(
    `client limits, both at defaults: kube-controller-manager qps 20 burst 30 per controller client (none passed), ` +
      `the JobSet manager qps ${MANAGER_LIMITS.qps} burst ${MANAGER_LIMITS.burst}; fleetq qps ${FLEETQ_LIMITS.qps} ` +
      `burst ${FLEETQ_LIMITS.burst} per controller and cluster (registry defaults)`,
  );
  console.log(loadLine(load0, started));
  for (const k of ['upstream', 'fleetq'] as const) {
    const rs = results[k];
    if (rs) printSide(k, rs);
  }
  const up = results.upstream ?? [];
  const fq = results.fleetq ?? [];
  const row = (label: string, pick: (r: Restart) => number | null): void => {
    const u = medianOf(up.map(pick));
    const f = medianOf(fq.map(pick));
    const ratio = u !== undefined && f !== undefined && u > 0 ? (f / u).toFixed(2) : '—';
    console.log(`  ${label.padEnd(40)} ${fmtMs(u).padStart(9)} ${fmtMs(f).padStart(9)} ${ratio.padStart(8)}`);
  };
  console.log(`\nmedians over restarts                     upstream    fleetq  fleetq/upstream`);
  row('failure → restart counted (ms)', (r) => r.countedMs);
  row('failure → all new pods created (ms)', (r) => r.createdMs);
  row('failure → all new pods running (ms)', (r) => r.runningMs);
  row('controller requests per restart', (r) => r.requests.total);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`jobset-restart: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
