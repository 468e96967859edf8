// The LeaderWorkerSet rollout bench: a LeaderWorkerSet of --replicas (20) groups × --size (8) kwok pods (default
// rollout strategy: RollingUpdate, maxUnavailable 1, maxSurge 0) is created and waited Available, then its worker
// template's image changes and the bench measures until the rollout is done: status.updatedReplicas and
// status.readyReplicas == replicas, no UpdateInProgress=True, and every one of the replicas × size pods Ready, not
// terminating, and labelled with the one new template-revision-hash. Under upstream (upstream's lws manager as the
// sandbox add-on lws-controller, kube-controller-manager's StatefulSet controller running its StatefulSets; cluster
// bench-up-lws) and under fleetq (in this process, owning LeaderWorkerSet, LeaderWorkerSetPod and StatefulSet, with
// its LWS webhooks; cluster bench-fq-lws), both on sandbox clusters of the bench's own (test/helpers/bench/lws-sides.ts).
// --runs rounds, each in a fresh namespace on both clusters, upstream first.
// Measured per round: create → Available, template change → rollout done, and per group the time from the change
// until its pods were all new and Ready (p50/p90/max over the groups); the API requests the controller side sent
// from the change until done plus a settle time, counted by the apiserver's audit log
// (test/helpers/sandbox/audit-log.ts) by verb and resource: fleetq's ServiceAccounts against the lws manager (user
// agent "lws/…") plus kube-controller-manager's statefulset-controller.
// Both sides at their defaults: kube-controller-manager gives each controller its own client (qps 20, burst 30; the
// sandbox passes none); the lws manager's own default is qps 500, burst 500 (passed as --kube-api-qps/
// --kube-api-burst, which the sandbox helper always sets; --manager-qps/--manager-burst change them); fleetq's
// registry defaults give each of its controllers (LeaderWorkerSet, StatefulSet) a budget per cluster of kcm's
// 20/30 (DEFAULT_LIMITS).
// Prints per-round figures, medians over the rounds and fleetq/upstream ratios; asserts nothing.
//   npx tsx test/bench/leaderworkerset-rollout.ts [--replicas 20] [--size 8] [--runs 1] [--manager-qps 500 --manager-burst 500]
//     [--fleetq-qps 20 --fleetq-burst 30]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_LIMITS } from '../../shared/kube/registry.js';
import { isNotFound } from '../../shared/kube/errors.js';
import {
  REVISION_KEY_LABEL,
  GROUP_INDEX_LABEL,
  SET_NAME_LABEL,
} from '../../shared/controllers/leaderworkerset/types.js';
import { phaseLines, phaseTotals } from '../helpers/bench/phases.js';
import { type ClientCounts, type Tally } from '../helpers/sandbox/audit-log.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';
import { withLwsBenchSides, type LwsSide } from '../helpers/bench/lws-sides.js';
import { benchLog, loadLine, sleep, SETTLE_MS, until } from '../helpers/bench/sides.js';
import { REDIS_URL } from '../helpers/queue/redis.js';
import { median, percentile } from '../helpers/stats.js';

const { values } = parseArgs({
  options: {
    replicas: { type: 'string', default: '20' },
    size: { type: 'string', default: '8' },
    runs: { type: 'string', default: '1' },
    'manager-qps': { type: 'string', default: '500' },
    'manager-burst': { type: 'string', default: '500' },
    'fleetq-qps': { type: 'string', default: String(DEFAULT_LIMITS.qps) },
    'fleetq-burst': { type: 'string', default: String(DEFAULT_LIMITS.burst) },
    'timeout-s': { type: 'string', default: '900' },
  },
  strict: true,
});
const int = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
  return n;
};
const REPLICAS = int('replicas');
const SIZE = int('size');
const PODS = REPLICAS * SIZE;
const RUNS = int('runs');
/** The lws manager's client (its own default: 500/500); kcm's statefulset-controller runs at kcm's default, 20/30. */
const MANAGER_LIMITS = { qps: int('manager-qps'), burst: int('manager-burst') };
/**
 * fleetq's budget per controller and cluster: its registry defaults unless --fleetq-qps/--fleetq-burst say (to tell
 * whether the budget is what a rollout waits for).
 */
const FLEETQ_LIMITS = { qps: int('fleetq-qps'), burst: int('fleetq-burst') };
const TIMEOUT_MS = int('timeout-s') * 1000;
const NAME = 'bench';
const NAMES = { upstream: 'bench-up-lws', fleetq: 'bench-fq-lws' } as const;
const SIDES = ['upstream', 'fleetq'] as const;
type SideKey = (typeof SIDES)[number];

