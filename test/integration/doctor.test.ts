// `fleetq doctor` on the sandbox's real clusters and the real Redis, as a user runs it (functions/cli.ts):
//   - fleetq-1 and fleetq-2 (kube-controller-manager without the workload controllers): every check passes;
//   - upstream-1 (kube-controller-manager with every controller) owning ReplicaSet: a conflict, once a ReplicaSet
//     there has had its status written by kube-controller-manager; with --probe, a conflict found on a kind that
//     has no object yet (Deployment) and none on fleetq-1;
//   - a cluster nobody listens for, a kubeconfig file that is not there, a context the file lacks: each fails,
//     naming the cluster, with its own message;
//   - credentials allowed less than the owned kinds need (the forwarder's ServiceAccount, which only reads);
//   - a Redis nobody listens for: fails naming its URL without the password.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { AppsV1Api } from '@kubernetes/client-node';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { kcmStatusWrite } from '../../shared/ops/doctor-conflicts.js';
import { unreachableCluster, writeRegistry, type RegistryEntry } from '../helpers/pipeline/fleet.js';
import { spawnTsx } from '../helpers/processes.js';
import { REDIS_URL } from '../helpers/queue/redis.js';
import { serviceAccountRegistries } from '../helpers/sandbox/rbac.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

type Check = { name: string; status: 'ok' | 'warn' | 'FAIL'; message: string; fix?: string; cluster?: string };

/** `fleetq doctor ARGS -o json` (Redis driver on the test Redis unless env says else): exit code and checks. */
async function doctor(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; checks: Check[]; out: string }> {
  const p = spawnTsx('functions/cli.ts', { REDIS_URL, FLEETQ_DRIVER: 'redis', ...env }, 'fleetq doctor', [
    'doctor',
    '-o',
    'json',
    ...args,
  ]);
  const code = await p.exited;
  const out = p.lines.join('\n');
  const start = p.lines.indexOf('[');
  const end = p.lines.indexOf(']', start);
  if (start < 0 || end < 0) throw new Error(`no JSON checks in:\n${out}`);
  return { code, checks: JSON.parse(p.lines.slice(start, end + 1).join('\n')) as Check[], out };
}

const failed = (checks: Check[]): Check[] => checks.filter((c) => c.status === 'FAIL');

