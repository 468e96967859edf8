// `npm start`: fleetq on a local sandbox cluster, for trying it out. Starts (or reuses) the sandbox cluster dev-1
// in fleetq mode (kube-controller-manager without the controllers fleetq replaces), writes a cluster registry for
// it that owns every kind whose controller that mode turns off, and runs the product's `fleetq run --registry`
// (functions/cli.ts) on it until Ctrl-C; then stops dev-1 unless --keep. The product CLI knows nothing of the
// sandbox: this is the only place the two meet.
//   npm start [-- --nodes N] [--keep] [fleetq run options: --driver, --concurrency, --metrics-port, --reads]
// With a registry (--registry F, or FLEETQ_REGISTRY) there is nothing to start: it is `fleetq run` as given.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { redactText } from '../../shared/kube/redact-secrets.js';
import { SandboxMode } from './modes.js';
import { kindsTurnedOff } from './replaced-kinds.js';
import { REPO_ROOT, down, up } from './sandbox.js';

const DEV_CLUSTER = 'dev-1';
const CLI = join(REPO_ROOT, 'functions', 'cli.ts');

/** The dev options (--nodes N, --keep) out of the arguments; the rest are `fleetq run`'s. */
function devOptions(args: readonly string[]): { nodes: number; keep: boolean; run: string[] } {
  let nodes = '3';
  let keep = false;
  const run: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--keep') keep = true;
    else if (a === '--nodes') nodes = args[++i] ?? '';
    else if (a.startsWith('--nodes=')) nodes = a.slice('--nodes='.length);
    else run.push(a);
  }
  const n = Number(nodes);
  if (!/^\d+$/.test(nodes) || !Number.isInteger(n) || n < 1)
    throw new Error(`--nodes must be a positive integer, got ${nodes}`);
  return { nodes: n, keep, run };
}

/**
 * `fleetq run` with these arguments, in a process group of its own: a Ctrl-C reaches this process alone, which
 * passes each SIGINT/SIGTERM on once, so the run finishes its in-flight keys exactly as when started directly.
 */
function fleetqRun(args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), CLI, 'run', ...args], {
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  const forward = (signal: NodeJS.Signals) => () => void child.kill(signal);
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      for (const [s, h] of handlers) process.off(s, h);
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}

async function main(args: readonly string[]): Promise<number> {
  const { nodes, keep, run } = devOptions(args);
  if (run.some((a) => a === '--registry' || a.startsWith('--registry=')) || process.env.FLEETQ_REGISTRY) {
    return fleetqRun(run);
  }
  const [cluster] = await up({ clusters: [{ name: DEV_CLUSTER, mode: SandboxMode.Fleetq }], nodes });
  if (!cluster) throw new Error('the sandbox started no cluster');
  // Every kind whose controller the sandbox turned off: a Job, CronJob or StatefulSet made there gets its pods.
  const owns = kindsTurnedOff(cluster.mode);
  const registry = join(cluster.dir, 'fleetq-registry.yaml');
  writeFileSync(
    registry,
    stringify({
      clusters: [{ name: cluster.name, kubeconfig: cluster.kubeconfig, owns, limits: { qps: 50, burst: 100 } }],
    }),
  );
  console.log(`fleetq: sandbox cluster ${cluster.name} at ${cluster.server}, ${cluster.nodes} kwok node(s)`);
  console.log(`fleetq: kubeconfig ${cluster.kubeconfig}`);
  console.log(`fleetq: owns ${owns.join(', ')} there; try the commands in README "Run it"`);
  const code = await fleetqRun(['--registry', registry, ...run]);
  // After a clean stop (Ctrl-C); a run that failed leaves dev-1 up, to be reused by the next start.
  if (code === 0 && !keep) {
    console.log(`fleetq: stopping sandbox cluster ${cluster.name}`);
    await down([cluster.name]);
  }
  return code;
}

main(process.argv.slice(2)).then(
  (code) => void process.stdout.write('', () => process.exit(code)),
  (err: unknown) => {
    console.error(`fleetq: ${redactText(err instanceof Error ? err.message : String(err))}`);
    process.stdout.write('', () => process.exit(1));
  },
);
