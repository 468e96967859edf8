// LeaderWorkerSet under fleetq's handlers on a fleetq-mode sandbox cluster of this test's own (its own sandbox root,
// so nothing collides with the shared sandbox): the cluster gets the LWS CRD from LeaderWorkerSet's registered
// descriptor (sandboxKindOptions), fleetq's LWS webhooks as infra/k8s/components/leaderworkerset-admission ships
// them (its webhooks.yaml, each Service client turned into a URL of the admission server this process runs with
// serveLeaderWorkerSet and a serving certificate of the sandbox CA), and fleetq's roles (infra/k8s/*-rbac.yaml) for
// the kinds its entry owns: StatefulSet (kube-controller-manager's StatefulSet controller is off in fleetq mode),
// LeaderWorkerSet and LeaderWorkerSetPod. fleetq runs all-in-one (forwarder and workers in this process) as the
// ServiceAccounts fleetq-forwarder and fleetq-handler. A LeaderWorkerSet of 2 groups of 3 reaches Available; its
// pods carry the group-index and worker-index labels and the LWS_* env that fleetq's pod webhook sets.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CoreV1Api,
  KubernetesObjectApi,
  type KubeConfig,
  type KubernetesObject,
  type V1Pod,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { startAllInOne, type AllInOne } from '../../functions/all-in-one.js';
import { sandboxKindOptions } from '../../infra/sandbox/kind-options.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { ensurePki, issueServingCert } from '../../infra/sandbox/pki.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { ensureFleetqRbac } from '../../infra/sandbox/rbac.js';
import { startAdmissionServer, type RunningAdmissionServer } from '../../shared/admission/server.js';
import { optInKinds } from '../../shared/controllers/roles.js';
import type { Kind } from '../../shared/kube/kinds.js';
import { ClusterRegistry, type ClusterConfig } from '../../shared/kube/registry.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';
import { downAndRemove, upOneCluster } from '../helpers/one-cluster.js';

const CLUSTER = 'lws-fleetq';
const NAMESPACE = 'lws-fleetq';
const OWNS: readonly Kind[] = ['StatefulSet', 'LeaderWorkerSet', 'LeaderWorkerSetPod'] as Kind[];
const NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';
const GROUP_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/group-index';
const WORKER_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/worker-index';

type Webhook = {
  name: string;
  clientConfig: { url?: string; caBundle?: string; service?: { path: string } };
};
type WebhookConfiguration = KubernetesObject & { webhooks: Webhook[] };
type LeaderWorkerSet = KubernetesObject & {
  status?: { conditions?: Array<{ type: string; status: string }>; readyReplicas?: number };
};

/** The component's webhook configurations, calling the admission server at `port` with the sandbox CA. */
function shippedWebhooks(port: number, caBundle: string): WebhookConfiguration[] {
  const file = new URL('../../infra/k8s/components/leaderworkerset-admission/webhooks.yaml', import.meta.url);
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    const c = d.toJS() as WebhookConfiguration;
    return {
      ...c,
      metadata: { ...c.metadata, name: `${c.metadata?.name}-it` },
      webhooks: c.webhooks.map((w) => ({
        ...w,
        clientConfig: { url: `https://127.0.0.1:${port}${w.clientConfig.service?.path}`, caBundle },
      })),
    };
  });
}

function leaderWorkerSet(name: string, replicas: number, size: number): KubernetesObject & { spec: unknown } {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name, namespace: NAMESPACE },
    spec: { replicas, leaderWorkerTemplate: { size, workerTemplate: kwokPodTemplate({ app: name }) } },
  };
}

const isAvailable = (lws: LeaderWorkerSet | undefined): boolean =>
  lws?.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ?? false;