describe('fleetq doctor', () => {
  let fleetq1: TestCluster;
  let fleetq2: TestCluster;
  let upstream: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };

  beforeAll(async () => {
    [fleetq1, fleetq2, upstream] = (await Promise.all(['fleetq-1', 'fleetq-2', 'upstream-1'].map(sandboxCluster))) as [
      TestCluster,
      TestCluster,
      TestCluster,
    ];
    ns = await testNamespace(upstream.kc);
  });
  afterAll(async () => {
    await ns?.remove();
  });

  it('passes a clean fleet: both fleetq-mode clusters reachable, allowed, without a competing controller', async () => {
    // A ReplicaSet on fleetq-1, so that its check reads one (nothing writes its status there: no fleetq runs).
    const own = await testNamespace(fleetq1.kc);
    const labels = { app: 'idle' };
    await fleetq1.kc.makeApiClient(AppsV1Api).createNamespacedReplicaSet({
      namespace: own.name,
      body: {
        metadata: { name: 'idle' },
        spec: {
          replicas: 0,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
        },
      },
    });
    const registry = writeRegistry([
      { name: 'fleetq-1', kubeconfig: fleetq1.state.kubeconfig, owns: ['Deployment', 'ReplicaSet', 'Job'] },
      { name: 'fleetq-2', kubeconfig: fleetq2.state.kubeconfig, owns: ['StatefulSet', 'DaemonSet'] },
    ]);
    const { code, checks, out } = await doctor(['--registry', registry]);
    expect(failed(checks)).toEqual([]);
    expect(code).toBe(0);
    for (const cluster of ['fleetq-1', 'fleetq-2']) {
      expect(checks).toContainEqual(expect.objectContaining({ name: `cluster ${cluster}: reachable`, status: 'ok' }));
      expect(checks).toContainEqual(expect.objectContaining({ name: `cluster ${cluster}: permissions`, status: 'ok' }));
    }
    // ok where it read objects of the kind, a warning where it had none to read: never a failure.
    for (const kind of ['Deployment', 'ReplicaSet', 'Job'])
      expect(checks.find((c) => c.name === `cluster fleetq-1: ${kind} has no other controller`)?.status).toMatch(
        /^(ok|warn)$/,
      );
    expect(checks).toContainEqual(
      expect.objectContaining({
        name: 'cluster fleetq-1: ReplicaSet has no other controller',
        status: 'ok',
        message: expect.stringMatching(/^\d+ ReplicaSet\(s\) read: no status written by kube-controller-manager/),
      }),
    );
    expect(checks).toContainEqual(expect.objectContaining({ name: 'Redis', status: 'ok' }));
    expect(out).not.toMatch(/FAIL/);
    await own.remove();
  });

  it('reports upstream-1 owning ReplicaSet as a conflict once kube-controller-manager writes a ReplicaSet status', async () => {
    const apps = upstream.kc.makeApiClient(AppsV1Api);
    const labels = { app: `doctor-${randomUUID().slice(0, 8)}` };
    await apps.createNamespacedReplicaSet({
      namespace: ns.name,
      body: {
        metadata: { name: 'idle' },
        spec: {
          replicas: 0,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
        },
      },
    });
    await waitFor(
      async () =>
        kcmStatusWrite(await apps.readNamespacedReplicaSet({ namespace: ns.name, name: 'idle' })) !== undefined,
      30_000,
      200,
      "kube-controller-manager's status write of the ReplicaSet idle",
    );
    const registry = writeRegistry([
      { name: 'upstream-1', kubeconfig: upstream.state.kubeconfig, owns: ['ReplicaSet'] },
    ]);
    const { code, checks } = await doctor(['--registry', registry]);
    expect(code).toBe(1);
    expect(failed(checks)).toEqual([
      expect.objectContaining({
        name: 'cluster upstream-1: ReplicaSet has no other controller',
        message: expect.stringContaining('replicaset-controller is running'),
        fix: expect.stringMatching(
          /--controllers=\*,-replicaset-controller.*remove ReplicaSet from the cluster's owns/,
        ),
      }),
    ]);
  });

  it('--probe finds the Deployment controller of upstream-1 with no Deployment there, and none on fleetq-1', async () => {
    const probeNs = await testNamespace(fleetq1.kc);
    try {
      const registry = writeRegistry([
        { name: 'upstream-1', kubeconfig: upstream.state.kubeconfig, owns: ['Deployment'] },
        { name: 'fleetq-1', kubeconfig: fleetq1.state.kubeconfig, owns: ['Deployment'] },
      ]);
      // The namespace exists on upstream-1 (ns) and on fleetq-1 (probeNs): one of each, so both get the same name.
      const { checks } = await doctor([
        '--registry',
        registry,
        '--probe',
        '--probe-namespace',
        ns.name,
        '--probe-wait',
        '10',
      ]);
      const probe = (cluster: string) => checks.find((c) => c.name === `cluster ${cluster}: Deployment probe`);
      expect(probe('upstream-1')).toMatchObject({
        status: 'FAIL',
        message: expect.stringContaining('deployment-controller'),
      });
      // fleetq-1 has no namespace of that name: the probe says it could not create its object (a warning).
      expect(probe('fleetq-1')?.status).not.toBe('FAIL');
      const again = await doctor([
        '--registry',
        writeRegistry([{ name: 'fleetq-1', kubeconfig: fleetq1.state.kubeconfig, owns: ['Deployment', 'ReplicaSet'] }]),
        '--probe',
        '--probe-namespace',
        probeNs.name,
        '--probe-wait',
        '3',
      ]);
      expect(again.checks.filter((c) => c.name.endsWith('probe'))).toEqual([
        expect.objectContaining({ name: 'cluster fleetq-1: Deployment probe', status: 'ok' }),
        expect.objectContaining({ name: 'cluster fleetq-1: ReplicaSet probe', status: 'ok' }),
      ]);
      // The throwaway objects are gone.
      const apps = upstream.kc.makeApiClient(AppsV1Api);
      await waitFor(
        async () => (await apps.listNamespacedDeployment({ namespace: ns.name })).items.length === 0,
        30_000,
        200,
        'the probe Deployment deleted',
      );
    } finally {
      await probeNs.remove();
    }
  });

  it('fails an unreachable cluster, a missing kubeconfig and a wrong context, each named with its own message', async () => {
    const down = await unreachableCluster('down-1');
    const registry = writeRegistry([
      down,
      { name: 'nofile-1', kubeconfig: join('/nonexistent', randomUUID(), 'kubeconfig.yaml') },
      { name: 'badctx-1', kubeconfig: fleetq1.state.kubeconfig, context: 'no-such-context' },
      { name: 'fleetq-1', kubeconfig: fleetq1.state.kubeconfig },
    ] as RegistryEntry[]);
    const started = Date.now();
    const { code, checks } = await doctor(['--registry', registry, '--timeout', '3']);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(code).toBe(1);
    const reach = (cluster: string) => checks.find((c) => c.name === `cluster ${cluster}: reachable`);
    expect(reach('down-1')).toMatchObject({
      status: 'FAIL',
      message: expect.stringMatching(new RegExp(`cannot connect to ${String(down.server)}: connection refused`)),
    });
    expect(reach('nofile-1')).toMatchObject({
      status: 'FAIL',
      message: expect.stringMatching(/kubeconfig file .* does not exist/),
    });
    expect(reach('badctx-1')).toMatchObject({
      status: 'FAIL',
      message: expect.stringMatching(/context "no-such-context" is not in kubeconfig file .* \(its contexts: /),
    });
    expect(reach('fleetq-1')?.status).toBe('ok');
    expect(failed(checks).map((c) => c.cluster)).toEqual(['down-1', 'nofile-1', 'badctx-1']);
  });

  it('fails credentials that may not do what the owned kinds need: the forwarder ServiceAccount cannot write', async () => {
    const { credentials } = await serviceAccountRegistries('fleetq-1', {
      name: 'fleetq-1',
      owns: ['ReplicaSet'],
      limits: { qps: 20, burst: 30 },
    });
    const registry = writeRegistry([
      {
        name: 'fleetq-1',
        server: credentials.server,
        tokenFile: credentials.tokenFiles.forwarder,
        caFile: credentials.caFile,
        owns: ['ReplicaSet'],
      },
    ]);
    const { code, checks } = await doctor(['--registry', registry]);
    expect(code).toBe(1);
    expect(failed(checks)).toEqual([
      expect.objectContaining({
        name: 'cluster fleetq-1: permissions',
        message: expect.stringMatching(
          /^ReplicaSet needs what the identity may not do: .*update replicasets\/status\.apps/,
        ),
        fix: expect.stringContaining('infra/k8s/forwarder-clusterrole.yaml and handler-clusterrole.yaml'),
      }),
    ]);
  });

  it('fails a Redis nobody listens for, naming its URL without the password', async () => {
    const password = 'doctor-secret-not-printed';
    const port = await freePort();
    const registry = writeRegistry([{ name: 'fleetq-1', kubeconfig: fleetq1.state.kubeconfig }]);
    const { code, checks, out } = await doctor(['--registry', registry, '--timeout', '2'], {
      REDIS_URL: `redis://:${password}@127.0.0.1:${port}`,
    });
    expect(code).toBe(1);
    expect(failed(checks)).toEqual([
      expect.objectContaining({ name: 'Redis', message: expect.stringContaining(`127.0.0.1:${port}`) }),
    ]);
    expect(out).not.toContain(password);
  });
});
