// The ReplicaSet controller against a real kube-apiserver (sandbox fleetq-1, whose controller-manager runs no
// workload controllers): reconciles are driven in-process through the real runtime (reconcileOne, MemoryQueue,
// live cluster view, writer), and kwok makes scheduled pods Running and Ready.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type V1Pod, type V1ReplicaSet } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import type { Controller, PlanResult } from '../../shared/controllers/controller.js';
import { replicaSetController } from '../../shared/controllers/replicaset/index.js';
import type { ObservedReplicaSet } from '../../shared/controllers/replicaset/types.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
const NAME = 'web';
const LABELS = { app: 'rs-it' };

describe('ReplicaSet controller on a real apiserver', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let apps: AppsV1Api;
  let core: CoreV1Api;
  let queue: MemoryQueue;
  let deps: ReconcileDeps;
  let lastPlan: PlanResult | undefined;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    apps = c.kc.makeApiClient(AppsV1Api);
    core = c.kc.makeApiClient(CoreV1Api);
    queue = new MemoryQueue();
    // The real controller, with its last plan kept so the test knows when a pass had nothing left to do.
    const recording: Controller<ObservedReplicaSet> = {
      ...replicaSetController,
      plan: (o, now) => (lastPlan = replicaSetController.plan(o, now)),
    };
    deps = inProcessDeps(c, {
      owns: ['ReplicaSet'],
      controllers: [['ReplicaSet', recording as Controller]],
      queue,
      service: 'replicaset-it',
    });
    await apps.createNamespacedReplicaSet({
      namespace: ns.name,
      body: {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: NAME },
        spec: { replicas: 0, selector: { matchLabels: LABELS }, template: kwokPodTemplate(LABELS) },
      },
    });
  });

  afterAll(async () => {
    await queue?.close();
    await ns?.remove();
  });

  const key = () => ({ cluster: CLUSTER, kind: 'ReplicaSet', namespace: ns.name, name: NAME });
  const readRs = () => apps.readNamespacedReplicaSet({ namespace: ns.name, name: NAME });
  const activePods = async (): Promise<V1Pod[]> =>
    (await core.listNamespacedPod({ namespace: ns.name })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const requests = () => deps.clients(CLUSTER).rest.requestCount;

  /** One reconcile of the key through the runtime; returns whether its plan had actions. */
  async function reconcile(): Promise<boolean> {
    await queue.add(key());
    const lease = await queue.get(5_000);
    if (!lease) throw new Error('the queue handed out no lease');
    lastPlan = undefined;
    const outcome = await reconcileOne(deps, lease);
    if (outcome === 'dead-lettered' || outcome === 'lease-lost') throw new Error(`reconcile ended ${outcome}`);
    const plan = lastPlan as PlanResult | undefined; // set by the recording controller during reconcileOne
    return outcome !== 'done' && outcome !== 'requeued' ? true : (plan?.actions.length ?? 0) > 0;
  }

  /** Reconciles until a pass plans nothing (what a queue fed by watch events would do). */
  async function settle(): Promise<void> {
    for (let i = 0; i < 30; i++) if (!(await reconcile())) return;
    throw new Error('the ReplicaSet did not settle in 30 passes');
  }

  async function scale(replicas: number): Promise<V1ReplicaSet> {
    const rs = await readRs();
    return apps.replaceNamespacedReplicaSet({
      namespace: ns.name,
      name: NAME,
      body: { ...rs, spec: { ...rs.spec!, replicas } },
    });
  }

  /** Reconciles as pod events would trigger it until the status shows `n` available pods. */
  async function untilAvailable(n: number): Promise<void> {
    await waitFor(
      async () => {
        await settle();
        const rs = await readRs();
        return rs.status?.availableReplicas === n && rs.status.replicas === n && (await activePods()).length === n;
      },
      60_000,
      300,
      `${n} available replicas`,
    );
  }

  it('scale 0 → 5 creates 5 pods it controls, and the status reaches 5 available', async () => {
    await settle();
    expect(await activePods()).toHaveLength(0);
    const rs = await scale(5);
    expect(await reconcile()).toBe(true);
    const pods = await activePods();
    expect(pods).toHaveLength(5);
    for (const p of pods) {
      expect(p.metadata?.generateName).toBe(`${NAME}-`);
      expect(p.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: NAME,
          uid: rs.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    await untilAvailable(5);
    const status = (await readRs()).status;
    expect(status).toMatchObject({ replicas: 5, fullyLabeledReplicas: 5, readyReplicas: 5, terminatingReplicas: 0 });
    expect(status?.observedGeneration).toBe((await readRs()).metadata?.generation);
  });

  it('a steady-state pass reads with 2 API requests and writes nothing', async () => {
    const before = requests();
    expect(await reconcile()).toBe(false);
    expect(requests() - before).toBe(2);
  });

  it('scale 5 → 2 deletes 3 pods', async () => {
    const before = new Set((await activePods()).map((p) => p.metadata?.name));
    await scale(2);
    expect(await reconcile()).toBe(true);
    expect(lastPlan?.actions.filter((a) => a.type === 'delete')).toHaveLength(3);
    const left = await activePods();
    expect(left).toHaveLength(2);
    for (const p of left) expect(before.has(p.metadata?.name)).toBe(true);
    await untilAvailable(2);
  });

  it('adopts a matching orphan pod', async () => {
    const rs = await readRs();
    await core.createNamespacedPod({
      namespace: ns.name,
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'orphan', labels: LABELS },
        spec: kwokPodTemplate(LABELS).spec!,
      },
    });
    // The adoption pass may meet a 409 when kwok updated the pod in between: re-read and try again.
    await waitFor(
      async () => {
        await reconcile();
        const pod = await core.readNamespacedPod({ namespace: ns.name, name: 'orphan' });
        return pod.metadata?.ownerReferences?.some((r) => r.uid === rs.metadata?.uid && r.controller) ?? false;
      },
      30_000,
      100,
      'the orphan to be adopted',
    );
    // Now 3 pods for 2 replicas: the next passes delete one.
    await untilAvailable(2);
  });

  it('releases a pod relabelled out of its selector (by patch: the pod keeps its other fields) and replaces it', async () => {
    const rs = await readRs();
    const [victim] = (await activePods()).filter((p) =>
      p.metadata?.ownerReferences?.some((r) => r.uid === rs.metadata?.uid),
    );
    if (!victim?.metadata?.name) throw new Error('no pod of the ReplicaSet to relabel');
    const name = victim.metadata.name;
    // Relabel by read + replace (kwok may update the pod in between: a 409 is retried).
    await waitFor(
      async () => {
        const pod = await core.readNamespacedPod({ namespace: ns.name, name });
        const body = { ...pod, metadata: { ...pod.metadata, labels: { app: 'strayed' } } };
        return core.replaceNamespacedPod({ namespace: ns.name, name, body }).then(
          () => true,
          () => false,
        );
      },
      10_000,
      50,
      'the relabel',
    );
    await waitFor(
      async () => {
        await reconcile();
        const pod = await core.readNamespacedPod({ namespace: ns.name, name });
        return !(pod.metadata?.ownerReferences ?? []).some((r) => r.uid === rs.metadata?.uid);
      },
      30_000,
      100,
      'the relabelled pod to be released',
    );
    const released = await core.readNamespacedPod({ namespace: ns.name, name });
    expect(released.metadata?.uid).toBe(victim.metadata.uid);
    expect(released.metadata?.labels).toEqual({ app: 'strayed' });
    await core.deleteNamespacedPod({ namespace: ns.name, name, gracePeriodSeconds: 0 });
    await waitFor(
      async () => (await core.listNamespacedPod({ namespace: ns.name })).items.every((p) => p.metadata?.name !== name),
      30_000,
      100,
      'the released pod to be gone',
    );
    await untilAvailable(2);
  });

  it('a deleted pod is replaced', async () => {
    const [victim] = await activePods();
    await core.deleteNamespacedPod({ namespace: ns.name, name: victim!.metadata!.name! });
    expect(await reconcile()).toBe(true);
    expect(lastPlan?.actions.filter((a) => a.type === 'create')).toHaveLength(1);
    await untilAvailable(2);
    expect((await activePods()).map((p) => p.metadata?.name)).not.toContain(victim!.metadata!.name);
  });

  it('sets ReplicaFailure (FailedCreate) when a quota rejects creates, and clears it once creates succeed', async () => {
    await core.createNamespacedResourceQuota({
      namespace: ns.name,
      body: { metadata: { name: 'pods' }, spec: { hard: { pods: '3' } } },
    });
    // The resource-quota controller (it runs in fleetq mode) must have counted usage before admission enforces it.
    await waitFor(
      async () =>
        (await core.readNamespacedResourceQuota({ namespace: ns.name, name: 'pods' })).status?.used?.pods !== undefined,
      30_000,
      100,
      'the quota to be counted',
    );
    await scale(5);
    let condition: { status?: string; reason?: string; message?: string } | undefined;
    await waitFor(
      async () => {
        await reconcile().catch(() => true);
        condition = (await readRs()).status?.conditions?.find((x) => x.type === 'ReplicaFailure');
        return condition?.status === 'True';
      },
      30_000,
      100,
      'the ReplicaFailure condition',
    );
    expect(condition).toMatchObject({
      status: 'True',
      reason: 'FailedCreate',
      message: expect.stringMatching(/exceeded quota/),
    });
    expect(await activePods()).toHaveLength(3);

    await core.deleteNamespacedResourceQuota({ namespace: ns.name, name: 'pods' });
    await untilAvailable(5);
    expect((await readRs()).status?.conditions?.find((x) => x.type === 'ReplicaFailure')).toBeUndefined();
  });
});
