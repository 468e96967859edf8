// The fleet rollout pin through the real runtime on a real apiserver (fleetq-2): a StatefulSet, then a DaemonSet,
// is held on a new template, then admitted, then rolled back to its earlier revision by the pin alone (the spec
// keeps the new template). The test plays the forwarder: it enqueues the set's key and runs reconcileOne until what it waits for
// holds or a deadline passes; kwok makes the pods Running and Ready.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type V1Pod, type V1StatefulSet } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Controller } from '../../shared/controllers/controller.js';
import { daemonSetController } from '../../shared/controllers/daemonset/index.js';
import { statefulSetController } from '../../shared/controllers/statefulset/index.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { PIN_ADMITTED_ANNOTATION, PIN_ROLLOUT_ANNOTATION } from '../../shared/rollouts/pin.js';
import { inProcessDeps, reconcileUntil } from '../helpers/pipeline/runtime.js';
import {
  kubectlPath,
  kwokPodTemplate,
  sandboxCluster,
  testNamespace,
  type TestCluster,
} from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-2';
const REPLICAS = 2;
const ROLLOUT = 'fleetq-system/web';
const STEP_DEADLINE_MS = 90_000;
/** Between two reconcile passes while waiting for kwok to move the pods (a poll interval, not a fixed wait). */
const POLL_MS = 250;

