// npm run e2e:jobset [-- --focus REGEX ...] [--side both|fleetq|upstream] [--lanes N] [--timeout MIN]
//                      [--reports DIR] [--nodes N] [--down] [--owns KIND,...]
//   --focus    instead of the whole suite: these Ginkgo expressions, dealt to the lanes
//   --lanes    jobset-e2e.test processes at once per side (default 3)
//   --timeout  minutes a lane may take (Ginkgo's --timeout; a spec's own waits are 10 minutes)
//   --owns     what fleetq owns in jobset-e2e-fleetq (default JobSet,Job; owning less is how to see it fail)
//
// JobSet's own e2e specs (test/e2e of sigs.k8s.io/jobset at the pinned version, built by
// infra/sandbox/build-jobset-e2e.sh), run side by side against two dedicated sandbox clusters:
// jobset-e2e-upstream (upstream mode: kube-controller-manager and upstream's JobSet manager with its webhooks)
// and jobset-e2e-fleetq (fleetq mode: `fleetq run` owns JobSet and Job, and fleetq's JobSet admission
// (shared/admission/) serves the JobSet webhooks from this process). Prints one row per spec, one column per
// side, with the upstream gate's rule (verdict.ts): a spec that passes on upstream and not on fleetq fails the
// run (exit 1).
//
// What the suite needs and the sandbox gives it, the same on both sides:
//   - BeforeSuite waits for a Deployment jobset-system/jobset-controller-manager to be Available (upstream's
//     manager runs as a host process here): a stand-in with 0 replicas. kube-controller-manager reports it
//     Available on upstream; on fleetq, where no Deployment controller runs, this runner writes that status.
//   - the specs' pods have no kwok toleration: the kwok taint is removed from the nodes (as run.ts does).
//   - their containers must run to an exit: jobset-pods.ts ends each pod as its fixture's program would.
// Specs in UNRUNNABLE are skipped on both sides, each with its reason.
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { isKind, type Kind } from '../../shared/kube/kinds.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { REPO_ROOT, down, sandboxRoot, up } from '../../infra/sandbox/sandbox.js';
import { startJobSetAdmission, type RunningJobSetAdmission } from '../helpers/sandbox/jobset-admission.js';
import { runJobSetPods, type PodRunner } from './jobset-pods.js';
import { parseJUnit } from './junit.js';
import { spawnLogged, startFleetq, untaintNodes, type Child } from './sides.js';
import { decide, formatOneSide, formatReport, mergeRuns, Side, type SideRun } from './verdict.js';

const CLUSTERS = { [Side.Upstream]: 'jobset-e2e-upstream', [Side.Fleetq]: 'jobset-e2e-fleetq' } as const;
/**
 * fleetq's API budget on its side: what the upstream side's two controllers have between them, each with a client
 * of its own: JobSet's manager 500 qps / 500 burst (its configuration's defaults) and kube-controller-manager's Job
 * controller 20 / 30. fleetq's JobSet and Job controllers share one budget per cluster, so a smaller one would hold
 * JobSet's Job creates behind the Job controller's pod creates, which upstream's separate clients do not.
 */
const FLEETQ_BUDGET = { qps: 520, burst: 530 } as const;
const OWNS: readonly Kind[] = ['JobSet', 'Job'];
const MANAGER = { namespace: 'jobset-system', name: 'jobset-controller-manager' } as const;

/**
 * The suite's specs, one focus expression each, with about how long each takes here (mostly its containers'
 * sleeps): the lanes get them longest first, each to the lane with the least so far.
 */
const SPECS: readonly { focus: string; seconds: number }[] = [
  { focus: 'dns hostnames is enabled should enable', seconds: 37 }, // 30 s of sleep after the names resolve
  { focus: 'with custom subdomain', seconds: 35 },
  { focus: 'ttl seconds after finished', seconds: 24 },
  { focus: 'dataset initializer and model initializer', seconds: 15 },
  { focus: 'JobSet is suspended and resumed', seconds: 14 },
  { focus: 'depends on coordinator Job ready', seconds: 12 },
  { focus: 'depends on launcher Job ready', seconds: 12 },
  { focus: 'Server-Side Apply', seconds: 10 }, // a 10 s Consistently
  { focus: 'propagates scheduling gates', seconds: 9 },
  { focus: 'RestartJobSet failure policy', seconds: 7 },
  { focus: 'foreground propagation policy', seconds: 3 },
];

