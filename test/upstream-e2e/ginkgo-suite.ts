// What the runners of a project's own Ginkgo e2e suite share (jobset.ts: JobSet's test/e2e; lws.ts:
// LeaderWorkerSet's): their options, the build of the suite's test binary, two dedicated sandbox clusters (one in
// upstream mode, one in fleetq mode with `fleetq run` owning the suite's kinds), the lanes (several suite processes
// at once per side, the specs dealt longest first), a stand-in for a manager Deployment a suite waits for, and the
// report with the upstream gate's rule (verdict.ts): a spec that passes on upstream and not on fleetq fails the
// run (exit 1). By default fleetq's side runs first, alone; a dry run of each lane lists the specs it selects; the
// upstream side starts once a fleetq lane ends with a spec that did not pass (failed, or missing from its report)
// and reruns only those, each focused by its exact name. `--upstream all` runs both sides fully, at once. A runner
// gives its suite's specs, those it cannot run and why, and what each side needs besides. Its options and lanes are
// ginkgo-options.ts's.
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
  dealLanes,
  escapeRegex,
  junitNameFocus,
  parseSuiteOptions,
  type SuiteOptions,
  type TimedSpec,
} from './ginkgo-options.js';
import { parseJUnit } from './junit.js';
import { printFleetqWarnings, spawnLogged, startFleetq, untaintNodes, type ApiBudget, type Child } from './sides.js';
import {
  decide,
  decideRerun,
  formatOneSide,
  formatReport,
  mergeRuns,
  Side,
  toRerun,
  UpstreamScope,
  type SideRun,
} from './verdict.js';

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

/** A side's lanes (`lanes`: each lane's focus expressions); `onLane` hears of each lane as it ends. */
async function runSide(
  config: SuiteConfig,
  o: SuiteOptions,
  side: Side,
  bin: string,
  c: ClusterState,
  log: (msg: string) => void,
  lanes: readonly (readonly string[])[] = o.lanes,
  onLane?: (index: number, run: SideRun) => void,
): Promise<SideRun[]> {
  const done: Promise<SideRun>[] = [];
  for (const [i, focus] of lanes.entries()) {
    const lane = runLane(config, o, side, i + 1, focus, bin, c, log);
    done.push(
      lane.done.then((run) => {
        onLane?.(i, run);
        return run;
      }),
    );
    if (config.oneBeforeSuiteAtATime === true) await lane.beforeSuiteEnded;
  }
  return Promise.all(done);
}

/**
 * The specs a lane selects (`-ginkgo.dry-run`, the lane's focus and skip): what its report must hold. A lane stopped
 * by its timeout leaves the specs it did not reach out of its report, so this is how they are known.
 */
