// The DaemonSet and StatefulSet bench, one run: a DaemonSet over --nodes (100) kwok nodes, created and then rolled out to a new image
// (RollingUpdate, maxUnavailable --max-unavailable (1), maxSurge 0: upstream's default), and a --replicas (50)
// StatefulSet (OrderedReady), created and then rolling-updated to a new image; under the upstream controllers
// (bench-up-dsts, kube-controller-manager) and under fleetq (bench-fq-dsts, fleetq in this process), one cluster
// after the other so both see the same machine. A change has converged when the status says so and every pod is
// live, Ready and of the new image (the conformance predicates daemonSetRolledOut and statefulSetRolledOut).
// Requests are counted on the apiserver from its audit log by client (test/helpers/sandbox/audit-log.ts): the controller
// side is fleetq's ServiceAccounts against kcm's daemonset-controller and statefulset-controller. Both sides at
// their defaults: kcm gives each controller its own client (qps 20, burst 30; the sandbox passes none), fleetq
// each controller a budget per cluster of the same (registry defaults, DEFAULT_LIMITS).
// Prints; asserts nothing.
//   npx tsx test/bench/daemonset-statefulset.ts [--phases daemonset,statefulset] [--nodes 100] [--replicas 50]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import {
  benchLog,
  benchNamespace,
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
import { DEFAULT_LIMITS } from '../../shared/kube/registry.js';
import { phaseLines, phaseTotals } from '../helpers/bench/phases.js';
import { PodTimeline, timelineLine } from '../helpers/bench/pod-timeline.js';
import { daemonSetRolledOut } from '../helpers/conformance/daemonset.js';
import { statefulSetRolledOut } from '../helpers/conformance/statefulset.js';
import type { Check, DaemonSet, Pod, PodTemplate, Snapshot, StatefulSet } from '../helpers/conformance/types.js';
import { image, podTemplate } from '../conformance/scenarios/builders.js';
import { printComparison, printSummary, type Comparison } from './read-path-report.js';

const { values } = parseArgs({
  options: {
    phases: { type: 'string', default: 'daemonset,statefulset' },
    nodes: { type: 'string', default: '100' },
    replicas: { type: 'string', default: '50' },
    'max-unavailable': { type: 'string', default: '1' },
    'timeout-s': { type: 'string', default: '1200' },
  },
  strict: true,
});
const int = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
  return n;
};
const PHASES = new Set(String(values.phases).split(',').filter(Boolean));
const NODES = int('nodes');
const REPLICAS = int('replicas');
const MAX_UNAVAILABLE = int('max-unavailable');
/** fleetq at its registry defaults: each controller a budget of its own, as kcm's. */
const FLEETQ_LIMITS = DEFAULT_LIMITS;
const TIMEOUT_MS = int('timeout-s') * 1000;
const DS = 'agent';
const STS = 'web';

const log = benchLog('daemonset-statefulset');
const dsPath = (ns: string, name?: string): string =>
  `/apis/apps/v1/namespaces/${ns}/daemonsets${name ? `/${name}` : ''}`;
const stsPath = (ns: string, name?: string): string =>
  `/apis/apps/v1/namespaces/${ns}/statefulsets${name ? `/${name}` : ''}`;

function daemonSet(): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: DS },
    spec: {
      selector: { matchLabels: { app: DS } },
      template: podTemplate({ app: DS }),
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: MAX_UNAVAILABLE, maxSurge: 0 } },
    },
  };
}

function statefulSet(): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: STS },
    spec: {
      replicas: REPLICAS,
      serviceName: STS,
      selector: { matchLabels: { app: STS } },
      template: podTemplate({ app: STS }),
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    },
  };
}

const setImage = (t: PodTemplate, v: number): void => {
  ((t.spec?.containers ?? []) as Array<{ image: string }>)[0]!.image = image(v);
};

async function snapshot(side: Side, ns: string): Promise<Snapshot> {
  const list = async <T>(path: string): Promise<T[]> => (await side.client.request<{ items: T[] }>('GET', path)).items;
  return {
    at: Date.now(),
    namespace: ns,
    deployments: [],
    replicaSets: [],
    jobs: [],
    daemonSets: await list<DaemonSet>(dsPath(ns)),
    statefulSets: await list<StatefulSet>(stsPath(ns)),
    pods: await list<Pod>(`/api/v1/namespaces/${ns}/pods`),
  };
}

