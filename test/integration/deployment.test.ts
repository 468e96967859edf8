// The Deployment controller against a real kube-apiserver (sandbox fleetq-1, whose controller-manager runs no
// workload controllers), driven in-process through the real runtime (reconcileOne, MemoryQueue, live cluster
// view, writer) together with fleetq's ReplicaSet controller, with kwok making pods Running and Ready. The
// pod-template-hash is checked against the real kube-controller-manager of sandbox upstream-1.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, type V1Deployment, type V1ReplicaSet } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import type { Controller, PlanResult } from '../../shared/controllers/controller.js';
import { computeHash as computeHashOfWire, deploymentController } from '../../shared/controllers/deployment/index.js';
import type { ObservedDeployment } from '../../shared/controllers/deployment/types.js';
import { replicaSetController } from '../../shared/controllers/replicaset/index.js';
import type { ReconcileKey } from '../../shared/kube/key.js';
import type { PodTemplateSpec } from '../../shared/kube/api/objects.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

/** The hash of a template client-node read (its Dates as the JSON the apiserver sent). */
const computeHash = (t: unknown): string => computeHashOfWire(JSON.parse(JSON.stringify(t ?? {})) as PodTemplateSpec);

const CLUSTER = 'fleetq-1';
const NAME = 'web';
const LABELS = { app: 'dep-it' };
const REV = 'deployment.kubernetes.io/revision';

function deployment(image: string): V1Deployment {
  const template = kwokPodTemplate(LABELS);
  template.spec!.containers[0]!.image = image;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: NAME, annotations: { team: 'a' } },
    spec: { replicas: 4, selector: { matchLabels: LABELS }, template },
  };
}