describe('LeaderWorkerSet under fleetq on a fleetq-mode cluster', () => {
  // Made when the tests run (a filtered run that skips them leaves nothing behind).
  let root = '';
  let kc: KubeConfig;
  let admission: RunningAdmissionServer | undefined;
  let fleetq: AllInOne | undefined;
  const webhooks: WebhookConfiguration[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'fleetq-sandbox-lws-fleetq-'));
    // Every registered kind's CRD (LeaderWorkerSet's from its descriptor); no add-on runs in fleetq mode.
    const kinds = sandboxKindOptions();
    expect(kinds.some((k) => k.kind === 'LeaderWorkerSet')).toBe(true);
    const up = await upOneCluster({
      spec: { name: CLUSTER, mode: SandboxMode.Fleetq },
      root,
      kinds,
      namespace: NAMESPACE,
    });
    kc = up.kc;

    const pki = ensurePki(root);
    const tls = issueServingCert(pki, join(root, 'fleetq-admission-tls'), 'fleetq-admission');
    admission = await startAdmissionServer({
      port: 0,
      host: '127.0.0.1',
      cert: readFileSync(join(tls, 'tls.crt')),
      key: readFileSync(join(tls, 'tls.key')),
      serveLeaderWorkerSet: true,
    });
    const objects = KubernetesObjectApi.makeApiClient(kc);
    for (const c of shippedWebhooks(admission.port, readFileSync(pki.caCert).toString('base64'))) {
      await objects.create(c);
      webhooks.push(c);
    }
    // The configurations take effect a moment later: a dry-run create comes back defaulted by the LWS webhook.
    await waitFor(
      async () => {
        const probe = (await objects
          .create(leaderWorkerSet('probe', 1, 2), undefined, 'All')
          .catch(() => undefined)) as { spec?: { networkConfig?: { subdomainPolicy?: string } } } | undefined;
        return probe?.spec?.networkConfig?.subdomainPolicy === 'Shared';
      },
      30_000,
      200,
      "fleetq's LeaderWorkerSet webhooks to take effect",
    );

    const optIn = optInKinds().filter((k) => (OWNS as readonly string[]).includes(k));
    expect(optIn).toEqual(['StatefulSet', 'LeaderWorkerSet', 'LeaderWorkerSetPod']);
    const credentials = await ensureFleetqRbac(kc, { dir: join(root, 'rbac'), optIn });
    const registry = (tokenFile: string): ClusterRegistry => {
      const entry: ClusterConfig = {
        name: CLUSTER,
        owns: OWNS,
        limits: { qps: 100, burst: 200 },
        connection: {
          type: 'token',
          server: credentials.server,
          tokenFile,
          caFile: credentials.caFile,
          insecureSkipTLSVerify: false,
        },
      };
      return new ClusterRegistry([entry]);
    };
    fleetq = await startAllInOne({
      config: loadConfig({}, { FLEETQ_DRIVER: 'memory', FLEETQ_CONCURRENCY: '4', LOG_LEVEL: 'error' }),
      registry: registry(credentials.tokenFiles.handler),
      forwarderRegistry: registry(credentials.tokenFiles.forwarder),
      dataDir: join(root, 'fleetq'),
      env: {},
    });
  }, 15 * 60_000);

  afterAll(async () => {
    await fleetq?.stop();
    if (root === '') return;
    const objects = KubernetesObjectApi.makeApiClient(kc);
    for (const c of webhooks) await objects.delete(c).catch(() => undefined);
    await admission?.close();
    await downAndRemove(root);
  });

  it('an LWS of 2 groups of 3 becomes Available, its pods labelled and given the LWS_* env by the pod webhook', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await objects.create(leaderWorkerSet('lws', 2, 3));
    let last: LeaderWorkerSet | undefined;
    await waitFor(
      async () => {
        last = (await objects.read({
          apiVersion: 'leaderworkerset.x-k8s.io/v1',
          kind: 'LeaderWorkerSet',
          metadata: { name: 'lws', namespace: NAMESPACE },
        })) as LeaderWorkerSet;
        return isAvailable(last);
      },
      40_000,
      250,
      'the LeaderWorkerSet to become Available',
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; its status: ${JSON.stringify(last?.status)}`);
    });
    expect(last?.status?.readyReplicas).toBe(2);

    const pods = (
      await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: NAMESPACE, labelSelector: `${NAME_LABEL}=lws` })
    ).items;
    const summary = (p: V1Pod) => {
      const env = Object.fromEntries((p.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
      return {
        name: p.metadata?.name,
        group: p.metadata?.labels?.[GROUP_INDEX_LABEL],
        worker: p.metadata?.labels?.[WORKER_INDEX_LABEL],
        leaderAddress: env.LWS_LEADER_ADDRESS,
        size: env.LWS_GROUP_SIZE,
        index: env.LWS_WORKER_INDEX,
      };
    };
    const want = (group: number, worker: number) => ({
      name: worker === 0 ? `lws-${group}` : `lws-${group}-${worker}`,
      group: String(group),
      worker: String(worker),
      leaderAddress: `lws-${group}.lws.${NAMESPACE}`,
      size: '3',
      index: String(worker),
    });
    expect(pods.map(summary).sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual([
      want(0, 0),
      want(0, 1),
      want(0, 2),
      want(1, 0),
      want(1, 1),
      want(1, 2),
    ]);
  });
});
