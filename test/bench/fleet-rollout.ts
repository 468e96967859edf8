// The fleet rollout bench (docs/fleet-rollouts.md): N sandbox clusters (fleetq mode, kwok nodes) in 4 waves of a
// FleetRollout on the hub (cluster 1, also a member), run by one `fleetq run` process on the Redis driver. A
// 10-replica Deployment in every cluster; the rollout is applied once the Deployments are complete, and its first
// revision recorded as Succeeded. Then, as GitOps would, the template changes in every cluster at once:
//   1. a good image: time from the change to the rollout Succeeded on the new revision, against
//      waves × convergence + soaks (convergence: the median of one cluster's admission → available, ledger
//      admittedAt → availableSince, in the same run), and against the admission rounds the waves need;
//   2. a bad image (registry.example/app:404: the sandbox's kwok stage makes its pods ErrImagePull): time from the
//      first failing pod (its creationTimestamp, and the poll that first saw its ErrImagePull) to every admitted
//      cluster's pin frozen or rolled back (the `fleetrollout.fleetq.dev/*` annotations on its Deployment).
// And API requests per cluster in each phase (fleetq_kube_requests_total of the run). --rounds repeats the pair
// (good image app:2, app:3, ...; the bad image each time) and prints medians over the rounds. Prints; asserts nothing.
//   npx tsx test/bench/fleet-rollout.ts [--clusters 20] [--rounds 1] [--soak 5s] [--replicas 10] [--nodes 2] [--keep]
// (or FLEETQ_BENCH_CLUSTERS=20). Clusters are rollout-bench-1..N, stopped at the end unless --keep.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { freemem, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AppsV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import {
  batchesOf,
  between,
  convergenceMs,
  createFleetRollout,
  entryOf,
  med,
  pinStops,
  readPin,
  readRolloutStatus,
  revisionPods,
  s,
  type RolloutStatus,
} from '../helpers/bench/fleet-rollout.js';
import {
  benchDeployment,
  createNamespace,
  isComplete,
  kubeConfigOf,
  parseMetric,
  startFleetClusters,
  stopFleetClusters,
  updateDeployment,
} from '../helpers/pipeline/fleet-pipeline.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { startOwnRedis } from '../helpers/queue/redis.js';

const { values } = parseArgs({
  options: {
    clusters: { type: 'string', default: process.env.FLEETQ_BENCH_CLUSTERS ?? '20' },
    replicas: { type: 'string', default: '10' },
    nodes: { type: 'string', default: '2' },
    soak: { type: 'string', default: '5s' },
    batch: { type: 'string', default: '2' },
    'log-level': { type: 'string', default: 'info' },
    rounds: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    'timeout-s': { type: 'string', default: '900' },
  },
});
const N = Number(values.clusters);
const REPLICAS = Number(values.replicas);
const ROUNDS = Math.max(1, Number(values.rounds));
const SOAK = values.soak ?? '5s';
const SOAK_MS = Number(/^(\d+)s$/.exec(SOAK)?.[1] ?? NaN) * 1000;
const TIMEOUT_MS = Number(values['timeout-s']) * 1000;
const PREFIX = 'rollout-bench';
const NAMESPACE = 'rollout-bench';
const NAME = 'web';
const ROLLOUT = 'web';
const BAD_IMAGE = 'registry.example/app:404';
const POLL_MS = 150;
const log = (m: string): void => console.error(`fleet-rollout: ${new Date().toISOString().slice(11, 23)} ${m}`);
const load = (): string => loadavg()[0]?.toFixed(1) ?? '?';

if (!(N >= 2) || Number.isNaN(SOAK_MS)) {
  console.error('--clusters must be 2 or more and --soak whole seconds (5s)');
  process.exit(2);
}

/** Wave sizes: a canary, then about a fifth, then half the rest, then the rest. */
function waveSizes(n: number): [number, number, number, number] {
  const w1 = 1;
  const w2 = Math.max(1, Math.floor(n / 5));
  const w3 = Math.max(1, Math.floor((n - w1 - w2) / 2));
  return [w1, w2, w3, Math.max(0, n - w1 - w2 - w3)];
}
const SIZES = waveSizes(N);
const CONCURRENCY: Array<number | string> = [1, 2, '25%', '100%'];
const WAVES = SIZES.map((size, i) => ({ name: ['canary', 'early', 'broad', 'rest'][i] as string, size }))
  .map((w, i) => ({ ...w, maxConcurrency: CONCURRENCY[i] as number | string }))
  .filter((w) => w.size > 0);