async function dryRun(
  config: SuiteConfig,
  o: SuiteOptions,
  lane: number,
  focus: readonly string[],
  bin: string,
  c: ClusterState,
): Promise<SideRun> {
  const dir = join(o.reports, Side.Fleetq, `lane${lane}`);
  mkdirSync(dir, { recursive: true });
  const junit = join(dir, 'dry-run.xml');
  const skip = Object.keys(config.unrunnable).map(escapeRegex);
  const args = [
    ...focus.map((f) => `-ginkgo.focus=${f}`),
    ...(skip.length > 0 ? [`-ginkgo.skip=${skip.join('|')}`] : []),
    `-ginkgo.junit-report=${junit}`,
    '-ginkgo.dry-run',
    '-ginkgo.no-color',
  ];
  const code = await spawnLogged(bin, args, join(dir, 'dry-run.log'), { ...process.env, KUBECONFIG: c.kubeconfig })
    .exited;
  if (!existsSync(junit)) return { error: `${config.name}.test -ginkgo.dry-run exited ${code} without ${junit}` };
  try {
    return { report: parseJUnit(readFileSync(junit, 'utf8')) };
  } catch (err) {
    return { error: `${junit}: ${err instanceof Error ? err.message : String(err)}` };
  }
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

/** What a run started, stopped at its end in this order: what the sides started, fleetq run, fleetq's admission. */
type Started = {
  readonly clusters: ClusterState[];
  readonly bySide: Stoppable[];
  fleetq?: Child;
  admission?: Stoppable;
};

/**
 * Starts `sides`' clusters (at once) and what each needs: its nodes untainted, the manager stand-in, the suite's own
 * setup; on fleetq's side also fleetq's admission and `fleetq run`. Records in `st` whatever started, failed or not.
 */
async function startSides(
  config: SuiteConfig,
  o: SuiteOptions,
  sides: readonly Side[],
  st: Started,
  log: (msg: string) => void,
): Promise<void> {
  const clusters = await up({
    clusters: sides.map((side) =>
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
  st.clusters.push(...clusters);
  const clusterOf = (side: Side): ClusterState => clusterOfSide(config, st, side);
  const contextOf = (side: Side): SideContext => ({
    side,
    cluster: clusterOf(side),
    kc: kubeConfigOf(clusterOf(side)),
    reports: o.reports,
    log,
  });
  // Independent of one another: each side's nodes, stand-in and own needs; fleetq's admission; fleetq run. All
  // settle before a failure is thrown, so that the run's end stops whatever did start.
  const setup = await Promise.allSettled([
    ...sides.map(async (side) => {
      await untaintNodes(clusterOf(side));
      if (config.managerStandIn) await ensureManagerStandIn(clusterOf(side), side, config.managerStandIn);
      const s = await config.sideSetup?.(contextOf(side));
      if (s) st.bySide.push(s);
    }),
    ...(sides.includes(Side.Fleetq)
      ? [
          config.fleetqAdmission?.(contextOf(Side.Fleetq)).then((a) => (st.admission = a)),
          startFleetq(clusterOf(Side.Fleetq), o.reports, o.owns.filter(isKind), log, config.fleetqBudget).then(
            (f) => (st.fleetq = f),
          ),
        ]
      : []),
  ]);
  for (const r of setup) if (r.status === 'rejected') throw r.reason;
}

function clusterOfSide(config: SuiteConfig, st: Started, side: Side): ClusterState {
  const c = st.clusters.find((x) => x.name === config.clusters[side]);
  if (!c) throw new Error(`the sandbox did not start ${config.clusters[side]}`);
  return c;
}

/** The whole run: build, clusters, setup, lanes, report. Returns the exit code. */
export async function runSuite(config: SuiteConfig, argv: string[]): Promise<number> {
  const log = (msg: string): void => console.error(`${config.name}: ${msg}`);
  const o = parseSuiteOptions(argv, config);
  const started = Date.now();
  const since = (t: number): string => `${((Date.now() - t) / 1000).toFixed(0)}s`;
  rmSync(o.reports, { recursive: true, force: true });
  mkdirSync(o.reports, { recursive: true });
  const bin = buildSuite(config, log);
  const st: Started = { clusters: [], bySide: [] };
  // Upstream's side when it starts only once a fleetq lane leaves something to rerun.
  let upstreamStart: Promise<void> | undefined;
  const skipped = Object.entries(config.unrunnable).map(([name, why]) => `skipped on both sides: ${name}: ${why}`);
  const report = (text: string, failed: boolean, fleetqWarnings = failed): number => {
    writeFileSync(join(o.reports, 'summary.txt'), text + '\n');
    console.log(text);
    if (fleetqWarnings) printFleetqWarnings(join(o.reports, 'fleetq.log'));
    log(`reports in ${o.reports}; took ${since(started)}`);
    return failed ? 1 : 0;
  };
  const summaries = (): string => st.bySide.flatMap((s) => (s.summary ? [`; ${s.summary()}`] : [])).join('');
  try {
    if (o.sides.length === 1 || o.upstream === UpstreamScope.All) {
      // Every side runs every spec, all at once.
      await startSides(config, o, o.sides, st, log);
      log(`set up after ${since(started)}`);
      const ready = Date.now();
      log(`running ${o.lanes.length} lane(s) per side on ${o.sides.join(' and ')}`);
      const runs = await Promise.all(
        o.sides.map(async (side) =>
          mergeRuns(await runSide(config, o, side, bin, clusterOfSide(config, st, side), log)),
        ),
      );
      log(`specs took ${since(ready)}${summaries()}`);
      const result = (side: Side): SideRun => runs[o.sides.indexOf(side)] ?? { error: 'not run (--side)' };
      if (o.sides.length === 1) {
        const run = result(o.sides[0]!);
        const failed =
          'error' in run || run.report.suiteFailures.length > 0 || run.report.specs.some((s) => s.outcome === 'failed');
        return report([formatOneSide(o.sides[0]!, run), '', ...skipped].join('\n'), failed, false);
      }
      const v = decide(result(Side.Upstream), result(Side.Fleetq));
      return report([formatReport(v), '', ...skipped].join('\n'), v.problems.length > 0);
    }

    // fleetq first, alone; then upstream reruns what did not pass on fleetq. Upstream's cluster starts once a fleetq
    // lane ends with something to rerun (never, when every spec passes there).
    await startSides(config, o, [Side.Fleetq], st, log);
    log(`fleetq set up after ${since(started)}`);
    const fleetqCluster = clusterOfSide(config, st, Side.Fleetq);
    const startUpstream = (): Promise<void> => {
      if (!upstreamStart) {
        log('a fleetq lane left specs to rerun: starting the upstream side');
        upstreamStart = startSides(config, o, [Side.Upstream], st, log);
        upstreamStart.catch(() => undefined); // awaited, and thrown, where the rerun needs it
      }
      return upstreamStart;
    };
    const selected = Promise.all(o.lanes.map((focus, i) => dryRun(config, o, i + 1, focus, bin, fleetqCluster)));
    const ready = Date.now();
    log(`running ${o.lanes.length} lane(s) on fleetq; upstream then reruns what did not pass there`);
    const fleetqRuns = await runSide(config, o, Side.Fleetq, bin, fleetqCluster, log, o.lanes, (i, run) => {
      void selected.then((sel) => {
        if (toRerun(run, sel[i]!).length > 0) void startUpstream();
      });
    });
    log(`fleetq's specs took ${since(ready)}`);
    const sel = await selected;
    const asked = [...new Set(fleetqRuns.flatMap((run, i) => toRerun(run, sel[i]!)))];
    let upstream: SideRun | undefined;
    if (asked.length > 0) {
      await startUpstream();
      const rerunAt = Date.now();
      const seconds = new Map(
        fleetqRuns.flatMap((r) => ('report' in r ? r.report.specs : [])).map((s) => [s.name, s.seconds]),
      );
      const lanes = dealLanes(
        asked.map((name) => ({ focus: junitNameFocus(name), seconds: seconds.get(name) ?? 1 })),
        o.lanes.length,
      );
      log(`upstream reruns the ${asked.length} spec(s) that did not pass on fleetq, in ${lanes.length} lane(s)`);
      upstream = mergeRuns(
        await runSide(config, o, Side.Upstream, bin, clusterOfSide(config, st, Side.Upstream), log, lanes),
      );
      log(`upstream's rerun took ${since(rerunAt)}`);
    } else log('every spec passed, or skipped itself, on fleetq: upstream runs nothing');
    if (summaries()) log(summaries().slice(2));
    const v = decideRerun(mergeRuns(fleetqRuns), mergeRuns(sel), asked, upstream);
    return report([formatReport(v), '', ...skipped].join('\n'), v.problems.length > 0);
  } finally {
    await upstreamStart?.catch(() => undefined);
    for (const s of st.bySide) await s.stop();
    if (st.fleetq) await stopFleetq(st.fleetq);
    await st.admission?.stop();
    if (o.down) await down(o.sides.map((side) => config.clusters[side]));
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
