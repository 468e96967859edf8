// A Deployment whose new ReplicaSet the apiserver refuses (a ResourceQuota on ReplicaSets): fleetq writes
// Progressing=False / ReplicaSetCreateError as kube-controller-manager does, and the rollout goes on once
// the quota allows it. Sandbox fleetq-1 (no workload controllers), reconciles driven through the runtime.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type V1Deployment } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import type { Controller } from '../../shared/controllers/controller.js';
import { deploymentController } from '../../shared/controllers/deployment/index.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
const LABELS = { app: 'quota' };

describe('Deployment whose new ReplicaSet is refused', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let apps: AppsV1Api;
  let core: CoreV1Api;
  let queue: MemoryQueue;
  let deps: ReconcileDeps;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    apps = c.kc.makeApiClient(AppsV1Api);
    core = c.kc.makeApiClient(CoreV1Api);
    queue = new MemoryQueue();
    deps = inProcessDeps(c, {
      owns: ['Deployment'],
      controllers: [['Deployment', deploymentController as Controller]],
      queue,
      service: 'deployment-quota-it',
    });
  });
  afterAll(async () => {
    await queue?.close();
    await ns?.remove();
  });

  async function reconcile(): Promise<void> {
    await queue.add({ cluster: CLUSTER, kind: 'Deployment', namespace: ns.name, name: 'quota' });
    const lease = await queue.get(5_000);
    if (lease) await reconcileOne(deps, lease);
  }
  const read = () => apps.readNamespacedDeployment({ namespace: ns.name, name: 'quota' });
  const progressing = (d: V1Deployment) => d.status?.conditions?.find((x) => x.type === 'Progressing');

  it('sets ReplicaSetCreateError while the quota refuses, and creates the ReplicaSet once it allows', async () => {
    await core.createNamespacedResourceQuota({
      namespace: ns.name,
      body: { metadata: { name: 'rs' }, spec: { hard: { 'count/replicasets.apps': '1' } } },
    });
    await waitFor(
      async () =>
        (await core.readNamespacedResourceQuota({ namespace: ns.name, name: 'rs' })).status?.used !== undefined,
      30_000,
      100,
      'the quota to be counted',
    );
    const template = kwokPodTemplate(LABELS);
    await apps.createNamespacedDeployment({
      namespace: ns.name,
      body: { metadata: { name: 'quota' }, spec: { replicas: 1, selector: { matchLabels: LABELS }, template } },
    });
    await waitFor(
      async () => (await reconcile(), (await apps.listNamespacedReplicaSet({ namespace: ns.name })).items.length === 1),
      30_000,
      100,
      'the first ReplicaSet',
    );
    await waitFor(
      async () =>
        (await core.readNamespacedResourceQuota({ namespace: ns.name, name: 'rs' })).status?.used?.[
          'count/replicasets.apps'
        ] === '1',
      30_000,
      100,
      'the quota to count the first ReplicaSet',
    );

    const d = await read();
    d.spec!.template.spec!.containers[0]!.image = 'registry.example/app:2';
    await apps.replaceNamespacedDeployment({ namespace: ns.name, name: 'quota', body: d });
    let cond: ReturnType<typeof progressing>;
    await waitFor(
      async () => {
        await reconcile();
        cond = progressing(await read());
        return cond?.reason === 'ReplicaSetCreateError';
      },
      30_000,
      100,
      'the ReplicaSetCreateError condition',
    );
    expect(cond).toMatchObject({
      status: 'False',
      message: expect.stringMatching(
        /^Failed to create new replica set "quota-[a-z0-9]+": replicasets\.apps "quota-[a-z0-9]+" is forbidden: exceeded quota: rs/,
      ),
    });
    expect((await apps.listNamespacedReplicaSet({ namespace: ns.name })).items).toHaveLength(1);

    await core.deleteNamespacedResourceQuota({ namespace: ns.name, name: 'rs' });
    await waitFor(
      async () => {
        await reconcile();
        return (
          (await apps.listNamespacedReplicaSet({ namespace: ns.name })).items.length === 2 &&
          progressing(await read())?.status === 'True'
        );
      },
      30_000,
      100,
      'the new ReplicaSet once the quota is gone',
    );
    expect(progressing(await read())?.reason).toBe('NewReplicaSetCreated');
  });
});
