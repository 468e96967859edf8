// The early-failure bench: how much sooner a JobSet restarts with fleetq's opt-in
// fleetq.dev/jobset-restart-on-failure-target (shared/controllers/jobset/early-failure.ts), on a fleetq-mode cluster
// of the bench's own (a temp sandbox root; fleetq in this process owning JobSet and Job).
// A JobSet of two replicated Jobs ("a", "b") × --jobs (1) replica each, --pods-per-job (4) pods each
// (parallelism = completions), backoffLimit 0, maxRestarts 10, Recreate, is restarted --restarts (3) times by
// failing one pod of the current attempt (kwok's outcome stage), first without the annotation, then a second JobSet
// with it, one after the other.
// Grace periods: kwok deletes a pod at once (its stock pod-delete stage, grace 0), so the bench emulates them. The
// pod template has terminationGracePeriodSeconds --grace-s (15) and the bench's finalizer GRACE_FINALIZER; the
// bench watches the pods and removes the finalizer once the clock reaches the deletionTimestamp the pod was first
// given (the apiserver sets it to the delete time plus the grace period; kwok's later grace-0 delete moves it to
// now, so the first one seen is kept). Before the JobSets, one pod is deleted to check the emulation: it must stay
// Terminating about --grace-s.
// Measured per restart, from the failing patch: status.restarts incremented, every Job of the new attempt created,
// every pod of the new attempt created (the bench's watches see them ADDED). Prints per-restart figures, medians
// and the ratio with/without; asserts nothing.
// With --upstream, the case without the annotation also runs on an upstream-mode cluster (kube-controller-manager's
// job-controller and upstream's JobSet manager, each with half of fleetq's client budget), to show fleetq without
// the opt-in restarts as upstream does.
//   npx tsx test/bench/jobset-early-failure.ts [--grace-s 15] [--restarts 3] [--jobs 1 --pods-per-job 4] [--upstream]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { RESTART_ON_FAILURE_TARGET } from '../../shared/controllers/jobset/early-failure.js';
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
import { withJobSetBenchSides, withJobSetFleetqSide, type JobSetSide } from '../helpers/bench/jobset-sides.js';
import { benchLog, loadLine, until } from '../helpers/bench/sides.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';
import { REDIS_URL } from '../helpers/queue/redis.js';
import { median } from '../helpers/stats.js';

const { values } = parseArgs({
  options: {
    'grace-s': { type: 'string', default: '15' },
    restarts: { type: 'string', default: '3' },
    jobs: { type: 'string', default: '1' },
    'pods-per-job': { type: 'string', default: '4' },
    qps: { type: 'string', default: '40' },
    burst: { type: 'string', default: '60' },
    'timeout-s': { type: 'string', default: '180' },
    upstream: { type: 'boolean', default: false },
  },
  strict: true,
});
const int = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
  return n;
};
const GRACE_S = int('grace-s');
const RESTARTS = int('restarts');
const REPLICATED_JOBS = ['a', 'b'] as const;
const JOBS = REPLICATED_JOBS.length * int('jobs');
const PODS = JOBS * int('pods-per-job');
const LIMITS = { qps: int('qps'), burst: int('burst') };
const TIMEOUT_MS = int('timeout-s') * 1000;
const CLUSTER = 'bench-fq-early-failure';
const UPSTREAM_CLUSTER = 'bench-up-early-failure';
/** kube-controller-manager's budget per controller client, given to the JobSet manager too (fleetq has their sum). */
const UPSTREAM_LIMITS = {
  qps: Math.max(1, Math.round(LIMITS.qps / 2)),
  burst: Math.max(1, Math.round(LIMITS.burst / 2)),
};
const MERGE_PATCH = 'application/merge-patch+json';
/** The bench's own finalizer: it holds a deleted pod until its grace period has passed. */
const GRACE_FINALIZER = 'fleetq.dev/bench-grace-period';

const log = benchLog('jobset-early-failure');

type Meta = {
  name?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
};
type Pod = { metadata: Meta; status?: { phase?: string } };

