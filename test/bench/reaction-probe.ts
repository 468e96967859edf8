// Where a controller's reaction goes: one small rollout on two running sandbox clusters of your own (started with
// --audit), upstream (kube-controller-manager) and fleetq (fleetq in this process), and for each pod event that
// lets the rollout go on (a pod Ready, a pod gone), the time to the controller's next pod write. The trigger is
// when this process's watch on the pods saw it (as the controllers' watches see it), the write when the apiserver
// received the controller's POST or DELETE of a pod (its audit log; one machine, one clock). On the fleetq side each gap is split with the reconciles that ran in it: trigger → the key's
// reconcile granted (forwarder + queue), and that reconcile's phases (shared/runtime/reconcile-phases.ts).
// Prints; asserts nothing.
//   npx tsx infra/sandbox/cli.ts up --names perf-up --mode upstream --nodes 3 --audit
//   npx tsx infra/sandbox/cli.ts up --names perf-fq --mode fleetq --nodes 3 --audit
//   npx tsx test/bench/reaction-probe.ts --upstream perf-up --fleetq perf-fq --scenario statefulset --replicas 50
//     [--scenario deployment --replicas 10] [--qps 20 --burst 30] [--trace]
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { readState } from '../../infra/sandbox/sandbox.js';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { BenchClient } from '../helpers/bench/client.js';
import { benchLog, benchNamespace, until, type Side } from '../helpers/bench/sides.js';
import { AuditLog } from '../helpers/sandbox/audit-log.js';
import { fmt, isController, reactions, requestsOf, type Trigger } from '../helpers/bench/reactions.js';
import { startFleetq, type RunningFleetq } from '../helpers/conformance/fleetq.js';
import { deploymentComplete } from '../helpers/conformance/predicates.js';
import { statefulSetRolledOut } from '../helpers/conformance/statefulset.js';
import type { Check, Deployment, Pod, ReplicaSet, Snapshot, StatefulSet } from '../helpers/conformance/types.js';
import { deployment, image, podTemplate, setImage } from '../conformance/scenarios/builders.js';

const { values } = parseArgs({
  options: {
    upstream: { type: 'string', default: 'perf-up' },
    fleetq: { type: 'string', default: 'perf-fq' },
    scenario: { type: 'string', default: 'statefulset' },
    replicas: { type: 'string', default: '50' },
    qps: { type: 'string', default: '20' },
    burst: { type: 'string', default: '30' },
    'timeout-s': { type: 'string', default: '900' },
    trace: { type: 'boolean', default: false },
  },
  strict: true,
});
const REPLICAS = Number(values.replicas);
const SCENARIO = String(values.scenario);
if (SCENARIO !== 'statefulset' && SCENARIO !== 'deployment') throw new Error('--scenario statefulset|deployment');
/** fleetq's budget per controller and cluster, as kcm's client per controller (default: both sides' 20/30). */
const LIMITS = { qps: Number(values.qps), burst: Number(values.burst) };
const TIMEOUT_MS = Number(values['timeout-s']) * 1000;
const log = benchLog('reaction-probe');

const stsPath = (ns: string, name?: string): string =>
  `/apis/apps/v1/namespaces/${ns}/statefulsets${name ? `/${name}` : ''}`;
const deployPath = (ns: string, name?: string): string =>
  `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`;

function statefulSet(): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web' },
    spec: {
      replicas: REPLICAS,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: podTemplate({ app: 'web' }),
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    },
  };
}

async function snapshot(side: Side, ns: string): Promise<Snapshot> {
  const list = async <T>(path: string): Promise<T[]> => (await side.client.request<{ items: T[] }>('GET', path)).items;
  return {
    at: Date.now(),
    namespace: ns,
    deployments: SCENARIO === 'deployment' ? await list<Deployment>(deployPath(ns)) : [],
    replicaSets: SCENARIO === 'deployment' ? await list<ReplicaSet>(`/apis/apps/v1/namespaces/${ns}/replicasets`) : [],
    jobs: [],
    statefulSets: SCENARIO === 'statefulset' ? await list<StatefulSet>(stsPath(ns)) : [],
    pods: await list<Pod>(`/api/v1/namespaces/${ns}/pods`),
  };
}

