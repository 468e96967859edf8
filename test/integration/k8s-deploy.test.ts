// infra/k8s/overlays/sandbox applied to a sandbox cluster of its own (`k8s-deploy`, upstream mode: its
// controller-manager turns the Deployments into pods), with the kubectl the sandbox built. The apiserver validates
// every object (server-side apply, strict field validation; the ServiceMonitor against the minimal CRD of
// overlays/sandbox/crd), and a misspelt field or a bad ServiceMonitor is refused, so the check can fail. kwok runs
// no containers: the test checks that each Deployment's pods are created and scheduled onto a kwok node (kwok then
// marks them Running), not that fleetq starts in them. The overlay includes components/jobset-admission: its
// webhook configurations are upstream JobSet's (read from the module), pointed at the admission Service, and the
// apiserver calls them, refusing a JobSet it cannot get an answer for (no admission process runs under kwok). What
// is applied is that overlay with components/leaderworkerset-admission on top (an overlay written here, listing the
// shipped one as its resource): LeaderWorkerSet's webhooks are registered too, and called for the pods they select.
// Every combination of the admission components (JobSet, LeaderWorkerSet, both; each with and without cert-manager)
// is rendered only (the sandbox has no cert-manager).
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { webhookConfigurations } from '../../infra/sandbox/jobset-controller.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { REPO_ROOT, down, readState, up } from '../../infra/sandbox/sandbox.js';
import { MUTATE_JOBSET_PATH, VALIDATE_JOBSET_PATH } from '../../shared/admission/admission-review.js';
import { loadRegistry } from '../../shared/kube/registry.js';
import { serveMetrics } from '../../shared/runtime/metrics.js';
import { kubectl } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'k8s-deploy';
const K8S = join(REPO_ROOT, 'infra/k8s');
const OVERLAY = join(K8S, 'overlays/sandbox');
const LWS_WEBHOOKS = join(K8S, 'components/leaderworkerset-admission/webhooks.yaml');
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
type Webhook = {
  name: string;
  admissionReviewVersions?: string[];
  sideEffects?: string;
  failurePolicy?: string;
  timeoutSeconds?: number;
  rules?: Array<Record<string, unknown>>;
  clientConfig: {
    url?: string;
    caBundle?: string;
    service?: { name: string; namespace: string; path?: string; port?: number };
  };
};
/** What a webhook does, apart from where it is served: the fields upstream's manifests set. */
const behaviour = (w: Webhook) => ({
  name: w.name,
  admissionReviewVersions: w.admissionReviewVersions,
  sideEffects: w.sideEffects,
  failurePolicy: w.failurePolicy,
  // The apiserver defaults a rule's scope to '*'; upstream's manifests leave it out.
  rules: (w.rules ?? []).map(({ scope: _, ...rule }) => rule),
});

