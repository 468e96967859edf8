// Time to converge under the upstream controllers (upstream-1) and under fleetq (fleetq-1, fleetq in this
// process), in the same run, one cluster after the other: a Deployment of N replicas created from zero, a
// rolling update of it (default 25%/25%), and a scale down to N/10. Also fleetq's API requests per
// reconcile in each phase (fleetq_kube_requests_total / fleetq_reconcile_total). fleetq's limits default to its
// registry defaults (a budget of qps 20, burst 30 per controller and cluster, as kube-controller-manager's client
// per controller). Prints; asserts nothing.
//   npx tsx test/bench/rollout-convergence.ts [--replicas 300] [--clusters upstream-1,fleetq-1] [--qps 20 --burst 30]
import { parseArgs } from 'node:util';
import type { Registry } from 'prom-client';
import { DEFAULT_LIMITS } from '../../shared/kube/registry.js';
import { TimeoutError, waitFor } from '../../infra/sandbox/process.js';
import { Side } from '../helpers/conformance/client.js';
import { missingControllers, startFleetq, type RunningFleetq } from '../helpers/conformance/fleetq.js';
import { deploymentComplete } from '../helpers/conformance/predicates.js';
import type { Check, Deployment, ReplicaSet, Snapshot } from '../helpers/conformance/types.js';
import { sandboxCluster } from '../helpers/sandbox/clusters.js';
import { deployment, setImage } from '../conformance/scenarios/builders.js';

const { values } = parseArgs({
  options: {
    replicas: { type: 'string', default: '300' },
    clusters: { type: 'string', default: 'upstream-1,fleetq-1' },
    qps: { type: 'string', default: String(DEFAULT_LIMITS.qps) },
    burst: { type: 'string', default: String(DEFAULT_LIMITS.burst) },
    'timeout-s': { type: 'string', default: '600' },
  },
});
const REPLICAS = Number(values.replicas);
const TIMEOUT_MS = Number(values['timeout-s']) * 1000;
const NAME = 'bench';

type Counts = { requests: number; reconciles: number };
type Phase = { name: string; ms: number | null; counts?: Counts; note?: string };

async function counts(registry: Registry | undefined, cluster: string): Promise<Counts | undefined> {
  if (!registry) return undefined;
  const sum = async (metric: string): Promise<number> => {
    const m = registry.getSingleMetric(metric);
    if (!m) return 0;
    const { values: vs } = await m.get();
    return vs.filter((v) => v.labels.cluster === cluster).reduce((a, v) => a + v.value, 0);
  };
  return { requests: await sum('fleetq_kube_requests_total'), reconciles: await sum('fleetq_reconcile_total') };
}

async function converge(side: Side, check: (s: Snapshot) => Check): Promise<number | null> {
  const t0 = Date.now();
  try {
    await waitFor(async () => check(await side.snapshot()) === true, TIMEOUT_MS, 250, 'convergence');
    return Date.now() - t0;
  } catch (err) {
    if (err instanceof TimeoutError) return null;
    throw err;
  }
}

async function runOn(cluster: string): Promise<Phase[]> {
  const { state } = await sandboxCluster(cluster);
  let fleetq: RunningFleetq | undefined;
  if (state.mode === 'fleetq') {
    const missing = missingControllers(['Deployment', 'ReplicaSet']);
    if (missing.length > 0)
      return [{ name: 'all', ms: null, note: `fleetq has no controller for ${missing.join(', ')}` }];
    fleetq = await startFleetq(cluster, { qps: Number(values.qps), burst: Number(values.burst) });
  }
  const side = await Side.open(cluster, cluster, 'bench-rollout');
  const registry = fleetq?.app.deps.metrics.registry;
  const phases: Phase[] = [];
  const phase = async (name: string, act: () => Promise<void>): Promise<void> => {
    const before = await counts(registry, cluster);
    await act();
    const ms = await converge(side, deploymentComplete(NAME));
    const after = await counts(registry, cluster);
    phases.push({
      name,
      ms,
      ...(before &&
        after && {
          counts: { requests: after.requests - before.requests, reconciles: after.reconciles - before.reconciles },
        }),
    });
    console.error(`${cluster}: ${name}: ${ms === null ? 'did not converge' : `${ms} ms`}`);
  };
  try {
    await phase(`create ${REPLICAS}`, () => side.create(deployment(NAME, { replicas: REPLICAS })));
    await phase(`rolling update ${REPLICAS}`, async () => {
      await side.update<Deployment & ReplicaSet>('Deployment', NAME, setImage(2));
    });
    const down = Math.max(1, Math.round(REPLICAS / 10));
    await phase(`scale ${REPLICAS} → ${down}`, async () => {
      await side.update<Deployment>('Deployment', NAME, (d) => {
        d.spec.replicas = down;
      });
    });
  } finally {
    await side.removeNamespace();
    await fleetq?.stop();
  }
  return phases;
}

const clusters = (values.clusters ?? '').split(',').filter(Boolean);
const results = new Map<string, Phase[]>();
for (const c of clusters) results.set(c, await runOn(c));

const fmt = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`;
const [ref, other] = clusters;
const names = [...new Set([...results.values()].flatMap((ps) => ps.map((p) => p.name)))];
console.log(
  `rollout convergence, ${REPLICAS} replicas (fleetq limits per controller: qps ${values.qps}, burst ${values.burst})`,
);
console.log(['phase', ...clusters, other ? `ratio ${other}/${ref}` : '', 'fleetq requests/reconcile'].join('\t'));
for (const n of names) {
  const row = clusters.map((c) => results.get(c)?.find((p) => p.name === n));
  const [a, b] = row;
  const ratio = a?.ms && b?.ms ? (b.ms / a.ms).toFixed(2) : '—';
  const withCounts = row.find((p) => p?.counts);
  const perReconcile =
    withCounts?.counts && withCounts.counts.reconciles > 0
      ? `${(withCounts.counts.requests / withCounts.counts.reconciles).toFixed(2)} (${withCounts.counts.requests} / ${withCounts.counts.reconciles})`
      : '—';
  console.log([n, ...row.map((p) => fmt(p?.ms) + (p?.note ? ` (${p.note})` : '')), ratio, perReconcile].join('\t'));
}
process.exit(0);