/** Cluster i (1-based) → wave (1-based): the hub (cluster 1) goes last, so the canary is a member cluster only. */
function waveOf(i: number): number {
  const order = [...Array.from({ length: N - 1 }, (_, k) => k + 2), 1];
  let pos = order.indexOf(i);
  for (const [w, size] of SIZES.entries()) {
    if (pos < size) return w + 1;
    pos -= size;
  }
  return WAVES.length;
}

type Fleet = { clusters: ClusterState[]; kcs: Map<string, KubeConfig>; hub: KubeConfig };

async function requestsByCluster(metricsPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const out = new Map<string, number>();
  for (const x of parseMetric(text, 'fleetq_kube_requests_total')) {
    const c = x.labels.cluster ?? '';
    out.set(c, (out.get(c) ?? 0) + x.value);
  }
  return out;
}

function delta(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  return new Map([...b].map(([k, v]) => [k, v - (a.get(k) ?? 0)]));
}

async function waitRollout(
  fleet: Fleet,
  done: (st: RolloutStatus) => boolean,
  what: string,
): Promise<{ status: RolloutStatus; atMs: number }> {
  let status: RolloutStatus = {};
  await waitFor(
    async () => done((status = await readRolloutStatus(fleet.hub, NAMESPACE, ROLLOUT))),
    TIMEOUT_MS,
    POLL_MS,
    what,
  );
  return { status, atMs: Date.now() };
}

async function setImageEverywhere(fleet: Fleet, image: string): Promise<number> {
  const t0 = Date.now();
  await Promise.all(
    fleet.clusters.map((c) =>
      updateDeployment(fleet.kcs.get(c.name) as KubeConfig, NAMESPACE, NAME, (d) => {
        const container = d.spec?.template.spec?.containers[0];
        if (container) container.image = image;
      }),
    ),
  );
  log(`template set to ${image} in ${fleet.clusters.length} clusters in ${Date.now() - t0} ms`);
  return t0;
}

type GoodFigures = {
  revision: string;
  fullMs: number;
  /** The change → the ledger's startedAt of the new revision (the controller noticing the new template). */
  startMs: number | null;
  ledgerMs: number | null;
  convergence: number[];
};

async function goodChange(fleet: Fleet, seen: ReadonlySet<string>, image: string): Promise<GoodFigures> {
  const t0 = await setImageEverywhere(fleet, image);
  const { status, atMs } = await waitRollout(
    fleet,
    (st) => st.revision !== undefined && !seen.has(st.revision) && st.phase === 'Succeeded',
    `the rollout Succeeded on the image ${image}`,
  );
  const revision = status.revision as string;
  const entry = entryOf(status, revision);
  if (!entry) throw new Error(`no ledger entry for ${revision}`);
  const convergence = convergenceMs(entry);
  const lastVerdict = entry.clusters
    .map((r) => r.verdictAt)
    .sort()
    .at(-1);
  return {
    revision,
    fullMs: atMs - t0,
    startMs: new Date(entry.startedAt).getTime() - t0,
    ledgerMs: between(entry.startedAt, entry.stoppedAt ?? lastVerdict),
    convergence,
  };
}

type BadFigures = {
  revision: string;
  startMs: number | null;
  admitted: string[];
  firstPodCreatedToStopMs: number | null;
  firstPullFailureSeenToStopMs: number | null;
  perClusterStopMs: number[];
  ledgerFailedAfterPodMs: number | null;
  phase: string;
  stopReason: string;
  rolledBackMs: number | null;
};

