// The fleet rollout pin on a real apiserver (sandbox fleetq-1, whose controller-manager runs no workload
// controllers): the Deployment and ReplicaSet controllers driven in-process through the real runtime
// (reconcileOne, MemoryQueue, live cluster view, writer), kwok making pods Running and Ready. The test writes the
// pin annotations as the FleetRollout controller would: hold a new template, admit it, roll it back.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, type V1Deployment, type V1ReplicaSet } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import type { Controller } from '../../shared/controllers/controller.js';
import { computeHash as computeHashOfWire, deploymentController } from '../../shared/controllers/deployment/index.js';
import { replicaSetController } from '../../shared/controllers/replicaset/index.js';
import type { PodTemplateSpec } from '../../shared/kube/api/objects.js';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import {
  PIN_ADMITTED_ANNOTATION,
  PIN_CONDITION_TYPE,
  PIN_REASON,
  PIN_ROLLOUT_ANNOTATION,
} from '../../shared/rollouts/pin.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import {
  kubectlPath,
  kwokPodTemplate,
  sandboxCluster,
  testNamespace,
  type TestCluster,
} from '../helpers/sandbox/clusters.js';

const execFileP = promisify(execFile);

const computeHash = (t: unknown): string => computeHashOfWire(JSON.parse(JSON.stringify(t ?? {})) as PodTemplateSpec);

const CLUSTER = 'fleetq-1';
const NAME = 'web';
const LABELS = { app: 'pin-it' };
const REPLICAS = 4;
const ROLLOUT = 'fleetq-system/web';
const HASH = 'pod-template-hash';

function templateOf(image: string) {
  const template = kwokPodTemplate(LABELS);
  template.spec!.containers[0]!.image = image;
  return template;
}