/**
 * Holds each deleted pod of `ns` that carries GRACE_FINALIZER until the first deletionTimestamp it was given, then
 * removes the finalizer (kwok's pending delete then completes).
 */
async function graceEmulator(side: JobSetSide, ns: string): Promise<RunningWatch> {
  const deadlines = new Map<string, number>();
  const release = async (name: string): Promise<void> => {
    try {
      await side.client.update<{ metadata: Meta }>(`${podsPath(ns)}/${name}`, (p) => {
        p.metadata.finalizers = (p.metadata.finalizers ?? []).filter((f) => f !== GRACE_FINALIZER);
      });
    } catch (err) {
      if (!String(err).includes('404')) log(`releasing pod ${name}: ${String(err)}`);
    }
  };
  const list = await side.client.request<{ metadata: { resourceVersion: string } }>('GET', `${podsPath(ns)}?limit=1`);
  return side.client.watch(podsPath(ns), list.metadata.resourceVersion, (e) => {
    const m = (e.object as Pod).metadata;
    const uid = m.uid ?? '';
    if (e.type === 'DELETED') {
      deadlines.delete(uid);
      return;
    }
    if (!m.deletionTimestamp || !m.finalizers?.includes(GRACE_FINALIZER) || deadlines.has(uid)) return;
    const at = Date.parse(m.deletionTimestamp);
    deadlines.set(uid, at);
    setTimeout(() => void release(m.name ?? ''), Math.max(0, at - Date.now()));
  });
}

async function freshNamespace(side: JobSetSide, prefix: string): Promise<string> {
  const ns = `${prefix}-${Date.now().toString(36)}`;
  await side.client.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  const ready = await until(async () => {
    await side.client.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    return true;
  }, 60_000);
  if (ready.ms === null) throw new Error(`namespace ${ns}: ${ready.last}`);
  return ns;
}

/** Deletes one running pod held by the emulation; the time it stayed Terminating (ms), null at the deadline. */
async function checkGrace(side: JobSetSide): Promise<number | null> {
  const ns = await freshNamespace(side, 'bench-grace');
  const emulator = await graceEmulator(side, ns);
  try {
    const template = kwokPodTemplate({ app: 'grace-check' });
    const path = `${podsPath(ns)}/grace-check`;
    await side.client.request('POST', podsPath(ns), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { ...template.metadata, name: 'grace-check', finalizers: [GRACE_FINALIZER] },
      spec: { ...template.spec, terminationGracePeriodSeconds: GRACE_S },
    });
    const running = await until(
      async () => (await side.client.request<Pod>('GET', path)).status?.phase === 'Running' || 'not running',
      60_000,
    );
    if (running.ms === null) throw new Error(`grace check: the pod did not run: ${running.last}`);
    const t0 = Date.now();
    await side.client.request('DELETE', path);
    const gone = await until(
      async () =>
        side.client.request<Pod>('GET', path).then(
          () => 'still there',
          (err: unknown) => String(err).includes('404') || String(err),
        ),
      (GRACE_S + 30) * 1000,
      100,
      t0,
    );
    return gone.ms;
  } finally {
    emulator.stop();
  }
}

type Restart = {
  /** failure → the JobSet's status.restarts showed the new attempt; null when it did not in time. */
  readonly countedMs: number | null;
  /** failure → every Job of the new attempt created. */
  readonly jobsMs: number | null;
  /** failure → every pod of the new attempt created. */
  readonly podsMs: number | null;
  readonly load: number;
};

