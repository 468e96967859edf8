// `fleetq run`, the all-in-one process, as a user starts it: a registry file, the memory driver, the example
// controller converging, metrics served (every metric the Grafana dashboard in infra/grafana/ queries among
// them), and a clean exit on SIGINT. And as `npm start` starts it, with no registry: its own sandbox cluster
// (dev-1, fleetq mode), on which a newcomer's `kubectl create job` and `kubectl create cronjob` get their pods.
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { MIRROR_TO } from '../../shared/controllers/configmap-mirror/types.js';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { down } from '../../infra/sandbox/sandbox.js';
import { readConfigMap, unreachableCluster, writeRegistry } from '../helpers/pipeline/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { kubectlPath, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const execFileP = promisify(execFile);

type Dashboard = {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
  templating: { list: Array<{ query?: string }> };
};

/** The metric families a dashboard's PromQL names (fleetq's own and client-go-style workqueue_ names). */
function dashboardMetrics(file: string): Map<string, string> {
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as Dashboard;
  const where = new Map<string, string>();
  const queries = [
    ...dashboard.panels.flatMap((p) => p.targets.map((t) => ({ at: p.title, expr: t.expr }))),
    ...dashboard.templating.list.flatMap((v) => (v.query ? [{ at: 'templating', expr: v.query }] : [])),
  ];
  for (const { at, expr } of queries) {
    for (const [name] of expr.matchAll(/\b(?:fleetq|workqueue)_[a-z_]+\b/g)) {
      // A histogram's series are <family>_bucket/_sum/_count; /metrics lists the family.
      where.set(name.replace(/_(bucket|sum|count)$/, ''), at);
    }
  }
  return where;
}

describe('fleetq run', () => {
  let c: TestCluster;
  let src: { name: string; remove: () => Promise<void> };
  let dst: { name: string; remove: () => Promise<void> };
  let proc: Proc | undefined;

  beforeAll(async () => {
    c = await sandboxCluster('fleetq-2');
    [src, dst] = await Promise.all([testNamespace(c.kc), testNamespace(c.kc)]);
  });
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    await Promise.all([src, dst].map((n) => n?.remove()));
  });

  it('runs forwarders and workers in one process, serves metrics, and stops cleanly on SIGINT', async () => {
    const registry = writeRegistry([
      {
        name: 'fleetq-2',
        kubeconfig: c.state.kubeconfig,
        owns: ['ConfigMap'],
        mirror: { allowedNamespaces: ['test-*'] },
      },
    ]);
    const port = await freePort();
    proc = spawnTsx('functions/cli.ts', { FLEETQ_DATA_DIR: mkdtempSync(join(tmpdir(), 'fleetq-run-')) }, 'fleetq run', [
      'run',
      '--registry',
      registry,
      '--driver',
      'memory',
      '--concurrency',
      '4',
      '--metrics-port',
      String(port),
    ]);
    await proc.waitForLine(/fleetq: running 1 cluster\(s\) on the memory queue/);

    await c.kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({
      namespace: src.name,
      body: { metadata: { name: 'app', annotations: { [MIRROR_TO]: dst.name } }, data: { a: 'b' } },
    });
    await waitFor(async () => (await readConfigMap(c.kc, dst.name, 'app'))?.data?.a === 'b', 60_000, 200, 'the copy');

    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^workqueue_adds_total\{name="fleetq",cluster="fleetq-2",kind="ConfigMap"\} \d+/m);
    expect(metrics).toMatch(/^fleetq_reconcile_total\{cluster="fleetq-2",kind="ConfigMap",outcome="done"\} \d+/m);
    expect(metrics).toMatch(/^fleetq_kube_requests_total\{cluster="fleetq-2",method="POST",code="201"\} \d+/m);

    // The dashboard shows only what fleetq exports: every metric its queries name is a family on /metrics.
    const served = new Set([...metrics.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const queried = dashboardMetrics('infra/grafana/fleetq.json');
    expect(queried.size).toBeGreaterThanOrEqual(15);
    expect([...queried].filter(([name]) => !served.has(name)).map(([name, at]) => `${name} (${at})`)).toEqual([]);

    expect(await proc.stop('SIGINT')).toBe(0);
    expect(proc.lines).toContain('fleetq: SIGINT: finishing in-flight keys');
  });
});

/** The process's exit code, or 'late' (and the process killed) if it has not exited within `ms`. */
async function exitWithin(proc: Proc, ms: number): Promise<number | null | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const code = await Promise.race([proc.exited, late]);
  clearTimeout(timer);
  if (code === 'late') await proc.stop('SIGKILL');
  return code;
}