const log = benchLog('leaderworkerset-rollout');

/** Clients of the controller side: fleetq's, or the lws manager and kcm's statefulset-controller. */
const isLwsControllerSide = (client: string): boolean =>
  client.startsWith('fleetq/') || client === 'kcm/statefulset-controller' || client === 'lws';

function sideCounts(tally: Tally): ClientCounts {
  const sum: ClientCounts = { total: 0, byRequest: new Map(), byCode: new Map() };
  for (const [client, c] of tally) {
    if (!isLwsControllerSide(client)) continue;
    sum.total += c.total;
    for (const [k, n] of c.byRequest) sum.byRequest.set(k, (sum.byRequest.get(k) ?? 0) + n);
    for (const [k, n] of c.byCode) sum.byCode.set(k, (sum.byCode.get(k) ?? 0) + n);
  }
  return sum;
}

type Pod = {
  metadata: { name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status?: { conditions?: Array<{ type: string; status: string }> };
};
type Lws = {
  metadata: { generation?: number };
  spec: { leaderWorkerTemplate: { workerTemplate: { spec: { containers: Array<{ image?: string }> } } } };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    conditions?: Array<{ type: string; status: string }>;
  };
};

const lwsPath = (ns: string, name?: string): string =>
  `/apis/leaderworkerset.x-k8s.io/v1/namespaces/${ns}/leaderworkersets${name ? `/${name}` : ''}`;
const podsPath = (ns: string): string =>
  `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(`${SET_NAME_LABEL}=${NAME}`)}`;

const condition = (l: Lws, type: string): boolean =>
  l.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
const isReady = (p: Pod): boolean =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const live = (pods: readonly Pod[]): Pod[] => pods.filter((p) => p.metadata.deletionTimestamp === undefined);
const hashOf = (p: Pod): string => p.metadata.labels?.[REVISION_KEY_LABEL] ?? '';

function leaderWorkerSet(): unknown {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: NAME },
    spec: { replicas: REPLICAS, leaderWorkerTemplate: { size: SIZE, workerTemplate: kwokPodTemplate({ app: NAME }) } },
  };
}

type Round = {
  /** create → Available with every pod Ready. */
  readonly availableMs: number | null;
  /** template change → rollout done. */
  readonly rolloutMs: number | null;
  /** template change → each group's pods all new and Ready, ms, by group. */
  readonly groupMs: readonly number[];
  /** The groups in the order they were seen done, with their ms: `index@ms`. */
  readonly groupOrder: string;
  readonly requests: ClientCounts;
  readonly tally: Tally;
  readonly load: number;
};