async function restartsOf(side: JobSetSide, name: string, earlyFailure: boolean): Promise<Restart[]> {
  const ns = await freshNamespace(side, `bench-${name}`);
  const watches: RunningWatch[] = [await graceEmulator(side, ns)];
  const pods = new Map<string, Pod>();
  const podsAt = new Map<number, Map<string, number>>();
  const jobsAt = new Map<number, Map<string, number>>();
  const restartsAt = new Map<number, number>();
  const firstSeen = (m: Map<number, Map<string, number>>, o: Pod, at: number): void => {
    const attempt = attemptOf(o);
    if (attempt === undefined || !isChildOf(o, name)) return;
    const seen = m.get(attempt) ?? m.set(attempt, new Map()).get(attempt)!;
    if (!seen.has(o.metadata.name ?? '')) seen.set(o.metadata.name ?? '', at);
  };
  const watch = async (path: string, on: (e: RawEvent, at: number) => void): Promise<void> => {
    const list = await side.client.request<{ metadata: { resourceVersion: string } }>('GET', `${path}?limit=1`);
    watches.push(await side.client.watch(path, list.metadata.resourceVersion, on));
  };
  try {
    await watch(podsPath(ns), (e, at) => {
      const p = e.object as Pod;
      if (e.type === 'DELETED') pods.delete(p.metadata.name ?? '');
      else pods.set(p.metadata.name ?? '', p);
      firstSeen(podsAt, p, at);
    });
    await watch(jobsPath(ns), (e, at) => firstSeen(jobsAt, e.object as Pod, at));
    await watch(jobSetsPath(ns), (e, at) => {
      const r = (e.object as { status?: { restarts?: number } }).status?.restarts ?? 0;
      if (!restartsAt.has(r)) restartsAt.set(r, at);
    });
    const ofAttempt = (attempt: number): Pod[] =>
      [...pods.values()].filter((p) => isChildOf(p, name) && attemptOf(p) === attempt);
    const settled = (attempt: number): true | string => {
      const all = [...pods.values()].filter((p) => isChildOf(p, name));
      const running = ofAttempt(attempt).filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
      return (
        (running.length === PODS && all.length === PODS) || `${running.length}/${PODS} running, ${all.length} pods`
      );
    };

    await side.client.request(
      'POST',
      jobSetsPath(ns),
      restartableJobSet({
        name,
        namespace: ns,
        jobs: JOBS / REPLICATED_JOBS.length,
        podsPerJob: PODS / JOBS,
        maxRestarts: 10,
        replicatedJobs: REPLICATED_JOBS,
        terminationGracePeriodSeconds: GRACE_S,
        podFinalizers: [GRACE_FINALIZER],
        ...(earlyFailure && { annotations: { [RESTART_ON_FAILURE_TARGET]: 'true' } }),
      }),
    );
    const out: Restart[] = [];
    for (let k = 1; k <= RESTARTS; k++) {
      // The previous attempt runs, and no pod of an older one is left.
      const ready = await until(async () => settled(k - 1), TIMEOUT_MS, 100);
      if (ready.ms === null) throw new Error(`${name}: attempt ${k - 1} did not settle: ${ready.last}`);
      const victim = ofAttempt(k - 1)
        .filter((p) => p.metadata.name?.startsWith(`${name}-${REPLICATED_JOBS[(k - 1) % REPLICATED_JOBS.length]}-`))
        .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))[0];
      if (!victim) throw new Error(`${name}: no pod to fail in attempt ${k - 1}`);
      const t0 = Date.now();
      await side.client.request(
        'PATCH',
        `${podsPath(ns)}/${victim.metadata.name ?? ''}`,
        podOutcomePatch('Failed'),
        MERGE_PATCH,
      );
      const done = await until(
        async () => (podsAt.get(k)?.size ?? 0) >= PODS || `${podsAt.get(k)?.size ?? 0}/${PODS} pods created`,
        TIMEOUT_MS,
        100,
        t0,
      );
      const last = (m: Map<string, number> | undefined, n: number): number | null =>
        m && m.size >= n ? Math.max(...m.values()) - t0 : null;
      const counted = restartsAt.get(k);
      const r: Restart = {
        countedMs: counted === undefined ? null : counted - t0,
        jobsMs: last(jobsAt.get(k), JOBS),
        podsMs: last(podsAt.get(k), PODS),
        load: loadavg()[0] ?? 0,
      };
      out.push(r);
      log(`${name}: restart ${k}: counted ${r.countedMs} ms, Jobs ${r.jobsMs} ms, pods ${r.podsMs} ms`);
      if (done.ms === null) break;
    }
    return out;
  } finally {
    for (const w of watches) w.stop();
  }
}

const fmtMs = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '—' : `${ms}`);
const medianOf = (xs: ReadonlyArray<number | null>): number | undefined =>
  median(xs.filter((x): x is number => x !== null));