async function badChange(fleet: Fleet, good: string): Promise<BadFigures> {
  const t0 = await setImageEverywhere(fleet, BAD_IMAGE);
  // The bad revision's hash: the ledger's new revision.
  const { status: started } = await waitRollout(
    fleet,
    (st) => st.revision !== undefined && st.revision !== good,
    'the rollout to start the bad revision',
  );
  const bad = started.revision as string;
  log(`bad revision ${bad} started`);
  let firstPodCreatedMs: number | null = null;
  let firstPullFailureSeenMs: number | null = null;
  const seenAdmitted = new Set<string>();
  const stoppedAt = new Map<string, number>();
  let status: RolloutStatus = started;
  await waitFor(
    async () => {
      status = await readRolloutStatus(fleet.hub, NAMESPACE, ROLLOUT);
      const entry = entryOf(status, bad);
      const admitted = (entry?.clusters ?? []).filter((r) => r.admittedAt !== undefined).map((r) => r.cluster);
      await Promise.all(
        admitted.map(async (name) => {
          const kc = fleet.kcs.get(name) as KubeConfig;
          const [pin, pods] = await Promise.all([readPin(kc, NAMESPACE, NAME), revisionPods(kc, NAMESPACE, bad)]);
          const now = Date.now();
          for (const p of pods) {
            if (firstPodCreatedMs === null || p.createdMs < firstPodCreatedMs) firstPodCreatedMs = p.createdMs;
            if (p.pullFailure && firstPullFailureSeenMs === null) firstPullFailureSeenMs = now;
          }
          if (pin.admitted === bad) seenAdmitted.add(name);
          if (!stoppedAt.has(name) && (pin.frozen === bad || seenAdmitted.has(name)) && pinStops(pin, bad)) {
            stoppedAt.set(name, now);
          }
        }),
      );
      const stopped = entry !== undefined && entry.phase !== 'Progressing';
      return stopped && admitted.length > 0 && admitted.every((c) => stoppedAt.has(c));
    },
    TIMEOUT_MS,
    POLL_MS,
    'every admitted cluster of the bad revision frozen or rolled back',
  );
  const entry = entryOf(status, bad);
  const admitted = (entry?.clusters ?? []).filter((r) => r.admittedAt !== undefined).map((r) => r.cluster);
  const allStoppedMs = Math.max(...stoppedAt.values());
  log(`bad revision stopped (${entry?.phase}: ${entry?.stopReason ?? ''}) in ${admitted.join(', ')}`);
  // Then the rollback itself: every admitted cluster's Deployment complete on the good image again.
  let rolledBackMs: number | null = null;
  if (entry?.phase === 'RolledBack') {
    await waitFor(
      async () => {
        const ds = await Promise.all(
          admitted.map((c) =>
            (fleet.kcs.get(c) as KubeConfig)
              .makeApiClient(AppsV1Api)
              .listNamespacedReplicaSet({ namespace: NAMESPACE }),
          ),
        );
        // The bad ReplicaSet scaled to zero and the good one full and available.
        return ds.every((l) =>
          l.items.every((rs) => {
            const hash = rs.metadata?.labels?.['pod-template-hash'];
            if (hash === bad) return (rs.spec?.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0;
            if (hash === good) return (rs.status?.availableReplicas ?? 0) === REPLICAS;
            return true;
          }),
        );
      },
      TIMEOUT_MS,
      POLL_MS,
      'the admitted clusters back on the good revision',
    );
    rolledBackMs = Date.now() - allStoppedMs;
  }
  const firstFailedAt = (entry?.clusters ?? [])
    .map((r) => r.failedAt)
    .filter((x): x is string => x !== undefined)
    .sort()[0];
  const startedAt = entry?.startedAt;
  return {
    revision: bad,
    startMs: startedAt === undefined ? null : new Date(startedAt).getTime() - t0,
    admitted,
    firstPodCreatedToStopMs: firstPodCreatedMs === null ? null : allStoppedMs - firstPodCreatedMs,
    firstPullFailureSeenToStopMs: firstPullFailureSeenMs === null ? null : allStoppedMs - firstPullFailureSeenMs,
    perClusterStopMs:
      firstPullFailureSeenMs === null ? [] : [...stoppedAt.values()].map((t) => t - (firstPullFailureSeenMs ?? 0)),
    ledgerFailedAfterPodMs:
      firstFailedAt === undefined || firstPodCreatedMs === null
        ? null
        : new Date(firstFailedAt).getTime() - firstPodCreatedMs,
    phase: entry?.phase ?? '',
    stopReason: entry?.stopReason ?? '',
    rolledBackMs,
  };
}

// --- main -------------------------------------------------------------------------------------------------------
const redis = await startOwnRedis();
let fleetq: Proc | undefined;
let clusters: ClusterState[] = [];
let startError: string | undefined;
const logFile = join(mkdtempSync(join(tmpdir(), 'fleet-rollout-bench-')), 'fleetq.log');
try {
  const t = Date.now();
  log(`starting ${N} clusters ${PREFIX}-1..${N} (free memory ${(freemem() / 2 ** 30).toFixed(1)} GiB, load ${load()})`);
  try {
    clusters = await startFleetClusters(PREFIX, N, Number(values.nodes), Number(values.batch));
  } catch (err) {
    startError = err instanceof Error ? err.message : String(err);
    throw err;
  }
  const startS = (Date.now() - t) / 1000;
  log(
    `${N} clusters up in ${startS.toFixed(0)} s (free memory ${(freemem() / 2 ** 30).toFixed(1)} GiB, load ${load()})`,
  );
  const kcs = new Map(clusters.map((c) => [c.name, kubeConfigOf(c)]));
  const hubName = `${PREFIX}-1`;
  const fleet: Fleet = { clusters, kcs, hub: kcs.get(hubName) as KubeConfig };
  const registry = writeRegistry(
    clusters.map((c, i) => ({
      name: c.name,
      kubeconfig: c.kubeconfig,
      owns: ['Deployment', 'ReplicaSet'],
      labels: { bench: 'rollout', wave: String(waveOf(i + 1)) },
      ...(c.name === hubName && { hub: true }),
    })),
  );
  // The workloads first, complete before the rollout exists (its first revision is then AvailableBeforeRollout).
  await Promise.all(
    clusters.map(async (c) => {
      const kc = kcs.get(c.name) as KubeConfig;
      await createNamespace(kc, NAMESPACE);
      await kc
        .makeApiClient(AppsV1Api)
        .createNamespacedDeployment({ namespace: NAMESPACE, body: benchDeployment(NAME, REPLICAS) })
        .catch((err: unknown) => {
          if ((err as { code?: number }).code !== 409) throw err;
        });
    }),
  );
  const metricsPort = await freePort();
  const queue = `rb-${Date.now().toString(36)}`;
  fleetq = spawnTsx(
    'functions/cli.ts',
    {
      REDIS_URL: redis.url,
      FLEETQ_QUEUE: queue,
      FLEETQ_REDIS_PREFIX: queue,
      FLEETQ_METRICS_PORT: String(metricsPort),
      FLEETQ_DATA_DIR: join(logFile, '..', 'data'),
      LOG_LEVEL: values['log-level'] ?? 'info',
    },
    'fleetq',
    // The start-up checks send a SelfSubjectAccessReview per rule to every cluster; with 20 sandbox clusters at a
    // load of 25 they timed out on every cluster. `fleetq doctor` is not what this bench measures.
    ['run', '--registry', registry, '--driver', 'redis', '--skip-preflight'],
  );
  const proc = fleetq;
  await Promise.race([
    proc.waitForLine(/fleetq: running/, 360_000),
    proc.exited.then((code) => {
      throw new Error(`fleetq run exited (${code}) before it ran:\n${proc.lines.slice(-30).join('\n')}`);
    }),
  ]);
  log(`fleetq run up (registry ${registry}, log ${logFile}, load ${load()})`);
  await waitFor(
    async () =>
      (
        await Promise.all(
          clusters.map(async (c) =>
            isComplete(
              await (kcs.get(c.name) as KubeConfig)
                .makeApiClient(AppsV1Api)
                .readNamespacedDeployment({ namespace: NAMESPACE, name: NAME }),
            ),
          ),
        )
      ).every(Boolean),
    TIMEOUT_MS,
    500,
    `${NAME} complete in every cluster`,
  );
  log(`${NAME} complete in ${N} clusters`);
  await createFleetRollout(fleet.hub, NAMESPACE, {
    apiVersion: 'fleetq.dev/v1alpha1',
    kind: 'FleetRollout',
    metadata: { name: ROLLOUT, namespace: NAMESPACE },
    spec: {
      target: { kind: 'Deployment', namespace: NAMESPACE, name: NAME },
      clusters: { matchLabels: { bench: 'rollout' } },
      waves: WAVES.map((w, i) => ({
        name: w.name,
        clusters: { matchLabels: { wave: String(i + 1) } },
        maxConcurrency: w.maxConcurrency,
        soak: SOAK,
      })),
      progressDeadline: '5m',
      failureBudget: { maxFailedClusters: 0 },
      onFailure: 'Rollback',
    },
  });
  const { status: initial } = await waitRollout(
    fleet,
    (st) => st.phase === 'Succeeded' && st.revision !== undefined,
    'the first revision Succeeded',
  );
  const first = initial.revision as string;
  log(`first revision ${first} Succeeded (${entryOf(initial, first)?.clusters.length ?? 0} clusters)`);

  const members = clusters.map((c) => c.name).filter((n) => n !== hubName);
  const goods: GoodFigures[] = [];
  const bads: BadFigures[] = [];
  const goodReq: number[] = [];
  const badReq: number[] = [];
  const hubGoodReq: number[] = [];
  const hubBadReq: number[] = [];
  const seen = new Set([first]);
  for (let round = 1; round <= ROUNDS; round++) {
    const r0 = await requestsByCluster(metricsPort);
    const good = await goodChange(fleet, seen, `registry.example/app:${round + 1}`);
    const r1 = await requestsByCluster(metricsPort);
    log(`round ${round}: good revision ${good.revision} Succeeded in ${s(good.fullMs)}`);
    const bad = await badChange(fleet, good.revision);
    const r2 = await requestsByCluster(metricsPort);
    goods.push(good);
    bads.push(bad);
    goodReq.push(...members.map((n) => delta(r0, r1).get(n) ?? 0));
    badReq.push(...members.map((n) => delta(r1, r2).get(n) ?? 0));
    hubGoodReq.push(delta(r0, r1).get(hubName) ?? 0);
    hubBadReq.push(delta(r1, r2).get(hubName) ?? 0);
    seen.add(good.revision).add(bad.revision);
  }
  const convergence = goods.flatMap((g) => g.convergence);
  const c = med(convergence);
  const batches = batchesOf(WAVES);
  const soaks = WAVES.length * SOAK_MS;
  const one = (xs: ReadonlyArray<number | null>): string => {
    const ok = xs.filter((x): x is number => x !== null);
    if (ok.length === 0) return 'n/a';
    return ok.length === 1 ? s(ok[0]) : `${s(med(ok))} (${s(Math.min(...ok))}–${s(Math.max(...ok))})`;
  };
  const count = (xs: readonly number[]): string =>
    xs.length === 0 ? 'n/a' : `${med(xs)} (${Math.min(...xs)}–${Math.max(...xs)})`;
  const rows: Array<[string, string]> = [
    [
      'clusters (waves: name size × maxConcurrency)',
      `${N} (${WAVES.map((w) => `${w.name} ${w.size} × ${w.maxConcurrency}`).join(', ')})`,
    ],
    ['replicas per cluster, soak, rounds', `${REPLICAS}, ${SOAK}, ${ROUNDS}`],
    ['clusters started in', `${startS.toFixed(0)} s`],
    ['1. good change → Succeeded (bench poll)', one(goods.map((g) => g.fullMs))],
    ['   change → ledger startedAt (new template noticed)', one(goods.map((g) => g.startMs))],
    ['   ledger startedAt → last verdict', one(goods.map((g) => g.ledgerMs))],
    [
      `   convergence per cluster (admittedAt → availableSince, ${convergence.length} clusters)`,
      c === null ? 'n/a' : `${s(c)} (${s(Math.min(...convergence))}–${s(Math.max(...convergence))})`,
    ],
    [
      `   waves × convergence + soaks (${WAVES.length} × ${s(c)} + ${s(soaks)})`,
      s(c === null ? null : WAVES.length * c + soaks),
    ],
    [`   admission rounds × (convergence + soak) (${batches} rounds)`, s(c === null ? null : batches * (c + SOAK_MS))],
    ['2. bad image: admitted clusters', [...new Set(bads.flatMap((b) => b.admitted))].join(', ')],
    ['   outcome', [...new Set(bads.map((b) => `${b.phase}: ${b.stopReason}`))].join('; ')],
    ['   change → ledger startedAt', one(bads.map((b) => b.startMs))],
    ['   first failing pod created → every admitted pin stopped', one(bads.map((b) => b.firstPodCreatedToStopMs))],
    ['   ErrImagePull first seen → every admitted pin stopped', one(bads.map((b) => b.firstPullFailureSeenToStopMs))],
    ['   first failing pod created → ledger failedAt', one(bads.map((b) => b.ledgerFailedAfterPodMs))],
    ['   pins stopped → rollback complete', one(bads.map((b) => b.rolledBackMs))],
    ['API requests per member cluster: good change', count(goodReq)],
    ['   hub (FleetRollout, pins, its own Deployment): good change', count(hubGoodReq)],
    ['API requests per member cluster: bad change', count(badReq)],
    ['   hub: bad change', count(hubBadReq)],
    ['load (1 min) at the end', load()],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`\nFleet rollout bench, ${new Date().toISOString()}: median (min–max) over rounds or clusters\n`);
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
  console.log('\nPer cluster, last good change: cluster, wave, admission → available');
  const entry = entryOf(await readRolloutStatus(fleet.hub, NAMESPACE, ROLLOUT), goods.at(-1)?.revision ?? '');
  for (const r of entry?.clusters ?? [])
    console.log(`  ${r.cluster.padEnd(18)} ${r.wave.padEnd(7)} ${s(between(r.admittedAt, r.availableSince))}`);
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  if (fleetq) log(`last lines of fleetq:\n${fleetq.lines.slice(-30).join('\n')}`);
  if (startError !== undefined) console.log(`\n${N} clusters could not start: ${startError}`);
  process.exitCode = 1;
} finally {
  if (fleetq) {
    await fleetq.stop('SIGTERM');
    writeFileSync(logFile, fleetq.lines.join('\n'));
    log(`fleetq log: ${logFile}`);
  }
  if (!values.keep && startError === undefined && clusters.length > 0) await stopFleetClusters(clusters);
  await redis.stop();
}
process.exit();