const done = (v: number) =>
  SCENARIO === 'statefulset' ? statefulSetRolledOut('web', REPLICAS, image(v)) : deploymentComplete('web');

async function watchPods(side: Side, ns: string, into: Trigger[]): Promise<{ stop(): void }> {
  const path = `/api/v1/namespaces/${ns}/pods`;
  const list = await side.client.request<{ metadata: { resourceVersion: string }; items: Pod[] }>('GET', path);
  const ready = new Set(list.items.filter(isReady).map((p) => p.metadata.name ?? ''));
  return side.client.watch(path, list.metadata.resourceVersion, (e, at) => {
    const p = e.object as Pod;
    const name = p.metadata.name ?? '';
    if (e.type === 'DELETED') {
      ready.delete(name);
      into.push({ at, what: 'gone', name });
    } else if (isReady(p) && !ready.has(name)) {
      ready.add(name);
      into.push({ at, what: 'ready', name });
    } else if (!isReady(p)) ready.delete(name);
  });
}

const isReady = (p: Pod): boolean =>
  ((p.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );

type Finished = { startedAt: number; endedAt: number; phases: Record<string, number>; outcome: string };

async function main(): Promise<void> {
  const load0 = loadavg();
  const states = readState().clusters;
  const state = (name: string): ClusterState => {
    const s = states.find((c) => c.name === name);
    if (!s?.auditLog) throw new Error(`cluster ${name} is not up with an audit log`);
    return s;
  };
  // fleetq's 'Reconcile finished' lines (with phases) are captured here; the process logs nothing else.
  const finished: Finished[] = [];
  const capture = (line: string): void => {
    const e = JSON.parse(line) as Partial<Finished> & { message?: string; level?: string };
    if (e.message === 'Reconcile finished' && e.startedAt !== undefined)
      finished.push({
        startedAt: e.startedAt,
        endedAt: e.endedAt ?? 0,
        phases: e.phases ?? {},
        outcome: e.outcome ?? '',
      });
    else if (e.level === 'error' || e.level === 'warn') console.log(`  fleetq ${e.level}: ${line.slice(0, 400)}`);
  };
  let fleetq: RunningFleetq | undefined;
  const restoreStderr = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    if (text.startsWith('{"level"')) {
      for (const l of text.split('\n').filter(Boolean)) capture(l);
      return true;
    }
    return (restoreStderr as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    fleetq = await startFleetq(String(values.fleetq), { ...LIMITS, logLevel: 'info' });
    const sides: Record<'upstream' | 'fleetq', Side> = {
      upstream: {
        state: state(String(values.upstream)),
        client: BenchClient.fromKubeconfig(state(String(values.upstream)).kubeconfig),
        audit: new AuditLog(state(String(values.upstream)).auditLog ?? '', false),
      },
      fleetq: {
        state: state(String(values.fleetq)),
        client: BenchClient.fromKubeconfig(state(String(values.fleetq)).kubeconfig),
        audit: new AuditLog(state(String(values.fleetq)).auditLog ?? '', false),
        fleetq,
      },
    };
    for (const k of ['upstream', 'fleetq'] as const) {
      const side = sides[k];
      const ns = await benchNamespace(side, `probe-${SCENARIO.slice(0, 3)}`);
      log(`${side.state.name}: create ${SCENARIO} ${REPLICAS} in ${ns}`);
      if (SCENARIO === 'statefulset') await side.client.request('POST', stsPath(ns), statefulSet());
      else await side.client.request('POST', deployPath(ns), deployment('web', { replicas: REPLICAS }));
      const created = await until(async () => done(1)(await snapshot(side, ns)), TIMEOUT_MS, 500);
      if (created.ms === null) throw new Error(`${side.state.name}: create did not converge: ${created.last}`);
      log(`${side.state.name}: created in ${created.ms} ms; rolling update`);
      const nFinished = finished.length;
      // This process's event loop (fleetq's forwarder and workers, and the probe's watch) and CPU meanwhile.
      const lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();
      const cpu0 = process.cpuUsage();
      const triggers: Trigger[] = [];
      const watch = await watchPods(side, ns, triggers);
      const t0 = Date.now();
      if (SCENARIO === 'statefulset')
        await side.client.update<StatefulSet>(stsPath(ns, 'web'), (s) => {
          ((s.spec.template.spec?.containers ?? []) as Array<{ image: string }>)[0]!.image = image(2);
        });
      else await side.client.update<Deployment>(deployPath(ns, 'web'), (d) => setImage(2)(d));
      const rolled = await until(async () => done(2)(await snapshot(side, ns)) as Check, TIMEOUT_MS, 250, t0);
      const t1 = Date.now();
      lag.disable();
      const cpu = process.cpuUsage(cpu0);
      watch.stop();
      await new Promise((r) => setTimeout(r, 2_000)); // the audit lines of the last requests
      const reqs = await requestsOf(side.state, ns, t0 - 1_000, t1);
      const gaps = reactions(triggers, reqs);
      const ctl = reqs.filter(isController);
      console.log(
        `\n${side.state.name} (${k}): rolling update ${rolled.ms === null ? `did not converge (${rolled.last})` : `${rolled.ms} ms`}; ` +
          `controller writes ${ctl.length} (${ctl.filter((r) => r.code >= 400).length} refused); load ${loadavg()[0]?.toFixed(1)}`,
      );
      console.log(
        `  this process: CPU ${((cpu.user + cpu.system) / 1000 / (t1 - t0)).toFixed(2)} of a core; event loop delay ` +
          `p50 ${(lag.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms, max ${(lag.max / 1e6).toFixed(1)} ms`,
      );
      console.log(`  reaction trigger → next pod create/delete: ${fmt(gaps.map((g) => g.ms))}`);
      for (const what of ['ready', 'gone'] as const)
        console.log(`    after a pod ${what}: ${fmt(gaps.filter((g) => g.trigger.what === what).map((g) => g.ms))}`);
      if (k !== 'fleetq') continue;
      const runs = finished.slice(nFinished).filter((f) => f.startedAt >= t0 - 1_000 && f.startedAt <= t1);
      // Split each gap: trigger → first reconcile granted after it; runs in the gap and their phases.
      const toGrant: number[] = [];
      const runsPerGap: number[] = [];
      const sums = new Map<string, number[]>();
      for (const g of gaps) {
        const inGap = runs.filter((r) => r.startedAt >= g.trigger.at && r.startedAt <= g.action.at);
        if (inGap[0]) toGrant.push(inGap[0].startedAt - g.trigger.at);
        runsPerGap.push(inGap.length);
        const acting = inGap.at(-1);
        if (acting) {
          for (const [p, v] of Object.entries(acting.phases)) sums.set(p, [...(sums.get(p) ?? []), v]);
          const firstWrite = g.action.at - acting.startedAt;
          sums.set('grant→pod write (audit)', [...(sums.get('grant→pod write (audit)') ?? []), firstWrite]);
        }
        if (values.trace)
          console.log(
            `    ${new Date(g.trigger.at).toISOString().slice(11, 23)} ${g.trigger.name} ${g.trigger.what} → ` +
              `+${g.ms} ms ${g.action.verb} ${g.action.name}; runs ${inGap
                .map((r) => `+${r.startedAt - g.trigger.at}:${JSON.stringify(r.phases)}`)
                .join(' ')}`,
          );
      }
      console.log(`  trigger → first reconcile granted (forwarder + queue): ${fmt(toGrant)}`);
      console.log(`  reconciles per gap: ${fmt(runsPerGap).replace(/ ms/g, '')}`);
      console.log(`  the acting reconcile's phases (ms):`);
      for (const [p, xs] of sums) console.log(`    ${p}: ${fmt(xs)}`);
      const all = new Map<string, number[]>();
      for (const r of runs) for (const [p, v] of Object.entries(r.phases)) all.set(p, [...(all.get(p) ?? []), v]);
      console.log(`  every reconcile of the rollout (${runs.length}):`);
      for (const [p, xs] of all) console.log(`    ${p}: ${fmt(xs)}`);
    }
  } finally {
    process.stderr.write = restoreStderr;
    await fleetq?.stop();
  }
  const fmtLoad = (l: readonly number[]): string => l.map((x) => x.toFixed(1)).join('/');
  console.log(`\nload average ${fmtLoad(load0)} at the start, ${fmtLoad(loadavg())} at the end`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`reaction-probe: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
