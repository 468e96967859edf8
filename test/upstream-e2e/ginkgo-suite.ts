// What the runners of a project's own Ginkgo e2e suite share (jobset.ts: JobSet's test/e2e; lws.ts:
// LeaderWorkerSet's): their options, the build of the suite's test binary, two dedicated sandbox clusters (one in
// upstream mode, one in fleetq mode with `fleetq run` owning the suite's kinds), the lanes (several suite processes
// at once per side, the specs dealt longest first), a stand-in for a manager Deployment a suite waits for, and the
// report with the upstream gate's rule (verdict.ts): a spec that passes on upstream and not on fleetq fails the
// run (exit 1). A runner gives its suite's specs, those it cannot run and why, and what each side needs besides.
// Its options and lanes are ginkgo-options.ts's.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import type { SandboxKindOption } from '../../infra/sandbox/kind-options.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { REPO_ROOT, down, up } from '../../infra/sandbox/sandbox.js';
import { isKind } from '../../shared/kube/kinds.js';
import {
  BEFORE_SUITE_ENDED,
  escapeRegex,
  parseSuiteOptions,
  type SuiteOptions,
  type TimedSpec,
} from './ginkgo-options.js';
import { parseJUnit } from './junit.js';
import { printFleetqWarnings, spawnLogged, startFleetq, untaintNodes, type ApiBudget, type Child } from './sides.js';
import { decide, formatOneSide, formatReport, mergeRuns, Side, type SideRun } from './verdict.js';

/** Something a side started that the run stops at its end; `summary` is logged once the specs are done. */
export type Stoppable = { readonly stop: () => Promise<void>; readonly summary?: () => string };

export type SideContext = {
  readonly side: Side;
  readonly cluster: ClusterState;
  readonly kc: KubeConfig;
  readonly reports: string;
  readonly log: (msg: string) => void;
};

export type SuiteConfig = {
  /** The binary's name without `.test`, and the prefix of every log line: `jobset-e2e`. */
  readonly name: string;
  /** The script that builds the binary (or finds it cached) and prints its path on its last line. */
  readonly buildScript: string;
  readonly clusters: Readonly<Record<Side, string>>;
  readonly specs: readonly TimedSpec[];
  /** Specs that cannot pass in this sandbox on either side (a part of their name → why): skipped on both. */
  readonly unrunnable: Readonly<Record<string, string>>;
  readonly reports: string;
  /** What fleetq owns on its side unless --owns says otherwise. */
  readonly owns: readonly string[];
  /** fleetq's API budget on its side (what the upstream side's controllers have between them). */
  readonly fleetqBudget: ApiBudget;
  readonly lanes?: number;
  readonly timeoutMinutes?: number;
  /** The sandbox's kinds for the two clusters (default: the registered descriptors'). */
  readonly kinds?: readonly SandboxKindOption[];
  /** Add-ons the upstream-side cluster runs on request (kind-options.ts ADD_ONS_ON_REQUEST). */
  readonly upstreamAddOns?: readonly string[];
  /** A Deployment the suite waits to be Available (its manager, a host process here): a stand-in is made. */
  readonly managerStandIn?: { readonly namespace: string; readonly name: string };
  /** What a side needs once its nodes are untainted and the stand-in is up (JobSet: its pods' programs run). */
  readonly sideSetup?: (ctx: SideContext) => Promise<Stoppable | undefined>;
  /** fleetq's admission for the suite's kinds, serving the fleetq-side cluster. */
  readonly fleetqAdmission?: (ctx: SideContext) => Promise<Stoppable>;
  /**
   * The suite's BeforeSuite creates an object of a fixed name and deletes it: on one cluster, a lane starts only
   * once the one before has passed its BeforeSuite (or ended).
   */
  readonly oneBeforeSuiteAtATime?: boolean;
};

export function kubeConfigOf(c: ClusterState): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(c.kubeconfig);
  return kc;
}

