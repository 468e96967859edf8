// npm run e2e:upstream [-- --focus REGEX ...] [--serial] [--side both|fleetq|upstream] [--reports DIR] [--nodes N]
//                        [--lanes N] [--down]
//                        [--owns KIND,...]   (what fleetq owns in e2e-fleetq; default the gate's kinds. Owning
//                                             fewer is how to see the gate fail on purpose.)
//   --focus   instead of the gate's table: one e2e.test per side with these expressions (--serial: [Serial]
//             specs are not skipped)
//   --lanes   e2e.test processes at once per side for the table's non-[Serial] specs (default 3: the table's
//             focus expressions dealt round-robin, ~11 min a side on 2 cores); its [Serial] specs run after
//             them, alone (gate.ts planPasses)
//
// Kubernetes' own e2e specs for the kinds fleetq owns (gate.ts), run side by side against two dedicated
// sandbox clusters: e2e-upstream (kube-controller-manager's workload controllers) and e2e-fleetq (those
// controllers off; `fleetq run` owns the kinds for the whole run). Builds or reuses e2e.test
// (infra/sandbox/build-e2e.sh), removes the kwok taint from both clusters' nodes (the e2e framework
// schedules onto untainted nodes), runs the sides in parallel, each as a few e2e.test processes at once (lanes,
// one Ginkgo process each) and then a serial pass, writes the JUnit reports and logs under --reports, prints one row per spec and one column per side,
// and exits 1 when a spec passes on upstream but not on fleetq (verdict.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { isKind, type Kind } from '../../shared/kube/kinds.js';
import { REPO_ROOT, down, up } from '../../infra/sandbox/sandbox.js';
import { ownedKinds, planPasses, SERIAL_SKIP, SKIP, type Pass } from './gate.js';
import { parseJUnit } from './junit.js';
import { printFleetqWarnings, spawnLogged, startFleetq, untaintNodes, type Child } from './sides.js';
import { decide, formatOneSide, formatReport, mergeRuns, Side, type SideRun } from './verdict.js';

const CLUSTERS = { [Side.Upstream]: 'e2e-upstream', [Side.Fleetq]: 'e2e-fleetq' } as const;
/** Past this a side is stopped and reported as timed out (Ginkgo's own --ginkgo.timeout is a bit shorter). */
const SIDE_TIMEOUT_MS = 40 * 60_000;

type Options = {
  parallel: Pass[];
  serial: Pass | undefined;
  sides: Side[];
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
    `--kubeconfig=${c.kubeconfig}`,
    `--kubectl-path=${kubectl}`,
    `--report-dir=${dir}`,
    `--e2e-output-dir=${dir}`,
    '--provider=skeleton',
    ...pass.focus.map((f) => `--ginkgo.focus=${f}`),
    `--ginkgo.skip=${pass.skip}`,
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
  const junit = join(dir, 'junit_01.xml');
  if (!existsSync(junit)) return { error: `e2e.test exited ${code} without ${junit}; see ${join(dir, 'e2e.log')}` };
  try {
    return { report: parseJUnit(readFileSync(junit, 'utf8')) };
  } catch (err) {
    return { error: `${junit}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** A side: its lanes at once, then its serial pass; one report of every pass's specs (or the first error). */
async function runSide(
  side: Side,
  e2eTest: string,
  c: ClusterState,
  kubectl: string,
  o: Options,
  seed: number,
): Promise<SideRun> {
  const deadline = Date.now() + SIDE_TIMEOUT_MS;
  const runs = await Promise.all(o.parallel.map((p) => runPass(side, p, e2eTest, c, kubectl, o, seed, deadline)));
  if (o.serial) runs.push(await runPass(side, o.serial, e2eTest, c, kubectl, o, seed, deadline));
  return mergeRuns(runs);
}

async function main(argv: string[]): Promise<number> {
  const o = parseOptions(argv);
  const started = Date.now();
  rmSync(o.reports, { recursive: true, force: true });
  mkdirSync(o.reports, { recursive: true });

  const e2eTest = buildE2eTest();
  const specs = o.sides.map((side) => ({
    name: CLUSTERS[side],
    mode: side === Side.Upstream ? SandboxMode.Upstream : SandboxMode.Fleetq,
  }));
  const clusters = await up({ clusters: specs, nodes: o.nodes, log });
  const clusterOf = (side: Side): ClusterState => {
    const c = clusters.find((x) => x.name === CLUSTERS[side]);
    if (!c) throw new Error(`the sandbox did not start ${CLUSTERS[side]}`);
    return c;
  };
  await Promise.all(clusters.map(untaintNodes));
  const kubectl = join(dirname(e2eTest), 'kubectl');

  let fleetq: Child | undefined;
  const stopAll = (): void => {
    fleetq?.child.kill('SIGINT');
  };
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);
  try {
    if (o.sides.includes(Side.Fleetq)) fleetq = await startFleetq(clusterOf(Side.Fleetq), o.reports, o.owns, log);
    const seed = Math.floor(Date.now() / 1000) % 100_000;
    log(
      `running ${o.parallel.length} lane(s)${o.serial ? ' then a serial pass' : ''} on ${o.sides.join(' and ')} (seed ${seed})`,
    );
    const runs = await Promise.all(o.sides.map((side) => runSide(side, e2eTest, clusterOf(side), kubectl, o, seed)));
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
    const text = formatReport(v);
    writeFileSync(join(o.reports, 'summary.txt'), text + '\n');
    console.log(text);
    if (v.problems.length > 0) printFleetqWarnings(join(o.reports, 'fleetq.log'));
    log(`reports in ${o.reports}; took ${((Date.now() - started) / 1000).toFixed(0)}s`);
    return v.problems.length > 0 ? 1 : 0;
  } finally {
    if (fleetq) {
      fleetq.child.kill('SIGINT');
      const code = await Promise.race([
        fleetq.exited,
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000)),
      ]);
      if (code === 'timeout') fleetq.child.kill('SIGKILL');
    }
    if (o.down) await down(clusters.map((c) => c.name));
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`e2e-gate: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