/** A comparison, with each side's pod timeline line (test/helpers/bench/pod-timeline.ts). */
type Compared = Comparison & { readonly timelines: string[] };

type Change = {
  readonly title: string;
  readonly act: (side: Side, ns: string) => Promise<void>;
  readonly done: (s: Snapshot) => Check;
};

const PHASE_CHANGES: Record<string, readonly Change[]> = {
  daemonset: [
    {
      title: `DaemonSet create, ${NODES} nodes`,
      act: async (side, ns) => void (await side.client.request('POST', dsPath(ns), daemonSet())),
      done: daemonSetRolledOut(DS, NODES, image(1)),
    },
    {
      title: `DaemonSet rollout, ${NODES} nodes, maxUnavailable ${MAX_UNAVAILABLE}`,
      act: async (side, ns) =>
        void (await side.client.update<DaemonSet>(dsPath(ns, DS), (d) => setImage(d.spec.template, 2))),
      done: daemonSetRolledOut(DS, NODES, image(2)),
    },
  ],
  statefulset: [
    {
      title: `StatefulSet create, ${REPLICAS} replicas`,
      act: async (side, ns) => void (await side.client.request('POST', stsPath(ns), statefulSet())),
      done: statefulSetRolledOut(STS, REPLICAS, image(1)),
    },
    {
      title: `StatefulSet rolling update, ${REPLICAS} replicas`,
      act: async (side, ns) =>
        void (await side.client.update<StatefulSet>(stsPath(ns, STS), (s) => setImage(s.spec.template, 2))),
      done: statefulSetRolledOut(STS, REPLICAS, image(2)),
    },
  ],
};

async function runPhase(sides: Sides, changes: readonly Change[], out: Compared[]): Promise<void> {
  const ns = {
    upstream: await benchNamespace(sides.upstream, 'dsts'),
    fleetq: await benchNamespace(sides.fleetq, 'dsts'),
  };
  for (const change of changes) {
    const c: Compared = { title: change.title, upstream: [], fleetq: [], timelines: [] };
    for (const k of SIDE_KEYS) {
      log(`${change.title} on ${sides[k].state.name}`);
      const timeline = new PodTimeline(sides[k].client, ns[k]);
      await timeline.start();
      let t0 = 0;
      const times0 = await fleetqTimes(sides[k]);
      const phases0 = await phaseTotals(sides[k]);
      try {
        const s = await step(
          sides[k],
          () => {
            t0 = Date.now();
            return change.act(sides[k], ns[k]);
          },
          async () => change.done(await snapshot(sides[k], ns[k])),
          { timeoutMs: TIMEOUT_MS, pollMs: 500, log },
        );
        c[k].push(s);
        c.timelines.push(timelineLine(k, timeline.figures(t0, s.ms)));
        const times = fleetqTimesLine(times0, await fleetqTimes(sides[k]));
        if (times) c.timelines.push(`  ${times}`);
        for (const line of phaseLines(phases0, await phaseTotals(sides[k]))) c.timelines.push(`  ${line}`);
      } finally {
        timeline.stop();
      }
    }
    out.push(c);
    // The next change starts from a converged set on both sides, or not at all.
    if (c.upstream.some((s) => s.ms === null) || c.fleetq.some((s) => s.ms === null)) {
      log(`${change.title} did not converge on both sides; the rest of the phase is skipped`);
      return;
    }
  }
  // The namespaces stay: the clusters are stopped right after, and a deletion would only load the machine.
}

async function main(): Promise<void> {
  const started = Date.now();
  const load0 = loadavg();
  const results: Compared[] = [];
  await withBenchSides(
    { names: { upstream: 'bench-up-dsts', fleetq: 'bench-fq-dsts' }, nodes: NODES, fleetqLimits: FLEETQ_LIMITS, log },
    async (sides) => {
      for (const [name, changes] of Object.entries(PHASE_CHANGES)) {
        if (!PHASES.has(name)) continue;
        try {
          await runPhase(sides, changes, results);
        } catch (err) {
          log(`phase ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        }
      }
    },
  );
  console.log(
    `\ndaemonset-statefulset bench: API requests counted by the apiserver (audit log, by user and user agent), ` +
      `bench-up-dsts (kube-controller-manager) vs bench-fq-dsts (fleetq in-process)`,
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
    console.log('  where the time went (a watch on the pods):');
    for (const line of c.timelines) console.log(`  ${line}`);
  }
  printSummary(results);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`daemonset-statefulset: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
