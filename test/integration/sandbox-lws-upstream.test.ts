// LeaderWorkerSet's upstream controller as a sandbox add-on (infra/sandbox/lws-controller.ts): one upstream-mode
// cluster of its own (its own sandbox root, so it never touches the shared sandbox) that asks for the add-on
// (`addOns: ['lws-controller']`: it runs only where asked), given LeaderWorkerSet's kind option explicitly
// (upstream's CRD from the sigs.k8s.io/lws module). Upstream's manager makes the leader StatefulSet, kube-controller-
// manager's StatefulSet controller its pods, the manager a worker StatefulSet per leader pod, and its pod webhook
// labels every pod and gives it the LWS_* env; its validating webhook refuses a LeaderWorkerSet of size 0.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AppsV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  type KubeConfig,
  type KubernetesObject,
  type V1Pod,
  type V1StatefulSet,
} from '@kubernetes/client-node';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { addOnsFor, sandboxKindOptions } from '../../infra/sandbox/kind-options.js';
import { LWS_CONTROLLER, LWS_CRD } from '../../infra/sandbox/lws-controller.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { ensurePki } from '../../infra/sandbox/pki.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { kwokPodTemplate } from '../helpers/sandbox/clusters.js';
import { downAndRemove, upOneCluster } from '../helpers/one-cluster.js';

const KINDS = sandboxKindOptions({
  crds: [{ kind: 'LeaderWorkerSet', file: LWS_CRD }],
  upstreamControllers: [{ kind: 'LeaderWorkerSet', name: LWS_CONTROLLER, runs: 'add-on' }],
});

const NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';
const GROUP_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/group-index';
const WORKER_INDEX_LABEL = 'leaderworkerset.sigs.k8s.io/worker-index';
const GROUP_KEY_LABEL = 'leaderworkerset.sigs.k8s.io/group-key';

function leaderWorkerSet(
  name: string,
  namespace: string,
  replicas: number,
  size: number,
): KubernetesObject & { spec: unknown } {
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name, namespace },
    spec: { replicas, leaderWorkerTemplate: { size, workerTemplate: kwokPodTemplate({ app: name }) } },
  };
}

/** The pod webhook's group key: SHA-1 of `<namespace>/<leader pod name>` (pod_webhook.go genGroupUniqueKey). */
const groupKey = (namespace: string, leader: string): string =>
  createHash('sha1').update(`${namespace}/${leader}`).digest('hex');