/** Focus expressions dealt to `lanes` lanes, longest first, each to the lane with the least time so far. */
function dealLanes(specs: readonly { focus: string; seconds: number }[], lanes: number): string[][] {
  const out = Array.from({ length: Math.min(lanes, specs.length) }, () => ({ focus: [] as string[], seconds: 0 }));
  for (const s of [...specs].sort((a, b) => b.seconds - a.seconds)) {
    const lane = out.reduce((least, l) => (l.seconds < least.seconds ? l : least));
    lane.focus.push(s.focus);
    lane.seconds += s.seconds;
  }
  return out.map((l) => l.focus);
}

/** Specs that cannot pass in this sandbox on either side, and why. */
const UNRUNNABLE: Readonly<Record<string, string>> = {
  'should create PVCs with multiple retention policies':
    'its pods mount PersistentVolumeClaims that nothing provisions (no StorageClass, no volume plugin on kwok), so the scheduler never places them',
};

type Options = {
  owns: Kind[];
  lanes: string[][];
  sides: Side[];
  reports: string;
  nodes: number;
  timeoutMinutes: number;
  down: boolean;
};

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      focus: { type: 'string', multiple: true },
      lanes: { type: 'string', default: '3' },
      side: { type: 'string', default: 'both' },
      timeout: { type: 'string', default: '8' },
      reports: { type: 'string', default: join(REPO_ROOT, 'test', 'upstream-e2e', '.reports-jobset') },
      nodes: { type: 'string', default: '2' },
      down: { type: 'boolean', default: false },
      owns: { type: 'string' },
    },
    strict: true,
  });
  const side = values.side;
  if (side !== 'both' && side !== Side.Fleetq && side !== Side.Upstream)
    throw new Error(`--side must be both, fleetq or upstream, got ${JSON.stringify(side)}`);
  const positive = (name: string, v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  const lanes = positive('lanes', values.lanes);
  // A focus of one's own has no known durations: dealt as if all took the same.
  const dealt = dealLanes(values.focus?.map((focus) => ({ focus, seconds: 1 })) ?? SPECS, lanes);
  const owns = values.owns === undefined ? [...OWNS] : values.owns.split(',').filter(Boolean);
  const unknown = owns.filter((k) => !isKind(k));
  if (unknown.length > 0) throw new Error(`--owns: unknown kind(s) ${unknown.join(', ')}`);
  return {
    owns: owns.filter(isKind),
    lanes: dealt,
    sides: side === 'both' ? [Side.Upstream, Side.Fleetq] : [side],
    reports: resolve(values.reports),
    nodes: positive('nodes', values.nodes),
    timeoutMinutes: positive('timeout', values.timeout),
    down: values.down,
  };
}

