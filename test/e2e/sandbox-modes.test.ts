// The two sandbox modes: `upstream` runs kube-controller-manager's workload controllers, `fleetq` runs
// the controller-manager without them (garbage collector and the rest still on).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, Watch, type V1Deployment } from '@kubernetes/client-node';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { waitFor } from '../../infra/sandbox/process.js';

function deployment(name: string, replicas: number): V1Deployment {
  const labels = { app: name };
  return {
    metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, template: kwokPodTemplate(labels) },
  };
}

describe('upstream mode', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  beforeAll(async () => {
    c = await sandboxCluster('upstream-1');
    ns = await testNamespace(c.kc);
  });
  afterAll(async () => ns.remove());

  it('brings a Deployment of 3 replicas to 3 available replicas', async () => {
    const apps = c.kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: ns.name, body: deployment('web', 3) });
    let last: V1Deployment | undefined;
    await waitFor(
      async () => {
        last = await apps.readNamespacedDeployment({ namespace: ns.name, name: 'web' });
        return last.status?.availableReplicas === 3;
      },
      90_000,
      250,
      'deployment web to have 3 available replicas',
    );
    expect(last?.status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3 });
    const pods = await c.kc
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: ns.name, labelSelector: 'app=web' });
    expect(pods.items.filter((p) => p.status?.phase === 'Running')).toHaveLength(3);
  });
});

describe('fleetq mode', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  beforeAll(async () => {
    c = await sandboxCluster('fleetq-1');
    ns = await testNamespace(c.kc);
  });
  afterAll(async () => ns.remove());

  it('creates no ReplicaSet for a Deployment within 10 s (the workload controllers are off)', async () => {
    const apps = c.kc.makeApiClient(AppsV1Api);
    const seen: string[] = [];
    const list = await apps.listNamespacedReplicaSet({ namespace: ns.name });
    const abort = await new Watch(c.kc).watch(
      `/apis/apps/v1/namespaces/${ns.name}/replicasets`,
      { resourceVersion: list.metadata?.resourceVersion },
      (type: string) => seen.push(type),
      () => undefined,
    );
    try {
      await apps.createNamespacedDeployment({ namespace: ns.name, body: deployment('web', 3) });
      // The claim is an absence over a fixed window: watch for the whole 10 s and expect no event.
      const windowEnd = Date.now() + 10_000;
      await waitFor(async () => seen.length > 0 || Date.now() >= windowEnd, 15_000, 100, 'the 10 s window');
      expect(seen).toEqual([]);
      const rs = await apps.listNamespacedReplicaSet({ namespace: ns.name });
      expect(rs.items).toHaveLength(0);
      const d = await apps.readNamespacedDeployment({ namespace: ns.name, name: 'web' });
      expect(d.status?.observedGeneration).toBeUndefined();
    } finally {
      abort.abort();
    }
  });

  it('still runs the garbage collector: a dependent goes when its owner is deleted', async () => {
    const core = c.kc.makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'owner' } } });
    await core.createNamespacedConfigMap({
      namespace: ns.name,
      body: {
        metadata: {
          name: 'dependent',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '' }],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ namespace: ns.name, name: 'owner' });
    await waitFor(
      async () =>
        !(await core.listNamespacedConfigMap({ namespace: ns.name })).items.some(
          (x) => x.metadata?.name === 'dependent',
        ),
      60_000,
      250,
      'the garbage collector to delete the dependent ConfigMap',
    );
  });
});
