// npm run e2e:upstream [-- --focus REGEX ...] [--serial] [--side both|fleetq|upstream] [--upstream rerun|all]
//                        [--reports DIR] [--nodes N] [--lanes N] [--down]
//                        [--owns KIND,...]   (what fleetq owns in e2e-fleetq; default the gate's kinds. Owning
//                                             fewer is how to see the gate fail on purpose.)
//   --focus     instead of the gate's table: one e2e.test per side with these expressions (--serial: [Serial]
//               specs are not skipped)
//   --lanes     e2e.test processes at once per side for the table's non-[Serial] specs (default 3: the table's
//               focus expressions dealt round-robin); its [Serial] specs run after them, alone (gate.ts planPasses)
//   --upstream  with both sides: `rerun` (default) runs fleetq first, alone, then reruns on upstream only the specs
//               that did not pass on fleetq, each by its exact name; `all` runs every spec on both sides at once
//
// Kubernetes' own e2e specs for the kinds fleetq owns (gate.ts), run against two dedicated sandbox clusters:
// e2e-upstream (kube-controller-manager's workload controllers) and e2e-fleetq (those controllers off; `fleetq run`
// owns the kinds for the whole run). Builds or reuses e2e.test (infra/sandbox/build-e2e.sh), removes the kwok taint
// from the clusters' nodes (the e2e framework schedules onto untainted nodes), runs a side as a few e2e.test
// processes at once (lanes, one Ginkgo process each) and then a serial pass. By default fleetq's side runs first and
// has the machine to itself; a dry run of each pass lists the specs it selects, so a spec missing from fleetq's
// report (a pass cut short by its timeout) is known. The upstream cluster starts once a fleetq pass ends with a spec
// that did not pass, and reruns those specs only (gate.ts planRerun); when every spec passes on fleetq it never
// starts. Writes the JUnit reports and logs under --reports, prints one row per spec and one column per side, and
// exits 1 when a spec passes on upstream but not on fleetq (verdict.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { isKind, type Kind } from '../../shared/kube/kinds.js';
import { REPO_ROOT, down, up } from '../../infra/sandbox/sandbox.js';
import { ownedKinds, planPasses, planRerun, SERIAL_SKIP, SKIP, type Pass, type RerunSpec } from './gate.js';
import { parseUpstreamScope } from './ginkgo-options.js';
import { parseJUnit } from './junit.js';
import { printFleetqWarnings, spawnLogged, startFleetq, untaintNodes, type Child } from './sides.js';
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

const CLUSTERS = { [Side.Upstream]: 'e2e-upstream', [Side.Fleetq]: 'e2e-fleetq' } as const;
/** Past this a side is stopped and reported as timed out (Ginkgo's own --ginkgo.timeout is a bit shorter). */
const SIDE_TIMEOUT_MS = 40 * 60_000;

type Options = {
  parallel: Pass[];
  serial: Pass | undefined;
  sides: Side[];
  upstream: UpstreamScope;
  reports: string;
  nodes: number;
  down: boolean;
  owns: Kind[];
};

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      focus: { type: 'string', multiple: true },
      serial: { type: 'boolean', default: false },
      lanes: { type: 'string', default: '3' },
      side: { type: 'string', default: 'both' },
      upstream: { type: 'string', default: UpstreamScope.Rerun },
      reports: { type: 'string', default: join(REPO_ROOT, 'test', 'upstream-e2e', '.reports') },
      nodes: { type: 'string', default: '2' },
      down: { type: 'boolean', default: false },
      owns: { type: 'string' },
    },
    strict: true,
  });
  const side = values.side;
  if (side !== 'both' && side !== Side.Fleetq && side !== Side.Upstream)
    throw new Error(`--side must be both, fleetq or upstream, got ${JSON.stringify(side)}`);
  const nodes = Number(values.nodes);
  if (!Number.isInteger(nodes) || nodes < 1) throw new Error(`--nodes must be a positive integer`);
  const lanes = Number(values.lanes);
  if (!Number.isInteger(lanes) || lanes < 1) throw new Error(`--lanes must be a positive integer`);
  if (values.serial && !values.focus) throw new Error('--serial goes with --focus');
  const plan = values.focus
    ? {
        parallel: [{ name: 'focus', focus: values.focus, skip: values.serial ? SERIAL_SKIP : SKIP }],
        serial: undefined,
      }
    : planPasses(lanes);
  const owns = values.owns === undefined ? ownedKinds() : values.owns.split(',').filter(Boolean);
  const unknown = owns.filter((k) => !isKind(k));
  if (unknown.length > 0) throw new Error(`--owns: unknown kind(s) ${unknown.join(', ')}`);
  return {
    owns: owns.filter(isKind),
    ...plan,
    sides: side === 'both' ? [Side.Upstream, Side.Fleetq] : [side],
    upstream: parseUpstreamScope(values.upstream),
    reports: resolve(values.reports),
    nodes,
    down: values.down,
  };
}