function buildSuite(config: SuiteConfig, log: (msg: string) => void): string {
  const started = Date.now();
  const out = execFileSync('bash', [config.buildScript], { stdio: ['ignore', 'pipe', 'inherit'] }).toString();
  const path = out.trim().split('\n').pop() ?? '';
  if (!existsSync(path)) throw new Error(`${config.buildScript} printed no binary path: ${out}`);
  log(`${config.name}.test at ${path} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  return path;
}

/**
 * The stand-in for a manager Deployment the suite waits to be Available, with 0 replicas: kube-controller-manager
 * reports it Available on upstream; on fleetq, where no Deployment controller runs, this writes that status.
 */
export async function ensureManagerStandIn(
  c: ClusterState,
  side: Side,
  manager: { readonly namespace: string; readonly name: string },
): Promise<void> {
  const kc = kubeConfigOf(c);
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const ref = { namespace: manager.namespace, name: manager.name };
  const ignoreExists = (err: unknown): void => {
    if ((err as { code?: number }).code !== 409) throw err;
  };
  await core.createNamespace({ body: { metadata: { name: ref.namespace } } }).catch(ignoreExists);
  const labels = { 'control-plane': 'controller-manager' };
  await apps
    .createNamespacedDeployment({
      namespace: ref.namespace,
      body: {
        metadata: { name: ref.name, labels },
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
    ((await apps.readNamespacedDeployment(ref)).status?.conditions ?? []).some(
      (x) => x.type === 'Available' && x.status === 'True',
    );
  if (side === Side.Fleetq) {
    const now = new Date();
    const d = await apps.readNamespacedDeployment(ref);
    await apps.replaceNamespacedDeploymentStatus({
      ...ref,
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
  await waitFor(isAvailable, 60_000, 250, `${ref.namespace}/${ref.name} to be Available on ${c.name}`);
}

type Lane = { readonly done: Promise<SideRun>; readonly beforeSuiteEnded: Promise<void> };

/** One suite process (one lane): its log and JUnit report under the side's report folder. */
function runLane(
  config: SuiteConfig,
  o: SuiteOptions,
  side: Side,
  lane: number,
  focus: readonly string[],
  bin: string,
  c: ClusterState,
  log: (msg: string) => void,
): Lane {
  const dir = join(o.reports, side, `lane${lane}`);
  mkdirSync(dir, { recursive: true });
  const junit = join(dir, 'junit.xml');
  const logFile = join(dir, 'e2e.log');
  const skip = Object.keys(config.unrunnable).map(escapeRegex);
  const args = [
    ...focus.map((f) => `-ginkgo.focus=${f}`),
    ...(skip.length > 0 ? [`-ginkgo.skip=${skip.join('|')}`] : []),
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
  const p = spawnLogged(bin, args, logFile, { ...process.env, KUBECONFIG: c.kubeconfig });
  let exited = false;
  // Ginkgo stops itself at --ginkgo.timeout; this is for a process that does not.
  const timer = setTimeout(() => p.child.kill('SIGKILL'), (o.timeoutMinutes * 60 + 60) * 1000);
  const done = p.exited.then((code): SideRun => {
    exited = true;
    clearTimeout(timer);
    log(`${side}/lane${lane}: exited ${code} after ${((Date.now() - started) / 1000).toFixed(0)}s (${logFile})`);
    if (!existsSync(junit)) return { error: `${config.name}.test exited ${code} without ${junit}; see ${logFile}` };
    try {
      return { report: parseJUnit(readFileSync(junit, 'utf8')) };
    } catch (err) {
      return { error: `${junit}: ${err instanceof Error ? err.message : String(err)}` };
    }
  });
  const beforeSuiteEnded = waitFor(
    async () => exited || (existsSync(logFile) && BEFORE_SUITE_ENDED.test(readFileSync(logFile, 'utf8'))),
    3 * 60_000,
    100,
    `${side}/lane${lane}'s BeforeSuite to end`,
  ).catch((err: unknown) => log(err instanceof Error ? err.message : String(err)));
  return { done, beforeSuiteEnded };
}

async function runSide(
  config: SuiteConfig,
  o: SuiteOptions,
  side: Side,
  bin: string,
  c: ClusterState,
  log: (msg: string) => void,
): Promise<SideRun> {
  const lanes: Promise<SideRun>[] = [];
  for (const [i, focus] of o.lanes.entries()) {
    const lane = runLane(config, o, side, i + 1, focus, bin, c, log);
    lanes.push(lane.done);
    if (config.oneBeforeSuiteAtATime === true) await lane.beforeSuiteEnded;
  }
  return mergeRuns(await Promise.all(lanes));
}

/** Stops `fleetq run`: SIGINT, and SIGKILL when it has not exited 30 s later. */
async function stopFleetq(fleetq: Child): Promise<void> {
  fleetq.child.kill('SIGINT');
  const code = await Promise.race([
    fleetq.exited,
    new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000)),
  ]);
  if (code === 'timeout') fleetq.child.kill('SIGKILL');
}

