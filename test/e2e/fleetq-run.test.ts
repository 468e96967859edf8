// `fleetq run`, the all-in-one process, as a user starts it: a registry file, the memory driver, the example
// controller converging, metrics served (every metric the Grafana dashboard in infra/grafana/ queries among
// them), and a clean exit on SIGINT.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { MIRROR_TO } from '../../shared/controllers/configmap-mirror/types.js';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { readConfigMap, writeRegistry } from '../helpers/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox.js';

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