describe('infra/k8s on a sandbox cluster', () => {
  let c: ClusterState;
  let startedHere = false;
  const k = (args: string[]): Promise<string> => kubectl(c, args);
  const items = async (what: string): Promise<Obj[]> =>
    (JSON.parse(await k(['get', what, '-n', NS, '-o', 'json'])) as { items: Obj[] }).items;
  /** A copy of infra/k8s with an overlay `name` of `kustomization` (its lines), for kubectl kustomize or apply -k. */
  const overlay = (name: string, kustomization: string[]): string => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetq-k8s-'));
    cpSync(K8S, join(dir, 'k8s'), { recursive: true });
    mkdirSync(join(dir, 'k8s', 'overlays', name));
    writeFileSync(join(dir, 'k8s', 'overlays', name, 'kustomization.yaml'), [...kustomization, ''].join('\n'));
    return join(dir, 'k8s', 'overlays', name);
  };

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
    // The shipped overlay, with LeaderWorkerSet's admission component added the way an operator adds it.
    const withLws = overlay('sandbox-lws', [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources: [../sandbox]',
      'components: [../../components/leaderworkerset-admission]',
    ]);
    const applied = await k(['apply', '--server-side', '--field-manager', 'fleetq-ci', '-k', withLws]);
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
      'fleetq-admission',
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
      'fleetq-admission',
      'fleetq-forwarder',
      'fleetq-worker',
    ]);
    expect((await items('services')).map((s) => s.metadata.name).sort()).toEqual([
      'fleetq-admission',
      'fleetq-metrics',
      'fleetq-redis',
    ]);
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
    const want: Record<string, number> = {
      'fleetq-forwarder': 2,
      'fleetq-worker': 2,
      'fleetq-redis': 1,
      'fleetq-admission': 2,
    };
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

  it('serves JobSet admission from the admission pods: upstream’s webhooks, the Service, the serving certificate', async () => {
    // The admission pods: HTTPS on 9443 with the operator's certificate, no ServiceAccount token, probes over HTTPS.
    const [admission] = (await items('deployments')).filter((d) => d.metadata.name === 'fleetq-admission');
    const pod = (
      admission?.spec?.template as {
        spec: {
          automountServiceAccountToken?: boolean;
          containers: Array<Container & { command: string[]; env: Array<{ name: string; value?: string }> }>;
          volumes: Array<{ name: string; secret?: { secretName: string } }>;
        };
      }
    ).spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    const [container] = pod.containers;
    expect(container?.command).toEqual(['node', 'dist/functions/admission.js']);
    expect(container?.ports).toEqual([{ name: 'https', containerPort: 9443, protocol: 'TCP' }]);
    for (const probe of [container?.livenessProbe, container?.readinessProbe]) {
      expect(probe?.httpGet).toEqual({ path: '/healthz', port: 'https', scheme: 'HTTPS' });
    }
    const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      FLEETQ_ADMISSION_PORT: '9443',
      FLEETQ_ADMISSION_CERT: '/etc/fleetq/admission-tls/tls.crt',
      FLEETQ_ADMISSION_KEY: '/etc/fleetq/admission-tls/tls.key',
    });
    expect(pod.volumes).toContainEqual({
      name: 'tls',
      secret: { secretName: 'fleetq-admission-tls', defaultMode: 420 },
    });
    // Nothing of Redis or the clusters: no registry, no token, no Redis URL.
    expect(Object.keys(env).filter((k) => /REDIS|REGISTRY|TOKEN|SQS/.test(k))).toEqual([]);

    // The Service selects the two admission pods (kwok marked them Ready) and only them.
    await waitFor(
      async () => {
        const ep = JSON.parse(await k(['get', 'endpoints', 'fleetq-admission', '-n', NS, '-o', 'json'])) as {
          subsets?: Array<{ addresses?: unknown[]; ports?: Array<{ port: number }> }>;
        };
        const subsets = ep.subsets ?? [];
        return subsets.flatMap((x) => x.addresses ?? []).length === 2 && subsets[0]?.ports?.[0]?.port === 9443;
      },
      60_000,
      500,
      'the admission Service has the two admission pods as endpoints, port 9443',
    );

    // The webhook configurations are upstream JobSet's for JobSets (names, rules, policies, paths), with the
    // admission Service as their client.
    const upstream = webhookConfigurations('', '').flatMap((c) =>
      ((c.webhooks ?? []) as Webhook[]).map((w) => ({ kind: c.kind, w })),
    );
    for (const [kind, resource, path] of [
      ['MutatingWebhookConfiguration', 'mutatingwebhookconfiguration', MUTATE_JOBSET_PATH],
      ['ValidatingWebhookConfiguration', 'validatingwebhookconfiguration', VALIDATE_JOBSET_PATH],
    ] as const) {
      const live = JSON.parse(await k(['get', resource, 'fleetq-jobset', '-o', 'json'])) as { webhooks: Webhook[] };
      const theirs = upstream.filter((u) => u.kind === kind && u.w.clientConfig.url === path).map((u) => u.w);
      expect(theirs).toHaveLength(1);
      expect(live.webhooks.map(behaviour)).toEqual(theirs.map(behaviour));
      expect(live.webhooks.map((w) => w.clientConfig)).toEqual([
        { service: { name: 'fleetq-admission', namespace: NS, path, port: 443 } },
      ]);
      expect(live.webhooks.map((w) => w.timeoutSeconds)).toEqual([10]);
    }

    // The apiserver calls them: with no admission process behind the Service (kwok runs none), a JobSet cannot be
    // admitted, and is refused rather than let through unchecked (failurePolicy Fail). A dry run writes nothing.
    const dir = mkdtempSync(join(tmpdir(), 'fleetq-k8s-'));
    const jobSet = join(dir, 'jobset.yaml');
    writeFileSync(
      jobSet,
      [
        'apiVersion: jobset.x-k8s.io/v1alpha2',
        'kind: JobSet',
        'metadata: { name: admission-probe, namespace: default }',
        'spec:',
        '  replicatedJobs:',
        '    - name: workers',
        '      replicas: 1',
        '      template: { spec: { template: { spec: { containers: [{ name: c, image: busybox }] } } } }',
        '',
      ].join('\n'),
    );
    await expect(k(['create', '--dry-run=server', '-f', jobSet])).rejects.toThrow(
      /failed calling webhook "mjobset\.kb\.io"[\s\S]*fleetq-admission\.fleetq-system\.svc:443\/mutate-jobset-x-k8s-io-v1alpha2-jobset/,
    );
  });

  it('serves LeaderWorkerSet admission from the same pods: lws’s webhooks registered, called for the pods they select', async () => {
    // components/leaderworkerset-admission turns it on in the admission Deployment.
    const [admission] = (await items('deployments')).filter((d) => d.metadata.name === 'fleetq-admission');
    const env = (
      admission?.spec?.template as { spec: { containers: Array<{ env: Array<{ name: string; value?: string }> }> } }
    ).spec.containers[0]?.env;
    expect(env).toContainEqual({ name: 'FLEETQ_ADMISSION_LEADERWORKERSET', value: 'true' });

    // The live configurations are the shipped ones (test/unit/infra/leaderworkerset-admission-webhooks.test.ts
    // holds those equal to upstream's), with the admission Service as client.
    const shipped = parseAllDocuments(readFileSync(LWS_WEBHOOKS, 'utf8')).map(
      (d) => d.toJS() as { kind: string; webhooks: Webhook[] },
    );
    for (const [kind, resource] of [
      ['MutatingWebhookConfiguration', 'mutatingwebhookconfiguration'],
      ['ValidatingWebhookConfiguration', 'validatingwebhookconfiguration'],
    ] as const) {
      const live = JSON.parse(await k(['get', resource, 'fleetq-leaderworkerset', '-o', 'json'])) as {
        webhooks: Array<Webhook & { objectSelector?: unknown }>;
      };
      const mine = shipped.find((c) => c.kind === kind)?.webhooks ?? [];
      expect(mine).toHaveLength(2);
      expect(live.webhooks.map(behaviour)).toEqual(mine.map(behaviour));
      // The apiserver defaults a missing objectSelector to {} (every object).
      const selector = (w: Webhook) => (w as { objectSelector?: unknown }).objectSelector ?? {};
      expect(live.webhooks.map(selector)).toEqual(mine.map(selector));
      expect(live.webhooks.map((w) => w.clientConfig)).toEqual(
        mine.map((w) => ({ service: { ...w.clientConfig.service, namespace: NS } })),
      );
    }

    // The apiserver calls them: a pod with the set's name label cannot be admitted with no admission process behind
    // the Service (kwok runs none), and is refused (failurePolicy Fail); a pod without it is not sent. Dry runs.
    const dir = mkdtempSync(join(tmpdir(), 'fleetq-k8s-'));
    const pod = (name: string, labels: string) => {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Pod',
          `metadata: { name: ${name}, namespace: default, labels: { ${labels} } }`,
          'spec: { containers: [{ name: c, image: busybox }] }',
          '',
        ].join('\n'),
      );
      return file;
    };
    await expect(
      k(['create', '--dry-run=server', '-f', pod('lws-probe-0', 'leaderworkerset.sigs.k8s.io/name: probe')]),
    ).rejects.toThrow(
      /failed calling webhook "mpod\.kb\.io"[\s\S]*fleetq-admission\.fleetq-system\.svc:443\/mutate--v1-pod/,
    );
    expect(await k(['create', '--dry-run=server', '-f', pod('plain-probe', 'app: plain')])).toMatch(
      /pod\/plain-probe created \(server dry run\)/,
    );
  });

  it('composes the admission components: JobSet, LeaderWorkerSet or both, each with or without cert-manager', async () => {
    const C = '../../components';
    const combinations = {
      jobset: [`${C}/jobset-admission`],
      lws: [`${C}/admission`, `${C}/leaderworkerset-admission`],
      both: [`${C}/jobset-admission`, `${C}/leaderworkerset-admission`],
      'jobset+cert-manager': [`${C}/jobset-admission`, `${C}/jobset-admission-cert-manager`],
      'lws+cert-manager': [
        `${C}/admission`,
        `${C}/leaderworkerset-admission`,
        `${C}/admission-cert-manager`,
        `${C}/leaderworkerset-admission-cert-manager`,
      ],
      'both+cert-manager': [
        `${C}/jobset-admission`,
        `${C}/leaderworkerset-admission`,
        `${C}/jobset-admission-cert-manager`,
        `${C}/leaderworkerset-admission-cert-manager`,
      ],
    };
    const render = async (components: string[]) =>
      parseAllDocuments(
        await k([
          'kustomize',
          overlay('admission', [
            'apiVersion: kustomize.config.k8s.io/v1beta1',
            'kind: Kustomization',
            `namespace: ${NS}`,
            'resources: [../../base]',
            `components: [${components.join(', ')}]`,
          ]),
        ]),
      )
        .map((d) => d.toJS() as Obj & { metadata: { annotations?: Record<string, string>; namespace?: string } })
        .filter((o) => o !== null);
    for (const [name, components] of Object.entries(combinations)) {
      const rendered = await render(components);
      const jobSet = name.startsWith('jobset') || name.startsWith('both');
      const lws = name.startsWith('lws') || name.startsWith('both');
      const certManager = name.endsWith('+cert-manager');
      const named = (kind: string) =>
        rendered
          .filter((o) => o.kind === kind)
          .map((o) => o.metadata.name)
          .filter((n) => n.startsWith('fleetq-admission') || n.startsWith('fleetq-jobset') || n.includes('leader'))
          .sort();
      // The function once, whichever kinds it admits.
      expect({
        name,
        deployments: named('Deployment'),
        services: named('Service'),
        pdbs: named('PodDisruptionBudget'),
      }).toEqual({
        name,
        deployments: ['fleetq-admission'],
        services: ['fleetq-admission'],
        pdbs: ['fleetq-admission'],
      });
      const webhookConfigs = [...(jobSet ? ['fleetq-jobset'] : []), ...(lws ? ['fleetq-leaderworkerset'] : [])];
      for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
        expect({ name, kind, configs: named(kind) }).toEqual({ name, kind, configs: webhookConfigs });
        for (const config of rendered.filter((o) => o.kind === kind)) {
          expect({ name, config: config.metadata.name, annotations: config.metadata.annotations ?? null }).toEqual({
            name,
            config: config.metadata.name,
            annotations: certManager ? { 'cert-manager.io/inject-ca-from': `${NS}/fleetq-admission` } : null,
          });
        }
      }
      const deployment = rendered.find((o) => o.kind === 'Deployment' && o.metadata.name === 'fleetq-admission');
      const env = (deployment?.spec?.template as { spec: { containers: Array<{ env: Array<{ name: string }> }> } }).spec
        .containers[0]?.env;
      expect({ name, lws: env?.some((e) => e.name === 'FLEETQ_ADMISSION_LEADERWORKERSET') }).toEqual({ name, lws });
      const certificate = rendered.find((o) => o.kind === 'Certificate');
      if (!certManager) {
        expect({ name, certificate: certificate ?? null }).toEqual({ name, certificate: null });
        continue;
      }
      expect(certificate?.metadata).toMatchObject({ name: 'fleetq-admission', namespace: NS });
      expect(certificate?.spec).toMatchObject({
        secretName: 'fleetq-admission-tls',
        // The name the apiserver verifies for a Service reference: <service>.<namespace>.svc.
        dnsNames: expect.arrayContaining(['fleetq-admission.fleetq-system.svc']),
        issuerRef: { name: 'fleetq-admission-selfsigned', kind: 'Issuer' },
      });
      expect(rendered.filter((o) => o.kind === 'Issuer').map((o) => o.spec)).toEqual([{ selfSigned: {} }]);
    }
    // A kind's component without the function, or its cert-manager component without the certificate, does not
    // build (rather than registering webhooks nothing answers, or a CA nothing issues).
    await expect(render([`${C}/leaderworkerset-admission`])).rejects.toThrow(
      /nothing selected by Service[^:]*fleetq-admission/,
    );
    await expect(
      render([`${C}/admission`, `${C}/leaderworkerset-admission`, `${C}/leaderworkerset-admission-cert-manager`]),
    ).rejects.toThrow(/nothing selected by Certificate[^:]*fleetq-admission/);
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
