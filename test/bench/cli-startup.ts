// Start-up time of the `fleetq` command: the median (and min, max) wall time of N runs of each command, from
// spawn to exit, run one after another. The compiled command (dist/functions/cli.js, what `npm install -g` and the
// image run, with plain node) is measured for `--help` and `version`, whose target is under 300 ms; the same
// through tsx (`tsx functions/cli.ts`, how the checkout runs it) for comparison. On a busy machine the figures
// grow: say the load beside them (printed); the CPU time (user + system, from GNU time) grows less.
//   npm run build && npx tsx test/bench/cli-startup.ts [--runs 21] [--json]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadavg, tmpdir } from 'node:os';
import { REPO_ROOT } from '../../infra/build/lua-files.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '21' }, json: { type: 'boolean', default: false } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive whole number');

const CLI_JS = join(REPO_ROOT, 'dist', 'functions', 'cli.js');
if (!existsSync(CLI_JS)) throw new Error(`${CLI_JS} is missing: run npm run build first`);

const CASES = [
  { name: 'node -e 0 (Node alone, the floor)', args: ['-e', '0'] },
  { name: 'node dist/functions/cli.js --help', args: [CLI_JS, '--help'], targetMs: 300 },
  { name: 'node dist/functions/cli.js version', args: [CLI_JS, 'version'], targetMs: 300 },
  { name: 'tsx functions/cli.ts --help', args: ['--import', 'tsx', join(REPO_ROOT, 'functions', 'cli.ts'), '--help'] },
  {
    name: 'tsx functions/cli.ts version',
    args: ['--import', 'tsx', join(REPO_ROOT, 'functions', 'cli.ts'), 'version'],
  },
] as const;

/** GNU time, when the machine has it: the CPU time (user + system) of each run, which a busy machine inflates less. */
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const cpuFile = join(mkdtempSync(join(tmpdir(), 'cli-startup-')), 'cpu');

/** Wall time (and CPU time) of one run in ms; a failing run stops the bench (a broken command's figure means nothing). */
function timeOnce(args: readonly string[]): { wall: number; cpu?: number } {
  const [file, argv] = GNU_TIME
    ? [GNU_TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args]]
    : [process.execPath, [...args]];
  const start = process.hrtime.bigint();
  const result = spawnSync(file, argv, {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0)
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  if (!GNU_TIME) return { wall };
  const [user = 0, system = 0] = readFileSync(cpuFile, 'utf8').trim().split(/\s+/).map(Number);
  return { wall, cpu: (user + system) * 1000 };
}

const median = (sorted: readonly number[]): number => {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const results = CASES.map((c) => {
  timeOnce(c.args); // one warm-up run: the file system cache, as for a user's second command
  const samples = Array.from({ length: runs }, () => timeOnce(c.args));
  const times = samples.map((t) => t.wall).sort((a, b) => a - b);
  const cpu = samples.flatMap((t) => (t.cpu === undefined ? [] : [t.cpu])).sort((a, b) => a - b);
  const target = 'targetMs' in c ? c.targetMs : undefined;
  return {
    command: c.name,
    runs,
    medianMs: Math.round(median(times)),
    minMs: Math.round(times[0] as number),
    maxMs: Math.round(times.at(-1) as number),
    medianCpuMs: cpu.length > 0 ? Math.round(median(cpu)) : undefined,
    targetMs: target,
    withinTarget: target === undefined ? undefined : median(times) < target,
  };
});

const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
if (values.json) {
  process.stdout.write(`${JSON.stringify({ node: process.versions.node, load, results }, null, 2)}\n`);
} else {
  process.stdout.write(`fleetq start-up, ${runs} runs each, Node ${process.versions.node}, load ${load}\n`);
  for (const r of results) {
    const verdict =
      r.targetMs === undefined
        ? ''
        : r.withinTarget
          ? `  (< ${r.targetMs} ms: ok)`
          : `  (target ${r.targetMs} ms: MISSED)`;
    process.stdout.write(
      `  ${r.command.padEnd(38)} median ${String(r.medianMs).padStart(5)} ms   min ${r.minMs}   max ${r.maxMs}` +
        `${r.medianCpuMs === undefined ? '' : `   cpu ${r.medianCpuMs} ms`}${verdict}\n`,
    );
  }
}
if (results.some((r) => r.withinTarget === false)) process.exitCode = 1;