const log = (msg: string): void => console.error(`jobset-e2e: ${msg}`);
const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function buildSuite(): string {
  const started = Date.now();
  const out = execFileSync('bash', [join(REPO_ROOT, 'infra', 'sandbox', 'build-jobset-e2e.sh')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  }).toString();
  const path = out.trim().split('\n').pop() ?? '';
  if (!existsSync(path)) throw new Error(`build-jobset-e2e.sh printed no binary path: ${out}`);
  log(`jobset-e2e.test at ${path} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  return path;
}

function kubeConfigOf(c: ClusterState): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(c.kubeconfig);
  return kc;
}

/** The stand-in for upstream's manager Deployment that the suite's BeforeSuite waits for. */
async function ensureManagerDeployment(c: ClusterState, side: Side): Promise<void> {
  const kc = kubeConfigOf(c);
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const ignoreExists = (err: unknown): void => {
    if ((err as { code?: number }).code !== 409) throw err;
  };
  await core.createNamespace({ body: { metadata: { name: MANAGER.namespace } } }).catch(ignoreExists);
  const labels = { 'control-plane': 'controller-manager' };
  await apps
    .createNamespacedDeployment({
      namespace: MANAGER.namespace,
      body: {
        metadata: { name: MANAGER.name, labels },
        spec: {
          replicas: 0,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'manager', image: 'registry.k8s.io/pause:3.10' }] },
          },
        },
      },
    })
    .catch(ignoreExists);
  const isAvailable = async (): Promise<boolean> =>
    ((await apps.readNamespacedDeployment(MANAGER)).status?.conditions ?? []).some(
      (x) => x.type === 'Available' && x.status === 'True',
    );
  if (side === Side.Fleetq) {
    const now = new Date();
    const d = await apps.readNamespacedDeployment(MANAGER);
    await apps.replaceNamespacedDeploymentStatus({
      ...MANAGER,
      body: {
        ...d,
        status: {
          observedGeneration: d.metadata?.generation,
          conditions: [
            {
              type: 'Available',
              status: 'True',
              reason: 'MinimumReplicasAvailable',
              message: 'Deployment has minimum availability.',
              lastTransitionTime: now,
              lastUpdateTime: now,
            },
          ],
        },
      },
    });
  }
  await waitFor(isAvailable, 60_000, 250, `${MANAGER.namespace}/${MANAGER.name} to be Available on ${c.name}`);
}

/** fleetq's JobSet admission in this process, registered with the fleetq cluster's apiserver by URL. */
async function startAdmission(c: ClusterState, reports: string): Promise<RunningJobSetAdmission> {
  const answers = createWriteStream(join(reports, 'fleetq-admission.log'));
  const admission = await startJobSetAdmission({
    root: sandboxRoot(),
    kc: kubeConfigOf(c),
    // Every answer, one JSON line each: a refused or failed create of a spec is read here.
    log: (message, fields) =>
      answers.write(JSON.stringify({ time: new Date().toISOString(), message, ...fields }) + '\n'),
    probeNamespace: 'default',
  });
  log(`fleetq JobSet admission on 127.0.0.1:${admission.port} for ${c.name}`);
  return {
    ...admission,
    stop: async () => {
      await admission.stop();
      answers.end();
    },
  };
}

/** One jobset-e2e.test process (one lane): its log and JUnit report under the side's report folder. */
async function runLane(side: Side, lane: number, focus: string[], bin: string, c: ClusterState, o: Options) {
  const dir = join(o.reports, side, `lane${lane}`);
  mkdirSync(dir, { recursive: true });
  const junit = join(dir, 'junit.xml');
  const args = [
    ...focus.map((f) => `-ginkgo.focus=${f}`),
    `-ginkgo.skip=${Object.keys(UNRUNNABLE).map(escapeRegex).join('|')}`,
    `-ginkgo.junit-report=${junit}`,
    `-ginkgo.timeout=${o.timeoutMinutes}m`,
    '-ginkgo.grace-period=10s',
    '-ginkgo.no-color',
    '-ginkgo.v',
  ];
  writeFileSync(
    join(dir, 'command.txt'),
    [`KUBECONFIG=${c.kubeconfig}`, bin, ...args].map((a) => `'${a}'`).join(' ') + '\n',
  );
  const started = Date.now();
  const p = spawnLogged(bin, args, join(dir, 'e2e.log'), { ...process.env, KUBECONFIG: c.kubeconfig });
  // Ginkgo stops itself at --ginkgo.timeout; this is for a process that does not.
  const timer = setTimeout(() => p.child.kill('SIGKILL'), (o.timeoutMinutes * 60 + 60) * 1000);
  const code = await p.exited;
  clearTimeout(timer);
  log(
    `${side}/lane${lane}: exited ${code} after ${((Date.now() - started) / 1000).toFixed(0)}s (${join(dir, 'e2e.log')})`,
  );
  if (!existsSync(junit))
    return { error: `jobset-e2e.test exited ${code} without ${junit}; see ${join(dir, 'e2e.log')}` };
  try {
    return { report: parseJUnit(readFileSync(junit, 'utf8')) };
  } catch (err) {
    return { error: `${junit}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

async function main(argv: string[]): Promise<number> {
  const o = parseOptions(argv);
  const started = Date.now();
  rmSync(o.reports, { recursive: true, force: true });
  mkdirSync(o.reports, { recursive: true });
  const bin = buildSuite();
  const clusters = await up({
    clusters: o.sides.map((side) => ({
      name: CLUSTERS[side],
      mode: side === Side.Upstream ? SandboxMode.Upstream : SandboxMode.Fleetq,
    })),
    nodes: o.nodes,
    log,
  });
  const clusterOf = (side: Side): ClusterState => {
    const c = clusters.find((x) => x.name === CLUSTERS[side]);
    if (!c) throw new Error(`the sandbox did not start ${CLUSTERS[side]}`);
    return c;
  };
  log(`clusters up after ${((Date.now() - started) / 1000).toFixed(0)}s`);

  let fleetq: Child | undefined;
  let admission: RunningJobSetAdmission | undefined;
  const pods: PodRunner[] = [];
  try {
    // Independent of one another: the nodes and the stand-in on each side, fleetq's admission, fleetq run. All
    // settle before a failure is thrown, so that `finally` stops whatever did start.
    const setup = await Promise.allSettled([
      ...o.sides.map(async (side) => {
        await untaintNodes(clusterOf(side));
        await ensureManagerDeployment(clusterOf(side), side);
      }),
      ...(o.sides.includes(Side.Fleetq)
        ? [
            startAdmission(clusterOf(Side.Fleetq), o.reports).then((a) => (admission = a)),
            startFleetq(clusterOf(Side.Fleetq), o.reports, o.owns, log, FLEETQ_BUDGET).then((f) => (fleetq = f)),
          ]
        : []),
    ]);
    for (const r of setup) if (r.status === 'rejected') throw r.reason;
    log(`set up after ${((Date.now() - started) / 1000).toFixed(0)}s`);
    for (const side of o.sides) {
      const out = createWriteStream(join(o.reports, `${side}-pods.log`));
      pods.push(runJobSetPods(kubeConfigOf(clusterOf(side)), (m) => out.write(`${new Date().toISOString()} ${m}\n`)));
    }
    const ready = Date.now();
    log(`running ${o.lanes.length} lane(s) per side on ${o.sides.join(' and ')}`);
    const runs = await Promise.all(
      o.sides.map(async (side): Promise<SideRun> => {
        const lanes = await Promise.all(
          o.lanes.map((focus, i) => runLane(side, i + 1, focus, bin, clusterOf(side), o)),
        );
        return mergeRuns(lanes);
      }),
    );
    log(
      `specs took ${((Date.now() - ready) / 1000).toFixed(0)}s; pods ended: ${pods.map((p) => p.ended()).join(' / ')}`,
    );
    const result = (side: Side): SideRun => runs[o.sides.indexOf(side)] ?? { error: 'not run (--side)' };
    const skipped = Object.entries(UNRUNNABLE).map(([name, why]) => `skipped on both sides: ${name}: ${why}`);
    if (o.sides.length === 1) {
      const run = result(o.sides[0]!);
      console.log([formatOneSide(o.sides[0]!, run), '', ...skipped].join('\n'));
      return 'error' in run ||
        run.report.suiteFailures.length > 0 ||
        run.report.specs.some((s) => s.outcome === 'failed')
        ? 1
        : 0;
    }
    const v = decide(result(Side.Upstream), result(Side.Fleetq));
    const text = [formatReport(v), '', ...skipped].join('\n');
    writeFileSync(join(o.reports, 'summary.txt'), text + '\n');
    console.log(text);
    log(`reports in ${o.reports}; took ${((Date.now() - started) / 1000).toFixed(0)}s`);
    return v.problems.length > 0 ? 1 : 0;
  } finally {
    await Promise.all(pods.map((p) => p.stop()));
    if (fleetq) {
      fleetq.child.kill('SIGINT');
      const code = await Promise.race([
        fleetq.exited,
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000)),
      ]);
      if (code === 'timeout') fleetq.child.kill('SIGKILL');
    }
    await admission?.stop();
    if (o.down) await down(clusters.map((c) => c.name));
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`jobset-e2e: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