async function roundOn(side: LwsSide, round: number): Promise<Round> {
  const ns = `bench-lws-${round}-${Date.now().toString(36)}`;
  await side.client.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  const made = await until(async () => {
    await side.client.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    return true;
  }, 60_000);
  if (made.ms === null) throw new Error(`${side.state.name}: namespace ${ns}: ${made.last}`);

  let lws: Lws | undefined;
  let pods: Pod[] = [];
  const observe = async (): Promise<void> => {
    lws = await side.client.request<Lws>('GET', lwsPath(ns, NAME));
    pods = (await side.client.request<{ items: Pod[] }>('GET', podsPath(ns))).items;
  };
  const progress = (): string => {
    const l = live(pods);
    const hashes = [...new Set(l.map(hashOf))].join(',');
    return (
      `status ${JSON.stringify({ ...lws?.status, conditions: lws?.status?.conditions?.filter((c) => c.status === 'True').map((c) => c.type) })}; ` +
      `${l.length} live pods (${l.filter(isReady).length} Ready, ${pods.length - l.length} terminating), hashes ${hashes}`
    );
  };

  const t00 = Date.now();
  await side.client.request('POST', lwsPath(ns), leaderWorkerSet());
  const available = await until(
    async () => {
      await observe();
      const l = live(pods);
      const ok =
        lws !== undefined &&
        condition(lws, 'Available') &&
        lws.status?.readyReplicas === REPLICAS &&
        l.length === PODS &&
        l.every(isReady);
      return ok || 'waiting';
    },
    TIMEOUT_MS,
    500,
    t00,
  );
  if (available.ms === null) throw new Error(`${side.state.name}: not Available: ${progress()}`);
  log(`${side.state.name}: round ${round}: Available after ${available.ms} ms`);
  const oldHashes = new Set(live(pods).map(hashOf));

  side.audit.mark();
  const fleetqApp = side.fleetq && { state: side.state, fleetq: { app: side.fleetq } };
  const phases0 = fleetqApp && (await phaseTotals(fleetqApp));
  const t0 = Date.now();
  await side.client.update<Lws & { metadata: { resourceVersion?: string } }>(lwsPath(ns, NAME), (o) => {
    for (const c of o.spec.leaderWorkerTemplate.workerTemplate.spec.containers)
      c.image = `registry.example/app:${round + 2}`;
  });
  const groupDone = new Map<string, number>();
  const done = await until(
    async () => {
      await observe();
      const at = Date.now();
      const l = live(pods);
      const fresh = l.filter((p) => !oldHashes.has(hashOf(p)) && hashOf(p) !== '' && isReady(p));
      const byGroup = new Map<string, number>();
      for (const p of fresh) {
        const g = p.metadata.labels?.[GROUP_INDEX_LABEL] ?? '';
        byGroup.set(g, (byGroup.get(g) ?? 0) + 1);
      }
      for (const [g, n] of byGroup) {
        const groupLive = l.filter((p) => p.metadata.labels?.[GROUP_INDEX_LABEL] === g).length;
        if (n === SIZE && groupLive === SIZE && !groupDone.has(g)) groupDone.set(g, at - t0);
      }
      const s = lws?.status;
      const ok =
        s?.updatedReplicas === REPLICAS &&
        s.readyReplicas === REPLICAS &&
        lws !== undefined &&
        !condition(lws, 'UpdateInProgress') &&
        pods.length === PODS &&
        fresh.length === PODS &&
        new Set(fresh.map(hashOf)).size === 1;
      return ok || 'waiting';
    },
    TIMEOUT_MS,
    250,
    t0,
  );
  const timedOut = done.ms === null ? ` (timed out: ${progress()})` : '';
  // Where fleetq's reconciles spent their time from the change until done (reconcile-phases.ts), per kind.
  if (fleetqApp)
    for (const line of phaseLines(phases0, await phaseTotals(fleetqApp))) log(`${side.state.name}: ${line}`);
  await sleep(SETTLE_MS);
  const t1 = Date.now();
  await sleep(1_000); // the audit lines of requests answered at t1
  const tally = await side.audit.tally(t0, t1);
  const r: Round = {
    availableMs: available.ms,
    rolloutMs: done.ms,
    groupMs: [...groupDone.values()],
    groupOrder: [...groupDone].map(([g, ms]) => `${g}@${ms}`).join(' '),
    requests: sideCounts(tally),
    tally,
    load: loadavg()[0] ?? 0,
  };
  log(
    `${side.state.name}: round ${round}: rollout ${r.rolloutMs} ms, ${r.groupMs.length}/${REPLICAS} groups seen done, ` +
      `${r.requests.total} controller requests${timedOut}`,
  );
  // The namespace goes before the next side or round starts, so its garbage collection does not run beside them.
  await side.client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  const gone = await until(async () => {
    try {
      await side.client.request('GET', `/api/v1/namespaces/${ns}`);
      return 'still there';
    } catch (err) {
      return isNotFound(err) || String(err);
    }
  }, 180_000);
  if (gone.ms === null) log(`${side.state.name}: namespace ${ns} not gone after 180 s (${gone.last}); going on`);
  return r;
}

const fmt = (n: number | null | undefined): string =>
  n === null || n === undefined ? '—' : Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(1);
const medianOf = (xs: ReadonlyArray<number | null | undefined>): number | undefined =>
  median(xs.filter((x): x is number => x !== null && x !== undefined));
const pct = (xs: readonly number[], q: number): number | undefined => percentile(xs, q);