async function main(): Promise<void> {
  const started = Date.now();
  const load0 = loadavg();
  let graceMs: number | null = null;
  const results: Partial<Record<'without' | 'with' | 'upstream', Restart[]>> = {};
  const onFleetq = async (side: JobSetSide): Promise<void> => {
    graceMs = await checkGrace(side);
    log(`grace check: a deleted pod stayed Terminating ${fmtMs(graceMs)} ms (grace ${GRACE_S} s)`);
    if (graceMs === null || graceMs < (GRACE_S - 1) * 1000) throw new Error('the grace-period emulation does not hold');
    for (const [key, name, early] of [
      ['without', 'plain', false],
      ['with', 'early', true],
    ] as const) {
      try {
        results[key] = await restartsOf(side, name, early);
      } catch (err) {
        log(`${key} the annotation failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    }
  };
  const common = { nodes: 1, fleetqLimits: LIMITS, redisUrl: REDIS_URL, log };
  if (!values.upstream) await withJobSetFleetqSide({ ...common, name: CLUSTER }, onFleetq);
  else
    await withJobSetBenchSides(
      { ...common, names: { upstream: UPSTREAM_CLUSTER, fleetq: CLUSTER }, jobSetManagerLimits: UPSTREAM_LIMITS },
      async (sides) => {
        await onFleetq(sides.fleetq);
        try {
          results.upstream = await restartsOf(sides.upstream, 'upstream', false);
        } catch (err) {
          log(`upstream failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        }
      },
    );
  console.log(
    `\njobset-early-failure bench: a JobSet of ${REPLICATED_JOBS.length} replicated Jobs (${JOBS} Jobs, ${PODS} pods), ` +
      `grace ${GRACE_S} s, restarted ${RESTARTS} times without and with ${RESTART_ON_FAILURE_TARGET}, on ${CLUSTER} ` +
      `(fleetq in-process owning JobSet and Job, qps ${LIMITS.qps} burst ${LIMITS.burst})`,
  );
  console.log(`grace check: a deleted pod stayed Terminating ${fmtMs(graceMs)} ms`);
  console.log(loadLine(load0, started));
  for (const key of ['without', 'with', 'upstream'] as const) {
    if (key === 'upstream' && !results.upstream) continue;
    const what = key === 'upstream' ? `${UPSTREAM_CLUSTER}, upstream's controllers, without` : `${key}`;
    console.log(`\n${what} the annotation: per restart (ms from the failing patch)`);
    console.log('  restart  counted  all Jobs created  all pods created  load');
    (results[key] ?? []).forEach((r, i) =>
      console.log(
        `  ${String(i + 1).padStart(7)}  ${fmtMs(r.countedMs).padStart(7)}  ${fmtMs(r.jobsMs).padStart(16)}  ` +
          `${fmtMs(r.podsMs).padStart(16)}  ${r.load.toFixed(1)}`,
      ),
    );
  }
  const row = (label: string, pick: (r: Restart) => number | null): void => {
    const a = medianOf((results.without ?? []).map(pick));
    const b = medianOf((results.with ?? []).map(pick));
    const ratio = a !== undefined && b !== undefined && a > 0 ? (b / a).toFixed(2) : '—';
    const u = medianOf((results.upstream ?? []).map(pick));
    const vsUpstream = a !== undefined && u !== undefined && u > 0 ? (a / u).toFixed(2) : '—';
    const upstream = results.upstream ? ` ${fmtMs(u).padStart(9)} ${vsUpstream.padStart(17)}` : '';
    console.log(
      `  ${label.padEnd(40)} ${fmtMs(a).padStart(9)} ${fmtMs(b).padStart(9)} ${ratio.padStart(13)}${upstream}`,
    );
  };
  console.log(
    `\nmedians over restarts (ms)                 without      with  with/without` +
      (results.upstream ? `  upstream  without/upstream` : ''),
  );
  row('failure → status.restarts incremented', (r) => r.countedMs);
  row('failure → every new Job created', (r) => r.jobsMs);
  row('failure → every new pod created', (r) => r.podsMs);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`jobset-early-failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