/** The whole run: build, clusters, setup, lanes on both sides at once, report. Returns the exit code. */
export async function runSuite(config: SuiteConfig, argv: string[]): Promise<number> {
  const log = (msg: string): void => console.error(`${config.name}: ${msg}`);
  const o = parseSuiteOptions(argv, config);
  const started = Date.now();
  rmSync(o.reports, { recursive: true, force: true });
  mkdirSync(o.reports, { recursive: true });
  const bin = buildSuite(config, log);
  const clusters = await up({
    clusters: o.sides.map((side) =>
      side === Side.Upstream
        ? {
            name: config.clusters[side],
            mode: SandboxMode.Upstream,
            ...(config.upstreamAddOns && { addOns: config.upstreamAddOns }),
          }
        : { name: config.clusters[side], mode: SandboxMode.Fleetq },
    ),
    nodes: o.nodes,
    ...(config.kinds && { kinds: config.kinds }),
    log,
  });
  const clusterOf = (side: Side): ClusterState => {
    const c = clusters.find((x) => x.name === config.clusters[side]);
    if (!c) throw new Error(`the sandbox did not start ${config.clusters[side]}`);
    return c;
  };
  const contextOf = (side: Side): SideContext => ({
    side,
    cluster: clusterOf(side),
    kc: kubeConfigOf(clusterOf(side)),
    reports: o.reports,
    log,
  });
  log(`clusters up after ${((Date.now() - started) / 1000).toFixed(0)}s`);

  // Stopped at the end in this order: what the sides started (JobSet's pod runner), fleetq run, fleetq's admission.
  const bySide: Stoppable[] = [];
  let fleetq: Child | undefined;
  let admission: Stoppable | undefined;
  try {
    // Independent of one another: each side's nodes, stand-in and own needs; fleetq's admission; fleetq run. All
    // settle before a failure is thrown, so that `finally` stops whatever did start.
    const setup = await Promise.allSettled([
      ...o.sides.map(async (side) => {
        await untaintNodes(clusterOf(side));
        if (config.managerStandIn) await ensureManagerStandIn(clusterOf(side), side, config.managerStandIn);
        const s = await config.sideSetup?.(contextOf(side));
        if (s) bySide.push(s);
      }),
      ...(o.sides.includes(Side.Fleetq)
        ? [
            config.fleetqAdmission?.(contextOf(Side.Fleetq)).then((a) => (admission = a)),
            startFleetq(clusterOf(Side.Fleetq), o.reports, o.owns.filter(isKind), log, config.fleetqBudget).then(
              (f) => (fleetq = f),
            ),
          ]
        : []),
    ]);
    for (const r of setup) if (r.status === 'rejected') throw r.reason;
    log(`set up after ${((Date.now() - started) / 1000).toFixed(0)}s`);
    const ready = Date.now();
    log(`running ${o.lanes.length} lane(s) per side on ${o.sides.join(' and ')}`);
    const runs = await Promise.all(o.sides.map((side) => runSide(config, o, side, bin, clusterOf(side), log)));
    const summaries = bySide.flatMap((s) => (s.summary ? [s.summary()] : []));
    log(`specs took ${((Date.now() - ready) / 1000).toFixed(0)}s${summaries.map((s) => `; ${s}`).join('')}`);
    const result = (side: Side): SideRun => runs[o.sides.indexOf(side)] ?? { error: 'not run (--side)' };
    const skipped = Object.entries(config.unrunnable).map(([name, why]) => `skipped on both sides: ${name}: ${why}`);
    if (o.sides.length === 1) {
      const run = result(o.sides[0]!);
      const text = [formatOneSide(o.sides[0]!, run), '', ...skipped].join('\n');
      writeFileSync(join(o.reports, 'summary.txt'), text + '\n');
      console.log(text);
      log(`reports in ${o.reports}; took ${((Date.now() - started) / 1000).toFixed(0)}s`);
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
    if (v.problems.length > 0) printFleetqWarnings(join(o.reports, 'fleetq.log'));
    log(`reports in ${o.reports}; took ${((Date.now() - started) / 1000).toFixed(0)}s`);
    return v.problems.length > 0 ? 1 : 0;
  } finally {
    for (const s of bySide) await s.stop();
    if (fleetq) await stopFleetq(fleetq);
    await admission?.stop();
    if (o.down) await down(clusters.map((c) => c.name));
  }
}

/** A runner's entry point: runs the suite and exits with its code. */
export function main(config: SuiteConfig): void {
  runSuite(config, process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`${config.name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exit(1);
    },
  );
}

/** The repository's path of a build script under infra/sandbox/. */
export const sandboxScript = (name: string): string => join(REPO_ROOT, 'infra', 'sandbox', name);