describe('LeaderWorkerSet upstream controller in the sandbox', () => {
  const root = mkdtempSync(join(tmpdir(), 'fleetq-sandbox-lws-'));
  let cluster: ClusterState;
  let kc: KubeConfig;
  const namespace = 'lws-test';

  beforeAll(async () => {
    ({ cluster, kc } = await upOneCluster({
      spec: { name: 'lws-upstream', mode: SandboxMode.Upstream, addOns: [LWS_CONTROLLER] },
      root,
      kinds: KINDS,
      namespace,
    }));
  }, 15 * 60_000);

  afterAll(() => downAndRemove(root));

  it('runs the add-on where asked only, with both CRDs and its webhooks on 127.0.0.1 with the sandbox CA', async () => {
    expect(Object.keys(cluster.addOns ?? {})).toEqual([LWS_CONTROLLER]);
    expect(addOnsFor(KINDS, { name: 'upstream-1', mode: SandboxMode.Upstream })).toEqual([]);
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const served = await objects.list('disaggregatedset.x-k8s.io/v1', 'DisaggregatedSet', namespace);
    expect(served.items).toEqual([]);
    type Configuration = KubernetesObject & {
      webhooks: Array<{ name: string; clientConfig: { url?: string; caBundle?: string } }>;
    };
    const read = async (kind: string, name: string) =>
      (await objects.read({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind,
        metadata: { name },
      })) as Configuration;
    const urls = (c: Configuration) =>
      c.webhooks.map((w) => [w.name, w.clientConfig.url?.replace(/:\d+\//, ':<port>/')]);
    const mutating = await read('MutatingWebhookConfiguration', 'lws-mutating-webhook-configuration');
    const validating = await read('ValidatingWebhookConfiguration', 'lws-validating-webhook-configuration');
    expect(urls(mutating)).toEqual([
      ['mleaderworkerset.kb.io', 'https://127.0.0.1:<port>/mutate-leaderworkerset-x-k8s-io-v1-leaderworkerset'],
      ['mpod.kb.io', 'https://127.0.0.1:<port>/mutate--v1-pod'],
    ]);
    expect(urls(validating)).toEqual([
      ['vleaderworkerset.kb.io', 'https://127.0.0.1:<port>/validate-leaderworkerset-x-k8s-io-v1-leaderworkerset'],
      ['vpod.kb.io', 'https://127.0.0.1:<port>/validate--v1-pod'],
      ['vdisaggregatedset.kb.io', 'https://127.0.0.1:<port>/validate-disaggregatedset-x-k8s-io-v1-disaggregatedset'],
    ]);
    const ca = readFileSync(ensurePki(root).caCert).toString('base64');
    expect([...mutating.webhooks, ...validating.webhooks].every((w) => w.clientConfig.caBundle === ca)).toBe(true);
  });

  it('makes the leader StatefulSet, a worker StatefulSet per leader pod, and 6 labelled pods with LWS_* env', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const created = (await objects.create(leaderWorkerSet('lws', namespace, 2, 3))) as KubernetesObject & {
      spec: { networkConfig?: { subdomainPolicy?: string } };
    };
    expect(created.spec.networkConfig).toEqual({ subdomainPolicy: 'Shared' }); // the mutating webhook's default

    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    let sets: V1StatefulSet[] = [];
    let pods: V1Pod[] = [];
    await waitFor(
      async () => {
        sets = (await apps.listNamespacedStatefulSet({ namespace })).items;
        pods = (await core.listNamespacedPod({ namespace })).items;
        return sets.length === 3 && pods.length === 6;
      },
      90_000,
      250,
      `3 StatefulSets and 6 pods of the LeaderWorkerSet (have ${sets.length} and ${pods.length}; log ${join(cluster.dir, 'logs', `${LWS_CONTROLLER}.log`)})`,
    );

    const set = (name: string) => sets.find((s) => s.metadata?.name === name);
    expect(sets.map((s) => s.metadata?.name).sort()).toEqual(['lws', 'lws-0', 'lws-1']);
    expect(set('lws')?.spec?.replicas).toBe(2);
    expect(set('lws')?.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.controller])).toEqual([
      ['LeaderWorkerSet', 'lws', true],
    ]);
    for (const group of ['0', '1']) {
      const workers = set(`lws-${group}`);
      expect(workers?.spec?.replicas).toBe(2);
      expect(workers?.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.controller])).toEqual([
        ['Pod', `lws-${group}`, true],
      ]);
      expect(workers?.metadata?.labels).toMatchObject({
        [NAME_LABEL]: 'lws',
        [GROUP_INDEX_LABEL]: group,
        [GROUP_KEY_LABEL]: groupKey(namespace, `lws-${group}`),
      });
    }

    const byName = new Map(pods.map((p) => [p.metadata?.name ?? '', p]));
    expect([...byName.keys()].sort()).toEqual(['lws-0', 'lws-0-1', 'lws-0-2', 'lws-1', 'lws-1-1', 'lws-1-2']);
    for (const [name, pod] of byName) {
      const [, group = '', worker = '0'] = name.split('-');
      expect({ name, labels: pod.metadata?.labels }).toMatchObject({
        name,
        labels: {
          [NAME_LABEL]: 'lws',
          [GROUP_INDEX_LABEL]: group,
          [WORKER_INDEX_LABEL]: worker,
          [GROUP_KEY_LABEL]: groupKey(namespace, `lws-${group}`),
        },
      });
      expect({ name, env: pod.spec?.containers[0]?.env }).toMatchObject({
        name,
        env: expect.arrayContaining([{ name: 'LWS_LEADER_ADDRESS', value: `lws-${group}.lws.${namespace}` }]),
      });
    }
  });

  it('refuses a LeaderWorkerSet of size 0 with upstream validation message (validating webhook)', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const refusal = await objects.create(leaderWorkerSet('bad', namespace, 1, 0)).then(
      () => undefined,
      (err: unknown) => err as { code?: number; body?: unknown },
    );
    // controller-runtime answers a validator's plain aggregate error as a denial with code 403.
    expect(refusal?.code).toBe(403);
    expect((JSON.parse(String(refusal?.body)) as { message: string }).message).toBe(
      'admission webhook "vleaderworkerset.kb.io" denied the request: spec.leaderWorkerTemplate.size: Invalid value: 0: size must be equal or greater than 1',
    );
  });
});