function printSide(key: SideKey, rs: readonly Round[]): void {
  console.log(`\n${key}: per round (ms; requests from the change until done + ${SETTLE_MS} ms)`);
  console.log('  round  create→Available  change→done  group p50  group p90  group max  controller requests  load');
  rs.forEach((r, i) =>
    console.log(
      `  ${String(i + 1).padStart(5)}  ${fmt(r.availableMs).padStart(15)}  ${fmt(r.rolloutMs).padStart(11)}  ` +
        `${fmt(pct(r.groupMs, 0.5)).padStart(9)}  ${fmt(pct(r.groupMs, 0.9)).padStart(9)}  ${fmt(pct(r.groupMs, 1)).padStart(9)}  ` +
        `${fmt(r.requests.total).padStart(19)}  ${r.load.toFixed(1)}`,
    ),
  );
  rs.forEach((r, i) => console.log(`  round ${i + 1}, groups in the order seen done (index@ms): ${r.groupOrder}`));
  const clients = new Map<string, number[]>();
  for (const r of rs) for (const [c, x] of r.tally) (clients.get(c) ?? clients.set(c, []).get(c)!).push(x.total);
  console.log(
    `  every client's requests per round (median): ${[...clients]
      .map(([c, ns]) => [c, medianOf(ns) ?? 0] as const)
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${fmt(n)}${isLwsControllerSide(c) ? '*' : ''}`)
      .join(', ')} (* controller side)`,
  );
  const codes = new Map<number, number[]>();
  for (const r of rs) for (const [c, n] of r.requests.byCode) (codes.get(c) ?? codes.set(c, []).get(c)!).push(n);
  console.log(
    `  controller responses by code, all rounds: ${[...codes].map(([c, ns]) => `${c} ${ns.reduce((a, b) => a + b, 0)}`).join(', ')}`,
  );
}

async function main(): Promise<void> {
  const started = Date.now();
  const load0 = loadavg();
  const results: Record<SideKey, Round[]> = { upstream: [], fleetq: [] };
  await withLwsBenchSides(
    {
      names: NAMES,
      nodes: 2,
      lwsManagerLimits: MANAGER_LIMITS,
      fleetqLimits: FLEETQ_LIMITS,
      redisUrl: REDIS_URL,
      log,
    },
    async (sides) => {
      for (let round = 0; round < RUNS; round++) {
        for (const k of SIDES) {
          log(`round ${round + 1}/${RUNS}: ${REPLICAS} groups × ${SIZE} pods on ${sides[k].state.name}`);
          try {
            results[k].push(await roundOn(sides[k], round));
          } catch (err) {
            log(`${sides[k].state.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          }
        }
      }
    },
  );
  console.log(
    `\nleaderworkerset-rollout bench: a LeaderWorkerSet of ${REPLICAS} groups × ${SIZE} pods (${PODS} pods), its ` +
      `worker template's image changed (RollingUpdate, maxUnavailable 1), ${RUNS} round(s); ${NAMES.upstream} ` +
      `(upstream's lws manager + kube-controller-manager's statefulset-controller) vs ${NAMES.fleetq} (fleetq ` +
      `in-process, owning LeaderWorkerSet, LeaderWorkerSetPod and StatefulSet)`,
  );
  console.log(
    `client limits: kube-controller-manager qps 20 burst 30 per controller client (none passed), ` +
      `the lws manager qps ${MANAGER_LIMITS.qps} burst ${MANAGER_LIMITS.burst}; fleetq qps ${FLEETQ_LIMITS.qps} ` +
      `burst ${FLEETQ_LIMITS.burst} per controller and cluster (registry defaults: ${DEFAULT_LIMITS.qps}/${DEFAULT_LIMITS.burst})`,
  );
  console.log(loadLine(load0, started));
  for (const k of SIDES) printSide(k, results[k]);

  const up = results.upstream;
  const fq = results.fleetq;
  const row = (label: string, pick: (r: Round) => number | null | undefined): void => {
    const u = medianOf(up.map(pick));
    const f = medianOf(fq.map(pick));
    const ratio = u !== undefined && f !== undefined && u > 0 ? (f / u).toFixed(2) : '—';
    console.log(`  ${label.padEnd(44)} ${fmt(u).padStart(9)} ${fmt(f).padStart(9)} ${ratio.padStart(9)}`);
  };
  console.log(`\nmedians over rounds (${up.length} upstream, ${fq.length} fleetq)      upstream    fleetq  fleetq/up`);
  row('create → Available (ms)', (r) => r.availableMs);
  row('change → rollout done (ms)', (r) => r.rolloutMs);
  row('change → group done, p50 over groups (ms)', (r) => pct(r.groupMs, 0.5));
  row('change → group done, p90 over groups (ms)', (r) => pct(r.groupMs, 0.9));
  row('change → group done, max over groups (ms)', (r) => pct(r.groupMs, 1));
  row('controller requests, rollout', (r) => r.requests.total);
  const kinds = new Set([...up, ...fq].flatMap((r) => [...r.requests.byRequest.keys()]));
  const byKind = [...kinds]
    .map(
      (k) =>
        [
          k,
          Math.max(
            medianOf(up.map((r) => r.requests.byRequest.get(k) ?? 0)) ?? 0,
            medianOf(fq.map((r) => r.requests.byRequest.get(k) ?? 0)) ?? 0,
          ),
        ] as const,
    )
    .sort((a, b) => b[1] - a[1]);
  for (const [k] of byKind) row(`  ${k}`, (r) => r.requests.byRequest.get(k) ?? 0);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`leaderworkerset-rollout: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