describe('fleet rollout pin through the runtime', () => {
  let c: TestCluster;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  const namespaces: Array<{ remove: () => Promise<void> }> = [];

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    core = c.kc.makeApiClient(CoreV1Api);
    apps = c.kc.makeApiClient(AppsV1Api);
  });

  afterAll(async () => {
    await Promise.all(namespaces.map((n) => n.remove()));
  });

  /** `kubectl rollout status` with its own 2 s timeout: exit code and what it printed. */
  async function rolloutStatus(namespace: string, target: string): Promise<{ code: number; out: string }> {
    const args = ['--kubeconfig', c.state.kubeconfig, '-n', namespace, 'rollout', 'status', target, '--timeout=2s'];
    try {
      const { stdout, stderr } = await promisify(execFile)(kubectlPath(), args, { timeout: 30_000 });
      return { code: 0, out: stdout + stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : -1, out: (e.stdout ?? '') + (e.stderr ?? '') };
    }
  }

  it(
    'a StatefulSet held on a new template, admitted, then rolled back without a spec edit',
    async () => {
      const ns = await testNamespace(c.kc);
      namespaces.push(ns);
      const namespace = ns.name;
      const template = kwokPodTemplate({ app: 'web' });
      await apps.createNamespacedStatefulSet({
        namespace,
        body: {
          metadata: { name: 'web' },
          spec: {
            replicas: REPLICAS,
            serviceName: 'web',
            selector: { matchLabels: { app: 'web' } },
            podManagementPolicy: 'Parallel',
            template,
          },
        },
      });

      const queue = new MemoryQueue();
      const deps = inProcessDeps(c, {
        owns: ['StatefulSet'],
        controllers: [['StatefulSet', statefulSetController as Controller]],
        queue,
        service: 'workload-fleet-rollout-pin-it',
      });
      const key = { cluster: CLUSTER, kind: 'StatefulSet', namespace, name: 'web' };
      const read = async () => {
        const set = await apps.readNamespacedStatefulSet({ namespace, name: 'web' });
        const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=web' })).items;
        return { set, pods };
      };
      type State = Awaited<ReturnType<typeof read>>;
      /** Reconciles until `done` holds of what the apiserver has, or fails at the deadline with the last state. */
      const until = (what: string, done: (s: State) => boolean): Promise<State> =>
        reconcileUntil(deps, queue, key, {
          what,
          read,
          done,
          describe: (s) => JSON.stringify(summary(s)),
          deadlineMs: STEP_DEADLINE_MS,
          pollMs: POLL_MS,
        });
      const rest = deps.clients(CLUSTER).rest;
      const patchSet = (patch: object) =>
        rest.request('PATCH', `/apis/apps/v1/namespaces/${namespace}/statefulsets/web`, {
          body: patch,
          contentType: 'application/merge-patch+json',
        });

      try {
        // Settled at the first revision, no pin.
        const first = await until('settled at the first revision', (s) => settledAt(s, s.set.status?.updateRevision));
        const R1 = first.set.status!.currentRevision!;
        const H1 = R1.slice('web-'.length);

        // A new template arrives while the rollout admits the first revision: held.
        await patchSet({
          metadata: { annotations: { [PIN_ROLLOUT_ANNOTATION]: ROLLOUT, [PIN_ADMITTED_ANNOTATION]: H1 } },
          spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.example/app:2' }] } } },
        });
        const held = await until(
          'held',
          (s) =>
            s.set.status?.observedGeneration === s.set.metadata?.generation &&
            conditionOf(s.set)?.reason === 'WaitingForFleetRollout',
        );
        const R2 = held.set.status!.updateRevision!;
        expect(R2).not.toBe(R1);
        // More passes change nothing: every pod stays at the first revision, updatedReplicas 0.
        let again = held;
        for (let i = 0; i < 3; i++) again = await until('a held pass', () => true);
        expect(revisionsOf(again.pods)).toEqual(Array(REPLICAS).fill(R1));
        expect(again.set.status?.updatedReplicas ?? 0).toBe(0);
        expect(again.set.status?.currentRevision).toBe(R1);
        const waiting = await rolloutStatus(namespace, 'statefulset/web');
        expect(waiting.code).not.toBe(0);
        expect(waiting.out).toContain(
          `Waiting for partitioned roll out to finish: 0 out of ${REPLICAS} new pods have been updated...`,
        );

        // Admitted: upstream rolls to the template's revision; the condition goes.
        await patchSet({ metadata: { annotations: { [PIN_ADMITTED_ANNOTATION]: R2.slice('web-'.length) } } });
        const admitted = await until(
          'admitted and rolled',
          (s) => settledAt(s, R2) && conditionOf(s.set) === undefined,
        );
        expect(admitted.set.status?.currentRevision).toBe(R2);

        // Rolled back: pods return to the first revision; the spec still asks for app:2.
        await patchSet({ metadata: { annotations: { [PIN_ADMITTED_ANNOTATION]: H1 } } });
        const back = await until(
          'rolled back',
          (s) => settledAt(s, R1) && s.set.status?.updateRevision === R1 && s.set.status.currentRevision === R1,
        );
        expect(conditionOf(back.set)).toMatchObject({
          status: 'False',
          reason: 'RolledBackByFleetRollout',
          message: `FleetRollout ${ROLLOUT} rolled back to revision ${H1} from the template's revision ${R2.slice('web-'.length)}`,
        });
        expect(back.set.spec?.template.spec?.containers[0]?.image).toBe('registry.example/app:2');
        const complete = await rolloutStatus(namespace, 'statefulset/web');
        expect(complete).toEqual({
          code: 0,
          out: `partitioned roll out complete: ${REPLICAS} new pods have been updated...\n`,
        });
        expect(back.pods.map((p) => p.spec?.containers[0]?.image)).toEqual(
          Array(REPLICAS).fill('registry.example/app:1'),
        );
      } finally {
        await queue.close();
      }
    },
    5 * STEP_DEADLINE_MS,
  );

  it(
    'a DaemonSet held on a new template, admitted, then rolled back without a spec edit',
    async () => {
      const ns = await testNamespace(c.kc);
      namespaces.push(ns);
      const namespace = ns.name;
      await apps.createNamespacedDaemonSet({
        namespace,
        body: {
          metadata: { name: 'agent' },
          spec: { selector: { matchLabels: { app: 'agent' } }, template: kwokPodTemplate({ app: 'agent' }) },
        },
      });
      const queue = new MemoryQueue();
      const deps = inProcessDeps(c, {
        owns: ['DaemonSet'],
        controllers: [['DaemonSet', daemonSetController as Controller]],
        queue,
        service: 'workload-fleet-rollout-pin-it',
      });
      const key = { cluster: CLUSTER, kind: 'DaemonSet', namespace, name: 'agent' };
      const read = async () => {
        const ds = await apps.readNamespacedDaemonSet({ namespace, name: 'agent' });
        const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=agent' })).items;
        return { ds, pods };
      };
      type State = Awaited<ReturnType<typeof read>>;
      const until = (what: string, done: (s: State) => boolean): Promise<State> =>
        reconcileUntil(deps, queue, key, {
          what,
          read,
          done,
          describe: (s) => JSON.stringify({ status: s.ds.status, pods: revisionsOf(s.pods) }),
          deadlineMs: STEP_DEADLINE_MS,
          pollMs: POLL_MS,
        });
      const rest = deps.clients(CLUSTER).rest;
      const patchDs = (patch: object) =>
        rest.request('PATCH', `/apis/apps/v1/namespaces/${namespace}/daemonsets/agent`, {
          body: patch,
          contentType: 'application/merge-patch+json',
        });
      /** Every desired node runs one live Ready pod carrying `hash`, and nothing else is left. */
      const settledAt = (s: State, hash: string | undefined) => {
        const desired = s.ds.status?.desiredNumberScheduled ?? 0;
        return (
          hash !== undefined &&
          desired > 0 &&
          s.pods.length === desired &&
          s.pods.every(
            (p) =>
              !p.metadata?.deletionTimestamp && isReady(p) && p.metadata?.labels?.['controller-revision-hash'] === hash,
          )
        );
      };
      const dsCondition = (s: State) => s.ds.status?.conditions?.find((cond) => cond.type === 'FleetRollout');

      try {
        const first = await until('settled at the first revision', (s) =>
          settledAt(s, s.pods[0]?.metadata?.labels?.['controller-revision-hash']),
        );
        const H1 = first.pods[0]!.metadata!.labels!['controller-revision-hash']!;
        const nodes = first.ds.status!.desiredNumberScheduled;

        await patchDs({
          metadata: { annotations: { [PIN_ROLLOUT_ANNOTATION]: ROLLOUT, [PIN_ADMITTED_ANNOTATION]: H1 } },
          spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.example/app:2' }] } } },
        });
        const held = await until(
          'held',
          (s) =>
            s.ds.status?.observedGeneration === s.ds.metadata?.generation &&
            dsCondition(s)?.reason === 'WaitingForFleetRollout',
        );
        let again = held;
        for (let i = 0; i < 3; i++) again = await until('a held pass', () => true);
        expect(revisionsOf(again.pods)).toEqual(Array(nodes).fill(H1));
        expect(again.ds.status?.updatedNumberScheduled ?? 0).toBe(0);
        const waiting = await rolloutStatus(namespace, 'daemonset/agent');
        expect(waiting.code).not.toBe(0);
        expect(waiting.out).toContain(
          `Waiting for daemon set "agent" rollout to finish: 0 out of ${nodes} new pods have been updated...`,
        );
        const revisions = await apps.listNamespacedControllerRevision({ namespace });
        const H2 = revisions.items
          .map((cr) => cr.metadata?.labels?.['controller-revision-hash'] ?? '')
          .find((h) => h !== H1 && h !== '');
        if (H2 === undefined) throw new Error('the template revision was not recorded');

        await patchDs({ metadata: { annotations: { [PIN_ADMITTED_ANNOTATION]: H2 } } });
        await until('admitted and rolled', (s) => settledAt(s, H2) && dsCondition(s) === undefined);

        await patchDs({ metadata: { annotations: { [PIN_ADMITTED_ANNOTATION]: H1 } } });
        const back = await until(
          'rolled back',
          (s) => settledAt(s, H1) && s.ds.status?.updatedNumberScheduled === nodes,
        );
        expect(dsCondition(back)).toMatchObject({
          status: 'False',
          reason: 'RolledBackByFleetRollout',
          message: `FleetRollout ${ROLLOUT} rolled back to revision ${H1} from the template's revision ${H2}`,
        });
        expect(back.ds.spec?.template.spec?.containers[0]?.image).toBe('registry.example/app:2');
        expect(await rolloutStatus(namespace, 'daemonset/agent')).toEqual({
          code: 0,
          out: 'daemon set "agent" successfully rolled out\n',
        });
        expect(back.pods.map((p) => p.spec?.containers[0]?.image)).toEqual(Array(nodes).fill('registry.example/app:1'));
      } finally {
        await queue.close();
      }
    },
    5 * STEP_DEADLINE_MS,
  );
});

