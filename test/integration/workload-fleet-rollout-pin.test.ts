// The fleet rollout pin through the real runtime on a real apiserver (fleetq-2): a StatefulSet is held on a new
// template, then admitted, then rolled back to its earlier revision by the pin alone (the spec keeps the new
// template). The test plays the forwarder: it enqueues the set's key and runs reconcileOne until what it waits for
// holds or a deadline passes; kwok makes the pods Running and Ready.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type V1Pod, type V1StatefulSet } from '@kubernetes/client-node';
import { setTimeout as delay } from 'node:timers/promises';
import type { Controller } from '../../shared/controllers/controller.js';
import { statefulSetController } from '../../shared/controllers/statefulset/index.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne } from '../../shared/runtime/reconcile-one.js';
import { PIN_ADMITTED_ANNOTATION, PIN_ROLLOUT_ANNOTATION } from '../../shared/rollouts/pin.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-2';
const REPLICAS = 2;
const ROLLOUT = 'fleetq-system/web';
const STEP_DEADLINE_MS = 90_000;
/** Between two reconcile passes while waiting for kwok to move the pods (a poll interval, not a fixed wait). */
const POLL_MS = 250;

describe('fleet rollout pin on a StatefulSet through the runtime', () => {
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

  it(
    'held on a new template, admitted, then rolled back without a spec edit',
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
      const until = async (what: string, done: (s: State) => boolean): Promise<State> => {
        const deadline = Date.now() + STEP_DEADLINE_MS;
        for (;;) {
          await queue.add(key);
          const lease = await queue.get(10_000);
          if (!lease) throw new Error('the queue handed out no lease');
          await reconcileOne(deps, lease);
          const s = await read();
          if (done(s)) return s;
          if (Date.now() > deadline) {
            throw new Error(`${what}: not reached in ${STEP_DEADLINE_MS} ms: ${JSON.stringify(summary(s))}`);
          }
          await delay(POLL_MS);
        }
      };
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
        expect(back.pods.map((p) => p.spec?.containers[0]?.image)).toEqual(
          Array(REPLICAS).fill('registry.example/app:1'),
        );
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