describe('Deployment controller on a real apiserver', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let apps: AppsV1Api;
  let queue: MemoryQueue;
  let deps: ReconcileDeps;
  const observedReads: number[] = [];
  /** After every Deployment pass: the sum of spec.replicas over its ReplicaSets (rolling bounds). */
  const totals: number[] = [];

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    apps = c.kc.makeApiClient(AppsV1Api);
    queue = new MemoryQueue();
    const recording: Controller<ObservedDeployment> = {
      ...deploymentController,
      observe: async (view, key) => {
        const o = await deploymentController.observe(view, key);
        observedReads.push(o.reads);
        return o;
      },
      plan: (o, now): PlanResult => {
        const r = deploymentController.plan(o, now);
        const spec = new Map(o.replicaSets.map((rs) => [rs.metadata.name, rs.spec.replicas ?? 0]));
        for (const a of r.actions) {
          if (a.type === 'update' || a.type === 'create') {
            const rs = a.object as V1ReplicaSet;
            spec.set(rs.metadata?.name, rs.spec?.replicas ?? 0);
          }
        }
        totals.push([...spec.values()].reduce((x, y) => x + y, 0));
        return r;
      },
    };
    deps = inProcessDeps(c, {
      owns: ['Deployment', 'ReplicaSet'],
      controllers: [
        ['Deployment', recording as Controller],
        ['ReplicaSet', replicaSetController as Controller],
      ],
      queue,
      service: 'deployment-it',
    });
  });

  afterAll(async () => {
    await queue?.close();
    await ns?.remove();
  });

  const key = (kind: string, name: string): ReconcileKey => ({ cluster: CLUSTER, kind, namespace: ns.name, name });
  const readDeployment = () => apps.readNamespacedDeployment({ namespace: ns.name, name: NAME });
  const listRSs = async () => (await apps.listNamespacedReplicaSet({ namespace: ns.name })).items;

  /** What the forwarder would enqueue on events: the Deployment and each of its ReplicaSets; then run them all. */
  async function pump(): Promise<void> {
    await queue.add(key('Deployment', NAME));
    for (const rs of await listRSs()) await queue.add(key('ReplicaSet', rs.metadata!.name!));
    for (let lease = await queue.get(50); lease; lease = await queue.get(50)) {
      const outcome = await reconcileOne(deps, lease);
      if (outcome === 'dead-lettered' || outcome === 'lease-lost') throw new Error(`reconcile ended ${outcome}`);
    }
  }

  async function until(describe: string, check: (d: V1Deployment, rss: V1ReplicaSet[]) => boolean): Promise<void> {
    await waitFor(
      async () => {
        await pump();
        return check(await readDeployment(), await listRSs());
      },
      90_000,
      200,
      describe,
    );
  }

  const progressing = (d: V1Deployment) => d.status?.conditions?.find((x) => x.type === 'Progressing');
  const isDone = (d: V1Deployment, rev: string) =>
    d.metadata?.annotations?.[REV] === rev &&
    d.status?.updatedReplicas === 4 &&
    d.status.availableReplicas === 4 &&
    d.status.replicas === 4 &&
    progressing(d)?.reason === 'NewReplicaSetAvailable';

  it('a new Deployment gets its ReplicaSet <name>-<hash> with labels, selector and annotations, then 4 available', async () => {
    await apps.createNamespacedDeployment({ namespace: ns.name, body: deployment('app:1') });
    await until('rollout of revision 1', (d) => isDone(d, '1'));

    const d = await readDeployment();
    const [rs, ...others] = await listRSs();
    expect(others).toEqual([]);
    const hash = computeHash(d.spec!.template);
    expect(rs?.metadata?.name).toBe(`${NAME}-${hash}`);
    expect(rs?.metadata?.labels).toEqual({ ...LABELS, 'pod-template-hash': hash });
    expect(rs?.spec?.selector?.matchLabels).toEqual({ ...LABELS, 'pod-template-hash': hash });
    expect(rs?.spec?.template?.metadata?.labels).toEqual({ ...LABELS, 'pod-template-hash': hash });
    expect(rs?.metadata?.annotations).toEqual({
      team: 'a',
      [REV]: '1',
      'deployment.kubernetes.io/desired-replicas': '4',
      'deployment.kubernetes.io/max-replicas': '5',
    });
    expect(rs?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: NAME, controller: true });
    expect(d.status?.conditions?.find((x) => x.type === 'Available')?.reason).toBe('MinimumReplicasAvailable');
    expect(d.status?.observedGeneration).toBe(d.metadata?.generation);
    // RollingUpdate reads the ReplicaSets and the Deployment: never pods.
    expect(Math.max(...observedReads)).toBe(2);
  });

  it('a template change creates a second ReplicaSet and rolls within maxSurge 1 / maxUnavailable 1', async () => {
    const current = await readDeployment();
    const next = deployment('app:2');
    await apps.replaceNamespacedDeployment({
      namespace: ns.name,
      name: NAME,
      body: { ...current, spec: { ...current.spec!, template: next.spec!.template } },
    });
    totals.length = 0;
    await until('rollout of revision 2', (d) => isDone(d, '2'));

    const d = await readDeployment();
    const rss = await listRSs();
    expect(rss).toHaveLength(2);
    const newRS = rss.find((rs) => rs.metadata?.annotations?.[REV] === '2');
    const oldRS = rss.find((rs) => rs.metadata?.annotations?.[REV] === '1');
    expect(newRS?.metadata?.name).toBe(`${NAME}-${computeHash(d.spec!.template)}`);
    expect(newRS?.spec?.replicas).toBe(4);
    expect(oldRS?.spec?.replicas).toBe(0);
    // replicas 4 + maxSurge 25% (rounded up: 1): never more than 5 pods wanted at once.
    expect(Math.max(...totals)).toBeLessThanOrEqual(5);
    expect(Math.max(...totals)).toBe(5);
  });
});

describe('pod-template-hash equals kube-controller-manager’s (sandbox upstream-1)', () => {
  it('the ReplicaSet upstream creates for a Deployment is named <name>-<computeHash(template)>', async () => {
    const up = await sandboxCluster('upstream-1');
    const ns = await testNamespace(up.kc);
    try {
      const apps = up.kc.makeApiClient(AppsV1Api);
      const d = deployment('registry.example/app:hash');
      d.spec!.replicas = 0;
      d.spec!.template.spec!.containers[0]!.resources = { requests: { cpu: '250m', memory: '64Mi' } };
      await apps.createNamespacedDeployment({ namespace: ns.name, body: d });
      let rs: V1ReplicaSet | undefined;
      await waitFor(
        async () => (rs = (await apps.listNamespacedReplicaSet({ namespace: ns.name })).items[0]) !== undefined,
        60_000,
        200,
        'upstream ReplicaSet',
      );
      const stored = await apps.readNamespacedDeployment({ namespace: ns.name, name: NAME });
      expect(rs?.metadata?.name).toBe(`${NAME}-${computeHash(stored.spec!.template)}`);
    } finally {
      await ns.remove();
    }
  });
});