describe('Deployment controller under a fleet rollout pin, on a real apiserver', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let apps: AppsV1Api;
  let queue: MemoryQueue;
  let deps: ReconcileDeps;
  let revisionA = '';
  let revisionB = '';
  let templateB: unknown;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    apps = c.kc.makeApiClient(AppsV1Api);
    queue = new MemoryQueue();
    deps = inProcessDeps(c, {
      owns: ['Deployment', 'ReplicaSet'],
      controllers: [
        ['Deployment', deploymentController as Controller],
        ['ReplicaSet', replicaSetController as Controller],
      ],
      queue,
      service: 'deployment-pin-it',
    });
  });

  afterAll(async () => {
    await queue?.close();
    await ns?.remove();
  });

  const key = (kind: string, name: string): ReconcileKey => ({ cluster: CLUSTER, kind, namespace: ns.name, name });
  const readDeployment = () => apps.readNamespacedDeployment({ namespace: ns.name, name: NAME });
  const listRSs = async () => (await apps.listNamespacedReplicaSet({ namespace: ns.name })).items;
  const rsOf = (rss: V1ReplicaSet[], revision: string) => rss.find((rs) => rs.metadata?.labels?.[HASH] === revision);
  const pinCondition = (d: V1Deployment) => d.status?.conditions?.find((x) => x.type === PIN_CONDITION_TYPE);
  const observedCurrent = (d: V1Deployment) => d.status?.observedGeneration === d.metadata?.generation;

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

  /** Read-modify-write of the Deployment (retried on a conflict with the controller's status writes). */
  async function edit(change: (d: V1Deployment) => void): Promise<void> {
    await waitFor(
      async () => {
        const d = await readDeployment();
        change(d);
        try {
          await apps.replaceNamespacedDeployment({ namespace: ns.name, name: NAME, body: d });
          return true;
        } catch (err) {
          if ((err as { code?: number }).code === 409) return false;
          throw err;
        }
      },
      30_000,
      100,
      'Deployment edit',
    );
  }

  /** `kubectl rollout status` with its own 2 s timeout: exit code and what it printed. */
  async function rolloutStatus(): Promise<{ code: number; out: string }> {
    const args = ['--kubeconfig', c.state.kubeconfig, '-n', ns.name, 'rollout', 'status', `deployment/${NAME}`];
    try {
      const { stdout, stderr } = await execFileP(kubectlPath(), [...args, '--timeout=2s'], { timeout: 30_000 });
      return { code: 0, out: stdout + stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : -1, out: (e.stdout ?? '') + (e.stderr ?? '') };
    }
  }

  const admit = (revision: string) =>
    edit((d) => {
      d.metadata!.annotations = {
        ...d.metadata!.annotations,
        [PIN_ROLLOUT_ANNOTATION]: ROLLOUT,
        [PIN_ADMITTED_ANNOTATION]: revision,
      };
    });

  const runsOnly = (rss: V1ReplicaSet[], revision: string) =>
    rss.every((rs) =>
      rs.metadata?.labels?.[HASH] === revision
        ? rs.spec?.replicas === REPLICAS && rs.status?.availableReplicas === REPLICAS
        : rs.spec?.replicas === 0 && (rs.status?.replicas ?? 0) === 0,
    );

  it('revision A rolled out, then pinned to A', async () => {
    await apps.createNamespacedDeployment({
      namespace: ns.name,
      body: {
        metadata: { name: NAME },
        spec: { replicas: REPLICAS, selector: { matchLabels: LABELS }, template: templateOf('app:a') },
      },
    });
    await until('rollout of A', (d, rss) => rss.length === 1 && d.status?.availableReplicas === REPLICAS);
    revisionA = (await listRSs())[0]!.metadata!.labels![HASH]!;
    await admit(revisionA);
    await until('pinned to A, in agreement', (d) => observedCurrent(d) && pinCondition(d) === undefined);
  });

  it('a new template B is held: no ReplicaSet for B, WaitingForFleetRollout, rollout status keeps waiting', async () => {
    await edit((d) => {
      d.spec!.template = templateOf('app:b');
    });
    const d0 = await readDeployment();
    templateB = d0.spec!.template;
    revisionB = computeHash(templateB);
    await until(
      'hold of B',
      (d) => observedCurrent(d) && pinCondition(d)?.reason === PIN_REASON.Waiting && d.status?.replicas === REPLICAS,
    );
    // More passes change nothing: still no ReplicaSet for B.
    for (let i = 0; i < 3; i++) await pump();
    const d = await readDeployment();
    const rss = await listRSs();
    expect(rss.map((rs) => rs.metadata?.labels?.[HASH])).toEqual([revisionA]);
    expect(runsOnly(rss, revisionA)).toBe(true);
    expect(pinCondition(d)).toMatchObject({ status: 'False', reason: PIN_REASON.Waiting });
    expect(pinCondition(d)?.message).toContain(`held at revision ${revisionA} by FleetRollout ${ROLLOUT}`);
    expect(pinCondition(d)?.message).toContain(`asks for revision ${revisionB}`);
    // kubectl rollout status: generation observed, 0 of 4 updated: "Waiting for deployment ... rollout to finish".
    expect(d.status?.updatedReplicas ?? 0).toBe(0);
    expect(d.spec?.template).toEqual(templateB);
    const status = await rolloutStatus();
    expect(status.code).not.toBe(0);
    expect(status.out).toContain(
      `Waiting for deployment "${NAME}" rollout to finish: 0 out of ${REPLICAS} new replicas have been updated...`,
    );
  });

  it('admitting B rolls to B, and the condition goes', async () => {
    await admit(revisionB);
    await until(
      'rollout of B',
      (d, rss) =>
        observedCurrent(d) &&
        pinCondition(d) === undefined &&
        d.status?.updatedReplicas === REPLICAS &&
        d.status.availableReplicas === REPLICAS &&
        runsOnly(rss, revisionB),
    );
    const rss = await listRSs();
    expect(rsOf(rss, revisionB)?.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    expect(await rolloutStatus()).toEqual({ code: 0, out: `deployment "${NAME}" successfully rolled out\n` });
  });

  it('admitting A again rolls back to A from its ReplicaSet, the spec untouched: RolledBackByFleetRollout', async () => {
    await admit(revisionA);
    await until(
      'rollback to A',
      (d, rss) =>
        observedCurrent(d) &&
        pinCondition(d)?.reason === PIN_REASON.RolledBack &&
        d.status?.availableReplicas === REPLICAS &&
        d.status.replicas === REPLICAS &&
        runsOnly(rss, revisionA),
    );
    const d = await readDeployment();
    const rss = await listRSs();
    expect(rss.map((rs) => rs.metadata?.labels?.[HASH]).sort()).toEqual([revisionA, revisionB].sort());
    expect(d.spec?.template).toEqual(templateB);
    // As `kubectl rollout undo` leaves it: A is the newest revision.
    expect(rsOf(rss, revisionA)?.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect(d.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect(d.status?.updatedReplicas ?? 0).toBe(0); // omitted when 0
    expect(pinCondition(d)?.message).toBe(
      `FleetRollout ${ROLLOUT} rolled back Deployment "${NAME}" to revision ${revisionA}; its template asks for revision ${revisionB}`,
    );
  });
});