const log = (msg: string): void => console.error(`e2e-gate: ${msg}`);

function buildE2eTest(): string {
  const started = Date.now();
  const out = execFileSync('bash', [join(REPO_ROOT, 'infra', 'sandbox', 'build-e2e.sh')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  }).toString();
  const path = out.trim().split('\n').pop() ?? '';
  if (!existsSync(path)) throw new Error(`build-e2e.sh printed no e2e.test path: ${out}`);
  log(`e2e.test at ${path} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  return path;
}

/** One e2e.test process: its own report directory under the side's, its log, its JUnit report. */
async function runPass(
  side: Side,
  pass: Pass,
  e2eTest: string,
  c: ClusterState,
  kubectl: string,
  o: Options,
  seed: number,
  deadline: number,
): Promise<SideRun> {
  const dir = join(o.reports, side, pass.name);
  mkdirSync(dir, { recursive: true });
  const budgetMs = Math.max(60_000, deadline - Date.now());
  const args = [
    ...passArgs(pass, c, kubectl, dir),
    `--ginkgo.seed=${seed}`,
    `--ginkgo.timeout=${Math.max(1, Math.floor(budgetMs / 60_000) - 2)}m`,
    '--ginkgo.no-color',
    '--ginkgo.v',
  ];
  writeFileSync(join(dir, 'command.txt'), [e2eTest, ...args].map((a) => `'${a}'`).join(' ') + '\n');
  const started = Date.now();
  const p = spawnLogged(e2eTest, args, join(dir, 'e2e.log'), { ...process.env, KUBECONFIG: c.kubeconfig });
  const timer = setTimeout(() => p.child.kill('SIGINT'), budgetMs);
  const code = await p.exited;
  clearTimeout(timer);
  log(
    `${side}/${pass.name}: e2e.test exited ${code} after ${((Date.now() - started) / 1000).toFixed(0)}s (log ${join(dir, 'e2e.log')})`,
  );
  return readReport(dir, `e2e.test exited ${code}`, `; see ${join(dir, 'e2e.log')}`);
}

/** What every e2e.test run of a pass is given: the cluster, the report directory, the pass's focus and skip. */
function passArgs(pass: Pass, c: ClusterState, kubectl: string, dir: string): string[] {
  return [
    `--kubeconfig=${c.kubeconfig}`,
    `--kubectl-path=${kubectl}`,
    `--report-dir=${dir}`,
    `--e2e-output-dir=${dir}`,
    '--provider=skeleton',
    ...pass.focus.map((f) => `--ginkgo.focus=${f}`),
    `--ginkgo.skip=${pass.skip}`,
  ];
}

/** The JUnit report an e2e.test run wrote into `dir`, or why there is none (`exited`: how the run ended). */
function readReport(dir: string, exited: string, hint = ''): SideRun {
  const junit = join(dir, 'junit_01.xml');
  if (!existsSync(junit)) return { error: `${exited} without ${junit}${hint}` };
  try {
    return { report: parseJUnit(readFileSync(junit, 'utf8')) };
  } catch (err) {
    return { error: `${junit}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** A side's passes: the lanes at once, then the serial pass; one run per pass, in that order. */
async function runSide(
  side: Side,
  passes: { parallel: readonly Pass[]; serial: Pass | undefined },
  e2eTest: string,
  c: ClusterState,
  kubectl: string,
  o: Options,
  seed: number,
  onPass?: (pass: Pass, run: SideRun) => void,
): Promise<SideRun[]> {
  const deadline = Date.now() + SIDE_TIMEOUT_MS;
  const run = async (p: Pass): Promise<SideRun> => {
    const r = await runPass(side, p, e2eTest, c, kubectl, o, seed, deadline);
    onPass?.(p, r);
    return r;
  };
  const runs = await Promise.all(passes.parallel.map(run));
  if (passes.serial) runs.push(await run(passes.serial));
  return runs;
}

/**
 * The specs a pass selects (`--ginkgo.dry-run` with its focus and skip): what its report must hold. A pass stopped
 * by its timeout leaves the specs it did not reach out of its report, so this is how they are known.
 */
async function dryRun(pass: Pass, e2eTest: string, c: ClusterState, kubectl: string, o: Options): Promise<SideRun> {
  const dir = join(o.reports, Side.Fleetq, pass.name, 'dry-run');
  mkdirSync(dir, { recursive: true });
  const args = [...passArgs(pass, c, kubectl, dir), '--ginkgo.dry-run', '--ginkgo.no-color'];
  const code = await spawnLogged(e2eTest, args, join(dir, 'e2e.log'), { ...process.env, KUBECONFIG: c.kubeconfig })
    .exited;
  return readReport(dir, `e2e.test --ginkgo.dry-run exited ${code}`);
}

async function main(argv: string[]): Promise<number> {
  const o = parseOptions(argv);
  const started = Date.now();
  const since = (t: number): string => `${((Date.now() - t) / 1000).toFixed(0)}s`;
  rmSync(o.reports, { recursive: true, force: true });
  mkdirSync(o.reports, { recursive: true });

  const e2eTest = buildE2eTest();
  const kubectl = join(dirname(e2eTest), 'kubectl');
  const clusters: ClusterState[] = [];
  /** Starts the sides' clusters (at once) and clears the kwok taint from their nodes. */
  const startClusters = async (sides: readonly Side[]): Promise<void> => {
    const specs = sides.map((side) => ({
      name: CLUSTERS[side],
      mode: side === Side.Upstream ? SandboxMode.Upstream : SandboxMode.Fleetq,
    }));
    const fresh = await up({ clusters: specs, nodes: o.nodes, log });
    clusters.push(...fresh);
    await Promise.all(fresh.map(untaintNodes));
  };
  const clusterOf = (side: Side): ClusterState => {
    const c = clusters.find((x) => x.name === CLUSTERS[side]);
    if (!c) throw new Error(`the sandbox did not start ${CLUSTERS[side]}`);
    return c;
  };
  const seed = Math.floor(Date.now() / 1000) % 100_000;
  const passes = { parallel: o.parallel, serial: o.serial };
  const describe = (p: { parallel: readonly Pass[]; serial: Pass | undefined }): string =>
    `${p.parallel.length} lane(s)${p.serial ? ' then a serial pass' : ''}`;
  const report = (text: string, failed: boolean): number => {
    writeFileSync(join(o.reports, 'summary.txt'), text + '\n');
    console.log(text);
    if (failed) printFleetqWarnings(join(o.reports, 'fleetq.log'));
    log(`reports in ${o.reports}; took ${since(started)}`);
    return failed ? 1 : 0;
  };

  let fleetq: Child | undefined;
  // Upstream's cluster when it starts only once a fleetq pass leaves something to rerun.
  let upstreamStart: Promise<void> | undefined;
  const stopAll = (): void => {
    fleetq?.child.kill('SIGINT');
  };
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);
  try {
    if (o.sides.length === 1 || o.upstream === UpstreamScope.All) {
      // Every side runs every spec, all at once.
      await startClusters(o.sides);
      if (o.sides.includes(Side.Fleetq)) fleetq = await startFleetq(clusterOf(Side.Fleetq), o.reports, o.owns, log);
      log(`running ${describe(passes)} on ${o.sides.join(' and ')} (seed ${seed})`);
      const runs = await Promise.all(
        o.sides.map(async (side) => mergeRuns(await runSide(side, passes, e2eTest, clusterOf(side), kubectl, o, seed))),
      );
      const result = (side: Side): SideRun => runs[o.sides.indexOf(side)] ?? { error: 'not run (--side)' };
      if (o.sides.length === 1) {
        const only = o.sides[0] as Side;
        const run = result(only);
        console.log(formatOneSide(only, run));
        return 'error' in run ||
          run.report.suiteFailures.length > 0 ||
          run.report.specs.some((s) => s.outcome === 'failed')
          ? 1
          : 0;
      }
      const v = decide(result(Side.Upstream), result(Side.Fleetq));
      return report(formatReport(v), v.problems.length > 0);
    }

    // fleetq first, alone; then upstream reruns what did not pass on fleetq. Upstream's cluster starts once a fleetq
    // pass ends with something to rerun (never, when every spec passes there).
    await startClusters([Side.Fleetq]);
    fleetq = await startFleetq(clusterOf(Side.Fleetq), o.reports, o.owns, log);
    log(`fleetq set up after ${since(started)}`);
    const startUpstream = (): Promise<void> => {
      if (!upstreamStart) {
        log('a fleetq pass left specs to rerun: starting the upstream cluster');
        upstreamStart = startClusters([Side.Upstream]);
        upstreamStart.catch(() => undefined); // awaited, and thrown, where the rerun needs it
      }
      return upstreamStart;
    };
    const all = [...o.parallel, ...(o.serial ? [o.serial] : [])];
    const selected = Promise.all(all.map((p) => dryRun(p, e2eTest, clusterOf(Side.Fleetq), kubectl, o)));
    const selectedBy = (p: Pass, sel: readonly SideRun[]): SideRun => sel[all.indexOf(p)] ?? { error: 'no dry run' };
    const ready = Date.now();
    log(`running ${describe(passes)} on fleetq (seed ${seed}); upstream then reruns what did not pass there`);
    const fleetqRuns = await runSide(
      Side.Fleetq,
      passes,
      e2eTest,
      clusterOf(Side.Fleetq),
      kubectl,
      o,
      seed,
      (p, run) => {
        void selected.then((sel) => {
          if (toRerun(run, selectedBy(p, sel)).length > 0) void startUpstream();
        });
      },
    );
    log(`fleetq's specs took ${since(ready)}`);
    const sel = await selected;
    const seconds = new Map(
      fleetqRuns.flatMap((r) => ('report' in r ? r.report.specs : [])).map((s) => [s.name, s.seconds]),
    );
    const rerunOf = (p: Pass): RerunSpec[] =>
      toRerun(fleetqRuns[all.indexOf(p)] ?? { error: 'not run' }, selectedBy(p, sel)).map((name) => ({
        name,
        seconds: seconds.get(name) ?? 1,
      }));
    // A spec two passes selected is rerun once, in the first of them.
    const byName = new Map<string, RerunSpec>(o.parallel.flatMap(rerunOf).map((s) => [s.name, s]));
    const fromLanes = [...byName.values()];
    const fromSerial = o.serial ? rerunOf(o.serial).filter((s) => !byName.has(s.name)) : [];
    const asked = [...fromLanes, ...fromSerial].map((s) => s.name);
    let upstream: SideRun | undefined;
    if (asked.length > 0) {
      await startUpstream();
      const rerun = planRerun(fromLanes, fromSerial, o.parallel.length, o.parallel[0]?.skip, o.serial?.skip);
      const rerunAt = Date.now();
      log(`upstream reruns the ${asked.length} spec(s) that did not pass on fleetq: ${describe(rerun)}`);
      upstream = mergeRuns(await runSide(Side.Upstream, rerun, e2eTest, clusterOf(Side.Upstream), kubectl, o, seed));
      log(`upstream's rerun took ${since(rerunAt)}`);
    } else log('every spec passed, or skipped itself, on fleetq: upstream runs nothing');
    const v = decideRerun(mergeRuns(fleetqRuns), mergeRuns(sel), asked, upstream);
    return report(formatReport(v), v.problems.length > 0);
  } finally {
    await upstreamStart?.catch(() => undefined);
    if (fleetq) {
      fleetq.child.kill('SIGINT');
      const code = await Promise.race([
        fleetq.exited,
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000)),
      ]);
      if (code === 'timeout') fleetq.child.kill('SIGKILL');
    }
    if (o.down) await down(o.sides.map((side) => CLUSTERS[side]));
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`e2e-gate: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