const live = (pods: readonly V1Pod[]) => pods.filter((p) => !p.metadata?.deletionTimestamp);
const revisionsOf = (pods: readonly V1Pod[]) =>
  live(pods)
    .map((p) => p.metadata?.labels?.['controller-revision-hash'] ?? '')
    .sort();
const isReady = (p: V1Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const conditionOf = (set: V1StatefulSet) => set.status?.conditions?.find((c) => c.type === 'FleetRollout');

/** Every replica is a live Ready pod at `revision` and no other pod is left. */
function settledAt(s: { set: V1StatefulSet; pods: V1Pod[] }, revision: string | undefined): boolean {
  if (revision === undefined) return false;
  return (
    s.pods.length === REPLICAS &&
    live(s.pods).length === REPLICAS &&
    s.pods.every((p) => isReady(p) && p.metadata?.labels?.['controller-revision-hash'] === revision) &&
    s.set.status?.readyReplicas === REPLICAS
  );
}

function summary(s: { set: V1StatefulSet; pods: V1Pod[] }) {
  return {
    status: s.set.status,
    pods: s.pods.map((p) => ({
      name: p.metadata?.name,
      revision: p.metadata?.labels?.['controller-revision-hash'],
      ready: isReady(p),
      deleting: !!p.metadata?.deletionTimestamp,
    })),
  };
}
