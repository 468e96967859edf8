// infra/k8s/overlays/sandbox applied to a sandbox cluster of its own (`k8s-deploy`, upstream mode: its
// controller-manager turns the Deployments into pods), with the kubectl the sandbox built. The apiserver validates
// every object (server-side apply, strict field validation; the ServiceMonitor against the minimal CRD of
// overlays/sandbox/crd), and a misspelt field or a bad ServiceMonitor is refused, so the check can fail. kwok runs
// no containers: the test checks that each Deployment's pods are created and scheduled onto a kwok node (kwok then
// marks them Running), not that fleetq starts in them.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { REPO_ROOT, down, readState, up } from '../../infra/sandbox/sandbox.js';
import { loadRegistry } from '../../shared/kube/registry.js';
import { serveMetrics } from '../../shared/runtime/metrics.js';
import { kubectl } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'k8s-deploy';
const K8S = join(REPO_ROOT, 'infra/k8s');
const OVERLAY = join(K8S, 'overlays/sandbox');
const NS = 'fleetq-system';

type Obj = {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; ownerReferences?: Array<{ kind: string }> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};
type Container = {
  name: string;
  livenessProbe?: { httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
  ports?: Array<{ name: string; containerPort: number }>;
};

describe('infra/k8s on a sandbox cluster', () => {
  let c: ClusterState;
  let startedHere = false;
  const k = (args: string[]): Promise<string> => kubectl(c, args);
  const items = async (what: string): Promise<Obj[]> =>
    (JSON.parse(await k(['get', what, '-n', NS, '-o', 'json'])) as { items: Obj[] }).items;

  beforeAll(async () => {
    const running = readState().clusters.find((s) => s.name === CLUSTER);
    if (running) c = running;
    else {
      [c] = (await up({ clusters: [{ name: CLUSTER, mode: SandboxMode.Upstream }], nodes: 1 })) as [ClusterState];
      startedHere = true;
    }
  });
  afterAll(async () => {
    if (startedHere) await down([CLUSTER]);
  });

  it('kubectl apply -k overlays/sandbox: every object valid, the pools scheduled', async () => {
    // The sandbox's registry is a valid registry.
    expect(loadRegistry(join(OVERLAY, 'fleet.yaml')).map((e) => e.name)).toEqual(['management', 'edge-1']);

    await k(['apply', '--server-side', '-f', join(OVERLAY, 'crd/servicemonitor-crd.yaml')]);
    await k([
      'wait',
      '--for',
      'condition=Established',
      '--timeout',
      '60s',
      'crd/servicemonitors.monitoring.coreos.com',
    ]);
    const applied = await k(['apply', '--server-side', '--field-manager', 'fleetq-ci', '-k', OVERLAY]);
    expect(applied).toMatch(/deployment\.apps\/fleetq-worker serverside-applied/);
    // The Redis credentials are the operator's (none is in the repository): a password made here.
    const password = randomBytes(18).toString('base64url');
    await k(['delete', 'secret', 'fleetq-redis', '-n', NS, '--ignore-not-found']);
    await k([
      'create',
      'secret',
      'generic',
      'fleetq-redis',
      '-n',
      NS,
      `--from-literal=password=${password}`,
      `--from-literal=url=rediss://:${password}@fleetq-redis.${NS}.svc:6379`,
    ]);

    // Only fleetq's pools are admitted to Redis. A sandbox has no network plugin: the apiserver validates and
    // stores the policy, nothing enforces it here.
    const [policy] = await items('networkpolicies');
    expect(policy?.metadata.name).toBe('fleetq-redis');
    expect(policy?.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'fleetq-redis' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              podSelector: {
                matchExpressions: [
                  { key: 'app.kubernetes.io/part-of', operator: 'In', values: ['fleetq'] },
                  { key: 'app.kubernetes.io/component', operator: 'In', values: ['forwarder', 'worker', 'handler'] },
                ],
              },
            },
          ],
          ports: [{ protocol: 'TCP', port: 6379 }],
        },
      ],
    });
    // fleetq-system is closed to fleetq's own ServiceAccounts (admission; test/integration/rbac.test.ts shows it).
    expect(await k(['get', 'validatingadmissionpolicybinding', 'fleetq-system-protected', '-o', 'name'])).toMatch(
      /fleetq-system-protected/,
    );

    const deployments = await items('deployments');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([
      'fleetq-forwarder',
      'fleetq-redis',
      'fleetq-worker',
    ]);
    for (const name of ['fleetq-forwarder', 'fleetq-worker']) {
      const d = deployments.find((x) => x.metadata.name === name) as Obj;
      const pod = (d.spec?.template as { spec: { containers: Container[]; serviceAccountName: string } }).spec;
      const [container] = pod.containers;
      expect(container?.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics', scheme: 'HTTP' });
      expect(container?.readinessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics', scheme: 'HTTP' });
      expect(container?.ports).toEqual([{ name: 'metrics', containerPort: 9090, protocol: 'TCP' }]);
      expect(pod.serviceAccountName).toBe(name === 'fleetq-worker' ? 'fleetq-handler' : 'fleetq-forwarder');
    }
    expect((await items('poddisruptionbudgets')).map((p) => p.metadata.name).sort()).toEqual([
      'fleetq-forwarder',
      'fleetq-worker',
    ]);
    expect((await items('services')).map((s) => s.metadata.name).sort()).toEqual(['fleetq-metrics', 'fleetq-redis']);
    const [monitor] = await items('servicemonitors');
    expect(monitor?.spec).toMatchObject({
      selector: { matchLabels: { 'app.kubernetes.io/name': 'fleetq-metrics' } },
      endpoints: [{ port: 'metrics', path: '/metrics' }],
    });
    // The bundled Redis asks for a password (from the Secret) and speaks TLS only; the pools trust its CA.
    const redis = deployments.find((x) => x.metadata.name === 'fleetq-redis') as Obj;
    const [redisContainer] = (
      redis.spec?.template as {
        spec: { containers: Array<{ args: string[]; env: Array<{ name: string; valueFrom?: unknown }> }> };
      }
    ).spec.containers;
    const arg = (flag: string) => redisContainer?.args[(redisContainer?.args.indexOf(flag) ?? -2) + 1];
    expect([arg('--requirepass'), arg('--port'), arg('--tls-port')]).toEqual(['$(REDIS_PASSWORD)', '0', '6379']);
    expect(redisContainer?.env).toEqual([
      { name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'fleetq-redis', key: 'password' } } },
    ]);
    for (const name of ['fleetq-forwarder', 'fleetq-worker']) {
      const d = deployments.find((x) => x.metadata.name === name) as Obj;
      const env = (d.spec?.template as { spec: { containers: Array<{ env: Array<{ name: string }> }> } }).spec
        .containers[0]?.env;
      expect(env).toContainEqual({ name: 'FLEETQ_REDIS_TLS_CA', value: '/etc/fleetq/redis-tls/ca.crt' });
    }
    expect(await k(['get', 'serviceaccount', 'fleetq-handler', '-n', NS, '-o', 'name'])).toMatch(/fleetq-handler/);
    expect(await k(['get', 'clusterrolebinding', 'fleetq-forwarder', '-o', 'name'])).toMatch(/fleetq-forwarder/);

    // The controller-manager creates the pods, kube-scheduler binds them to the kwok node, kwok marks them Running.
    const want: Record<string, number> = { 'fleetq-forwarder': 2, 'fleetq-worker': 2, 'fleetq-redis': 1 };
    let pods: Obj[] = [];
    await waitFor(
      async () => {
        pods = await items('pods');
        return Object.entries(want).every(
          ([app, n]) =>
            pods.filter(
              (p) =>
                p.metadata.labels?.['app.kubernetes.io/name'] === app &&
                typeof p.spec?.nodeName === 'string' &&
                p.status?.phase === 'Running',
            ).length === n,
        );
      },
      120_000,
      500,
      'the pods of every Deployment created, scheduled and Running (kwok)',
    ).catch((err: unknown) => {
      const seen = pods.map((p) => `${p.metadata.name} ${String(p.spec?.nodeName)} ${String(p.status?.phase)}`);
      throw new Error(`${String(err)}\npods: ${seen.join('; ')}`);
    });
    // The metrics Service selects the pools' pods and not Redis.
    const endpoints = JSON.parse(await k(['get', 'endpoints', 'fleetq-metrics', '-n', NS, '-o', 'json'])) as {
      subsets?: Array<{ addresses?: unknown[]; notReadyAddresses?: unknown[] }>;
    };
    const addresses = (endpoints.subsets ?? []).flatMap((s) => [
      ...(s.addresses ?? []),
      ...(s.notReadyAddresses ?? []),
    ]);
    expect(addresses).toHaveLength(4);
  });

  it('refuses what is not valid: a misspelt field, a ServiceMonitor the CRD rejects', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetq-k8s-'));
    const bad = join(dir, 'bad-deployment.yaml');
    writeFileSync(
      bad,
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: { name: fleetq-worker, namespace: fleetq-system }',
        'spec:',
        '  replica: 3',
        '  selector: { matchLabels: { app.kubernetes.io/name: fleetq-worker } }',
        '  template:',
        '    metadata: { labels: { app.kubernetes.io/name: fleetq-worker } }',
        '    spec: { containers: [{ name: worker, image: fleetq }] }',
        '',
      ].join('\n'),
    );
    await expect(k(['apply', '--dry-run=server', '-f', bad])).rejects.toThrow(/unknown field "spec.replica"/);
    const monitor = join(dir, 'bad-monitor.yaml');
    writeFileSync(
      monitor,
      [
        'apiVersion: monitoring.coreos.com/v1',
        'kind: ServiceMonitor',
        'metadata: { name: bad, namespace: fleetq-system }',
        'spec:',
        '  selector: { matchLabels: { app.kubernetes.io/name: fleetq-metrics } }',
        '  endpoints: [{ port: metrics, interval: 30 seconds }]',
        '',
      ].join('\n'),
    );
    await expect(k(['apply', '--dry-run=server', '-f', monitor])).rejects.toThrow(/spec.endpoints\[0\].interval/);
  });

  it('the probes path is served: /healthz answers 200 on the metrics port', async () => {
    const server = await serveMetrics(new Registry(), 0);
    try {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/nope`)).status).toBe(404);
    } finally {
      server.close();
    }
  });
});
