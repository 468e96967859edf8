// The sandbox is a real control plane: the apiserver validates, watches stream, kwok runs pods,
// clusters are independent, and the kubectl it built talks to it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiException, AppsV1Api, CoreV1Api, Watch, type V1Pod } from '@kubernetes/client-node';
import {
  STANDARD_NODES,
  kubectl,
  kwokPodTemplate,
  sandboxCluster,
  testNamespace,
  type TestCluster,
} from '../helpers/sandbox/clusters.js';
import { waitFor } from '../../infra/sandbox/process.js';

describe('sandbox kube-apiserver', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  beforeAll(async () => {
    c = await sandboxCluster('fleetq-1');
    ns = await testNamespace(c.kc);
  });
  afterAll(async () => ns.remove());

  it('rejects an invalid Deployment with 422 and the field error', async () => {
    const apps = c.kc.makeApiClient(AppsV1Api);
    const labels = { app: 'invalid' };
    const err = await apps
      .createNamespacedDeployment({
        namespace: ns.name,
        body: {
          metadata: { name: 'invalid' },
          spec: { replicas: -1, selector: { matchLabels: labels }, template: kwokPodTemplate(labels) },
        },
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApiException);
    const apiErr = err as ApiException<string>;
    expect(apiErr.code).toBe(422);
    const status = JSON.parse(apiErr.body) as {
      reason: string;
      details: { causes: { field: string; message: string }[] };
    };
    expect(status.reason).toBe('Invalid');
    expect(status.details.causes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field: 'spec.replicas',
          message: expect.stringContaining('greater than or equal to 0'),
        }),
      ]),
    );
  });

  it('streams ADDED then MODIFIED pod events from a resourceVersion as kwok makes the pod Running and Ready', async () => {
    const core = c.kc.makeApiClient(CoreV1Api);
    const list = await core.listNamespacedPod({ namespace: ns.name });
    const fromRv = list.metadata?.resourceVersion;
    expect(fromRv).toBeTruthy();
    const events: { type: string; phase?: string; ready: boolean }[] = [];
    const abort = await new Watch(c.kc).watch(
      `/api/v1/namespaces/${ns.name}/pods`,
      { resourceVersion: fromRv, allowWatchBookmarks: true },
      (type: string, pod: V1Pod) => {
        if (type === 'BOOKMARK') return;
        const ready = (pod.status?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True');
        events.push({ type, phase: pod.status?.phase, ready });
      },
      () => undefined,
    );
    try {
      const template = kwokPodTemplate({ app: 'watched' });
      await core.createNamespacedPod({
        namespace: ns.name,
        body: { metadata: { name: 'watched' }, spec: template.spec },
      });
      await waitFor(
        async () => events.some((e) => e.type === 'MODIFIED' && e.phase === 'Running' && e.ready),
        60_000,
        100,
        'a Running+Ready MODIFIED event',
      );
      expect(events[0]).toMatchObject({ type: 'ADDED', phase: 'Pending', ready: false });
      const pod = await core.readNamespacedPod({ namespace: ns.name, name: 'watched' });
      expect(pod.spec?.nodeName).toMatch(/^kwok-node-/);
    } finally {
      abort.abort();
    }
  });

  it('has its kwok nodes, and the kubectl built with it lists them', async () => {
    const out = await kubectl(c.state, ['get', 'nodes', '-l', 'type=kwok', '-o', 'name']);
    const names = out.trim().split('\n').sort();
    expect(names).toEqual(Array.from({ length: STANDARD_NODES }, (_, i) => `node/kwok-node-${i}`));
    const version = await kubectl(c.state, ['version', '-o', 'json']);
    const parsed = JSON.parse(version) as {
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    };
    expect(parsed.serverVersion.gitVersion).toMatch(/^v1\.\d+\.\d+$/);
    expect(parsed.clientVersion.gitVersion).toBe(parsed.serverVersion.gitVersion);
  });
});

describe('two sandbox clusters', () => {
  it('are independent: an object created in one is absent in the other', async () => {
    const a = await sandboxCluster('fleetq-1');
    const b = await sandboxCluster('fleetq-2');
    expect(a.state.server).not.toBe(b.state.server);
    const ns = await testNamespace(a.kc);
    try {
      await a.kc
        .makeApiClient(CoreV1Api)
        .createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'only-in-a' }, data: { k: 'v' } } });
      const inA = await a.kc
        .makeApiClient(CoreV1Api)
        .readNamespacedConfigMap({ namespace: ns.name, name: 'only-in-a' });
      expect(inA.data).toEqual({ k: 'v' });
      const inB = await b.kc
        .makeApiClient(CoreV1Api)
        .readNamespace({ name: ns.name })
        .then(
          () => 'found',
          (e: unknown) => (e instanceof ApiException ? e.code : e),
        );
      expect(inB).toBe(404);
    } finally {
      await ns.remove();
    }
  });
});