describe('fleetq run: start-up checks and usage', () => {
  const dataDir = (): string => mkdtempSync(join(tmpdir(), 'fleetq-run-'));

  it('exits 1 within seconds naming a cluster it cannot reach, instead of running and retrying it', async () => {
    const down = await unreachableCluster('down-1');
    const registry = writeRegistry([down]);
    const started = Date.now();
    const proc = spawnTsx('functions/cli.ts', { FLEETQ_DATA_DIR: dataDir() }, 'fleetq run', [
      'run',
      '--registry',
      registry,
    ]);
    const code = await exitWithin(proc, 30_000);
    const said = proc.lines.join('\n');
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(said).toMatch(
      /fleetq: start-up checks failed:\n\s+cluster down-1: reachable: cannot connect to https:\/\/127\.0\.0\.1:\d+: connection refused/,
    );
    expect(said).toContain('--skip-preflight');
    expect(said).not.toMatch(/running 1 cluster/);
  });

  it('starts anyway with --skip-preflight', async () => {
    const registry = writeRegistry([await unreachableCluster('down-1')]);
    const proc = spawnTsx('functions/cli.ts', { FLEETQ_DATA_DIR: dataDir() }, 'fleetq run', [
      'run',
      '--registry',
      registry,
      '--skip-preflight',
    ]);
    try {
      await proc.waitForLine(/fleetq: running 1 cluster\(s\) on the memory queue/);
      expect(proc.lines).toContain('fleetq: start-up checks skipped (--skip-preflight)');
      expect(await proc.stop('SIGINT')).toBe(0);
    } finally {
      await proc.stop('SIGKILL');
    }
  });

  it('names the flag of a bad value and exits 2', async () => {
    const proc = spawnTsx('functions/cli.ts', {}, 'fleetq run', [
      'run',
      '--registry',
      'fleet.yaml',
      '--concurrency',
      'abc',
    ]);
    expect(await proc.exited).toBe(2);
    expect(proc.lines.join('\n')).toMatch(/--concurrency "abc": /);
  });

  it("functions/worker.ts --help prints the worker command's help and starts no worker", async () => {
    const proc = spawnTsx('functions/worker.ts', { FLEETQ_DRIVER: 'memory' }, 'worker.ts --help', ['--help']);
    const code = await exitWithin(proc, 30_000);
    expect(code).toBe(0);
    const said = proc.lines.join('\n');
    expect(said).toMatch(/^Usage: worker\.ts \[options\]/m);
    expect(said).toContain('Examples:');
    expect(said).not.toContain('Worker started');
  });
});

/** The script and arguments `npm start` runs (package.json: `tsx <script> <args…>`). */
function npmStart(): { script: string; args: string[] } {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
  const [runner, script, ...args] = (pkg.scripts.start ?? '').split(/\s+/);
  if (runner !== 'tsx' || script === undefined)
    throw new Error(`npm start runs ${pkg.scripts.start}, not tsx <script>`);
  return { script, args };
}

describe('fleetq run with no registry (npm start)', () => {
  // A sandbox root of its own: the dev cluster this run starts and stops is not one of the shared ones.
  const root = mkdtempSync(join(tmpdir(), 'fleetq-dev-sandbox-'));
  let proc: Proc | undefined;

  afterAll(async () => {
    await proc?.stop('SIGKILL');
    await down(undefined, root);
    rmSync(root, { recursive: true, force: true });
  });

  it("starts dev-1 and owns every kind its sandbox turned off: a kubectl-made Job gets its pod, a CronJob's Job is seen", async () => {
    const { script, args } = npmStart();
    proc = spawnTsx(
      script,
      { FLEETQ_SANDBOX_DIR: root, FLEETQ_DATA_DIR: mkdtempSync(join(tmpdir(), 'fleetq-dev-run-')) },
      'npm start',
      [...args, '--nodes', '1'],
    );
    // The sandbox's binaries are built (the standard clusters run on them): starting dev-1 is its control plane.
    await proc.waitForLine(/fleetq: running 1 cluster\(s\) on the memory queue/, 240_000);
    const kubeconfig = (await proc.waitForLine(/^fleetq: kubeconfig /)).replace(/^fleetq: kubeconfig /, '');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const ns = `test-${randomUUID()}`;
    await core.createNamespace({ body: { metadata: { name: ns } } });
    const kubectl = (...a: string[]) => execFileP(kubectlPath(), ['--kubeconfig', kubeconfig, '-n', ns, ...a]);

    // What a newcomer types: plain kubectl, no tolerations (the pods may stay Pending: made is what counts).
    await kubectl('create', 'job', 'hello', '--image=registry.example/app:1');
    await kubectl('create', 'cronjob', 'nightly', '--image=registry.example/app:1', '--schedule=0 0 1 1 *');
    // A Job made from the CronJob by hand: the CronJob's controller sees it as its own (UnexpectedJob, as upstream),
    // and the Job controller gives it a pod; the schedule itself fires only at New Year.
    await kubectl('create', 'job', 'by-hand', '--from=cronjob/nightly');

    const podsOf = async (job: string): Promise<number> =>
      (await core.listNamespacedPod({ namespace: ns, labelSelector: `batch.kubernetes.io/job-name=${job}` })).items
        .length;
    await waitFor(async () => (await podsOf('hello')) > 0, 60_000, 250, 'a pod of the Job hello');
    await waitFor(async () => (await podsOf('by-hand')) > 0, 60_000, 250, 'a pod of the Job by-hand');
    await waitFor(
      async () =>
        (
          await core.listNamespacedEvent({
            namespace: ns,
            fieldSelector: 'involvedObject.kind=CronJob,involvedObject.name=nightly,reason=UnexpectedJob',
          })
        ).items.length > 0,
      60_000,
      250,
      "the CronJob nightly's UnexpectedJob event for by-hand",
    );

    expect(await proc.stop('SIGINT')).toBe(0);
    expect(proc.lines).toContain('fleetq: stopping sandbox cluster dev-1');
  }, 480_000);
});
