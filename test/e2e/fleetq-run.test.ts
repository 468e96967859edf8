// `fleetq run`, the all-in-one process, as a user starts it: a registry file, the memory driver, the example
// controller converging, metrics served, and a clean exit on SIGINT.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { MIRROR_TO } from '../../shared/controllers/configmap-mirror/types.js';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { readConfigMap, writeRegistry } from '../helpers/fleet.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox.js';

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

    expect(await proc.stop('SIGINT')).toBe(0);
    expect(proc.lines).toContain('fleetq: SIGINT: finishing in-flight keys');
  });
});
