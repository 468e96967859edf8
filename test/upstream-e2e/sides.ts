// What both e2e runners (run.ts: Kubernetes' own specs; jobset.ts: JobSet's) do to a side's cluster and process:
// clear the kwok taint from its nodes, spawn a process with its output in a log file, and start `fleetq run`
// owning the side's kinds.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CoreV1Api, KubeConfig, type V1Taint } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { KWOK_NODE, type ClusterState } from '../../infra/sandbox/cluster.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { REPO_ROOT } from '../../infra/sandbox/sandbox.js';
import type { Kind } from '../../shared/kube/kinds.js';

/**
 * The e2e frameworks count and schedule onto untainted nodes only; the sandbox taints every kwok node. Each
 * patch is guarded by the node's resourceVersion (a `test` op); kwok updates a fresh node's status meanwhile,
 * so a refused patch (422: the test failed) is read again and retried until every taint is gone.
 */
export async function untaintNodes(c: ClusterState): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(c.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const isKwokTaint = (t: V1Taint): boolean => t.key === KWOK_NODE.taint.key && t.effect === KWOK_NODE.taint.effect;
  await waitFor(
    async () => {
      let tainted = 0;
      for (const node of (await core.listNode()).items) {
        const taints = node.spec?.taints ?? [];
        if (!taints.some(isKwokTaint)) continue;
        tainted++;
        try {
          await core.patchNode({
            name: node.metadata?.name ?? '',
            body: [
              { op: 'test', path: '/metadata/resourceVersion', value: node.metadata?.resourceVersion },
              { op: 'replace', path: '/spec/taints', value: taints.filter((t) => !isKwokTaint(t)) },
            ],
          });
        } catch (err) {
          if ((err as { code?: number }).code !== 422) throw err; // changed since the list: read it again
        }
      }
      return tainted === 0;
    },
    30_000,
    250,
    `the kwok taint to be gone from the nodes of ${c.name}`,
  );
}

export type Child = { child: ChildProcess; exited: Promise<number | null> };

export function spawnLogged(bin: string, args: readonly string[], logFile: string, env: NodeJS.ProcessEnv): Child {
  mkdirSync(dirname(logFile), { recursive: true });
  const out = createWriteStream(logFile);
  const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(out, { end: false });
  child.stderr?.pipe(out, { end: false });
  const exited = new Promise<number | null>((res) =>
    child.once('close', (code) => {
      out.end();
      res(code);
    }),
  );
  return { child, exited };
}

/** A cluster's API budget (registry `limits`). */
export type ApiBudget = { readonly qps: number; readonly burst: number };

/**
 * `fleetq run` against the side's cluster, owning `owns`, on the in-memory queue, within `budget` (default 50/100,
 * above kube-controller-manager's 20/30 per controller times the two or three controllers a spec exercises); its
 * log is `<reports>/fleetq.log`.
 */
export async function startFleetq(
  c: ClusterState,
  reports: string,
  owns: readonly Kind[],
  log: (msg: string) => void,
  budget: ApiBudget = { qps: 50, burst: 100 },
): Promise<Child> {
  const registry = join(reports, 'fleetq-registry.yaml');
  writeFileSync(
    registry,
    stringify({ clusters: [{ name: c.name, kubeconfig: c.kubeconfig, owns, limits: { ...budget } }] }),
  );
  const logFile = join(reports, 'fleetq.log');
  const dataDir = join(reports, 'fleetq-data');
  mkdirSync(dataDir, { recursive: true });
  const p = spawnLogged(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'functions', 'cli.ts'), 'run', '--registry', registry, '--driver', 'memory'],
    logFile,
    { ...process.env, NODE_OPTIONS: '', FLEETQ_DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' },
  );
  let exitCode: number | null | undefined;
  void p.exited.then((code) => (exitCode = code));
  await waitFor(
    async () => {
      if (exitCode !== undefined) throw new Error(`fleetq run exited with ${exitCode} (log ${logFile})`);
      return readFileSync(logFile, 'utf8').includes('fleetq: running 1 cluster(s)');
    },
    120_000,
    250,
    `fleetq run to start (log ${logFile})`,
  );
  log(`fleetq run owns ${owns.join(', ') || 'nothing'} in ${c.name} (log ${logFile})`);
  return p;
}

/** A run failed on fleetq: its warnings and errors (the last ones), so a CI log alone says what fleetq saw. */
export function printFleetqWarnings(logFile: string, last = 40): void {
  if (!existsSync(logFile)) return;
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => /"level":"(warn|error)"/.test(l));
  console.log(
    `fleetq logged ${lines.length} warning(s) and error(s) during the run${lines.length > last ? `; the last ${last}` : ''}:`,
  );
  for (const l of lines.slice(-last)) console.log(`  ${l.length > 400 ? `${l.slice(0, 400)}…` : l}`);
}
