// Kubernetes Events against a real kube-apiserver (sandbox fleetq-1, whose controller-manager runs no workload
// controllers): fleetq's ReplicaSet and Deployment controllers driven in-process through the real runtime
// (reconcileOne, MemoryQueue, writer, one EventRecorder per cluster), kwok making pods Running and Ready. The
// Events are read back from the apiserver and checked field by field (reason, message, type, count, source),
// then through `kubectl describe`. The recorder itself: its bounded buffer, dedup by PATCH and aggregation.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type CoreV1Event, type V1Deployment } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { waitFor } from '../../infra/sandbox/process.js';
import { deploymentController } from '../../shared/controllers/deployment/index.js';
import type { Controller } from '../../shared/controllers/controller.js';
import { replicaSetController } from '../../shared/controllers/replicaset/index.js';
import { EventRecorder } from '../../shared/kube/events/recorder.js';
import { EventRecorders } from '../../shared/kube/events/recorders.js';
import type { ResolvedEvent } from '../../shared/kube/events/types.js';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import {
  kubectl,
  kwokPodTemplate,
  sandboxCluster,
  testNamespace,
  type TestCluster,
} from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';

/** What an Event shows in `kubectl describe`, plus its count and source. */
type Seen = { type?: string; reason?: string; message?: string; count?: number; from?: string; reporting?: string };

function seen(e: CoreV1Event): Seen {
  return {
    type: e.type,
    reason: e.reason,
    message: e.message,
    count: e.count,
    from: e.source?.component,
    reporting: e.reportingComponent,
  };
}

/** In the order recorded: event names are `<object>.<unix nanoseconds in hex>`, increasing per recorder. */
function byRecordedOrder(a: CoreV1Event, b: CoreV1Event): number {
  const nanos = (e: CoreV1Event) => BigInt(`0x${(e.metadata.name ?? '').split('.').pop() ?? '0'}`);
  const d = nanos(a) - nanos(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

describe('Kubernetes Events on a real apiserver', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let apps: AppsV1Api;
  let core: CoreV1Api;
  let queue: MemoryQueue;
  let deps: ReconcileDeps & { events: EventRecorders };
  const registry = new Registry();

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    apps = c.kc.makeApiClient(AppsV1Api);
    core = c.kc.makeApiClient(CoreV1Api);
    queue = new MemoryQueue();
    deps = {
      ...inProcessDeps(c, {
        owns: ['Deployment', 'ReplicaSet'],
        controllers: [
          ['Deployment', deploymentController as Controller],
          ['ReplicaSet', replicaSetController as Controller],
        ],
        queue,
        service: 'events-it',
      }),
      events: new EventRecorders({ registry }),
    };
  });

  afterAll(async () => {
    await deps?.events.close();
    await queue?.close();
    await ns?.remove();
  });

  const key = (kind: string, name: string): ReconcileKey => ({ cluster: CLUSTER, kind, namespace: ns.name, name });

  /** What the forwarder would enqueue: the given keys and every ReplicaSet of the namespace; then run them all. */
  async function pump(...keys: ReconcileKey[]): Promise<void> {
    for (const k of keys) await queue.add(k);
    for (const rs of (await apps.listNamespacedReplicaSet({ namespace: ns.name })).items)
      await queue.add(key('ReplicaSet', rs.metadata!.name!));
    for (let lease = await queue.get(50); lease; lease = await queue.get(50)) {
      const outcome = await reconcileOne(deps, lease);
      if (outcome === 'dead-lettered' || outcome === 'lease-lost') throw new Error(`reconcile ended ${outcome}`);
    }
  }

  async function eventsOf(kind: string, name: string): Promise<CoreV1Event[]> {
    expect(await deps.events.flush(30_000)).toBe(true);
    const list = await core.listNamespacedEvent({
      namespace: ns.name,
      fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}`,
    });
    return list.items.sort(byRecordedOrder);
  }

  const activePods = async (owner: string) =>
    (await core.listNamespacedPod({ namespace: ns.name })).items.filter(
      (p) => !p.metadata?.deletionTimestamp && p.metadata?.ownerReferences?.some((r) => r.name === owner),
    );

  it('a ReplicaSet scaled 0 → 3 → 1: SuccessfulCreate per pod created, SuccessfulDelete per pod deleted', async () => {
    const labels = { app: 'rs-events' };
    const rs = await apps.createNamespacedReplicaSet({
      namespace: ns.name,
      body: {
        metadata: { name: 'front' },
        spec: { replicas: 0, selector: { matchLabels: labels }, template: kwokPodTemplate(labels) },
      },
    });
    await pump(key('ReplicaSet', 'front'));
    expect(await eventsOf('ReplicaSet', 'front')).toEqual([]);

    const scale = async (replicas: number) => {
      const cur = await apps.readNamespacedReplicaSet({ namespace: ns.name, name: 'front' });
      await apps.replaceNamespacedReplicaSet({
        namespace: ns.name,
        name: 'front',
        body: { ...cur, spec: { ...cur.spec!, replicas } },
      });
      await waitFor(
        async () => (await pump(key('ReplicaSet', 'front')), (await activePods('front')).length === replicas),
        60_000,
        200,
        `${replicas} pods`,
      );
    };

    await scale(3);
    const created = (await activePods('front')).map((p) => p.metadata!.name!).sort();
    const source = { from: 'replicaset-controller', reporting: 'replicaset-controller', type: 'Normal', count: 1 };
    const afterUp = await eventsOf('ReplicaSet', 'front');
    expect(afterUp.map(seen).sort((a, b) => a.message!.localeCompare(b.message!))).toEqual(
      created.map((name) => ({ ...source, reason: 'SuccessfulCreate', message: `Created pod: ${name}` })),
    );
    for (const e of afterUp) {
      expect(e.involvedObject).toMatchObject({ kind: 'ReplicaSet', apiVersion: 'apps/v1', uid: rs.metadata!.uid });
      expect(e.metadata.name).toMatch(/^front\.[0-9a-f]+$/);
    }

    await scale(1);
    const kept = (await activePods('front')).map((p) => p.metadata!.name!);
    const deleted = created.filter((n) => !kept.includes(n));
    expect(deleted).toHaveLength(2);
    const deletes = (await eventsOf('ReplicaSet', 'front')).map(seen).filter((e) => e.reason === 'SuccessfulDelete');
    expect(deletes.sort((a, b) => a.message!.localeCompare(b.message!))).toEqual(
      deleted.map((name) => ({ ...source, reason: 'SuccessfulDelete', message: `Deleted pod: ${name}` })),
    );
  });

  it('a pod create refused by a quota: FailedCreate (Warning) with the apiserver message', async () => {
    const labels = { app: 'quota-events' };
    await core.createNamespacedResourceQuota({
      namespace: ns.name,
      body: { metadata: { name: 'pods' }, spec: { hard: { pods: '4' } } },
    });
    await waitFor(
      async () =>
        (await core.readNamespacedResourceQuota({ namespace: ns.name, name: 'pods' })).status?.used?.pods === '1',
      30_000,
      100,
      'the quota to count the one pod there is',
    );
    await apps.createNamespacedReplicaSet({
      namespace: ns.name,
      body: {
        metadata: { name: 'capped' },
        spec: { replicas: 5, selector: { matchLabels: labels }, template: kwokPodTemplate(labels) },
      },
    });
    await pump(key('ReplicaSet', 'capped'));
    const events = (await eventsOf('ReplicaSet', 'capped')).map(seen);
    // Slow start: batches of 1 and 2 pass (3 pods, 4 in the namespace); the next create is refused, in this
    // pass and in each retry the pump runs (how many depends on the retry backoff).
    expect(events.filter((e) => e.reason === 'SuccessfulCreate')).toHaveLength(3);
    const failed = events.filter((e) => e.reason === 'FailedCreate');
    expect(failed.length).toBeGreaterThan(0);
    for (const e of failed)
      expect(e).toEqual({
        type: 'Warning',
        reason: 'FailedCreate',
        message: expect.stringMatching(/^Error creating: pods "capped-[a-z0-9]*" is forbidden: exceeded quota: pods/),
        count: expect.any(Number),
        from: 'replicaset-controller',
        reporting: 'replicaset-controller',
      });
    await core.deleteNamespacedResourceQuota({ namespace: ns.name, name: 'pods' });
    const rs = await apps.readNamespacedReplicaSet({ namespace: ns.name, name: 'capped' });
    await apps.replaceNamespacedReplicaSet({
      namespace: ns.name,
      name: 'capped',
      body: { ...rs, spec: { ...rs.spec!, replicas: 0 } },
    });
    await pump(key('ReplicaSet', 'capped'));
  });

  describe('a Deployment rolled out, updated and rolled back', () => {
    const labels = { app: 'dep-events' };
    const image = (v: number) => `registry.example/app:${v}`;
    const body = (): V1Deployment => {
      const template = kwokPodTemplate(labels);
      template.spec!.containers[0]!.image = image(1);
      return {
        metadata: { name: 'web' },
        spec: {
          replicas: 3,
          selector: { matchLabels: labels },
          template,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        },
      };
    };
    const read = () => apps.readNamespacedDeployment({ namespace: ns.name, name: 'web' });
    const complete = async (what: string, img: string) =>
      waitFor(
        async () => {
          await pump(key('Deployment', 'web'));
          const d = await read();
          return (
            d.spec?.template.spec?.containers[0]?.image === img &&
            d.status?.updatedReplicas === 3 &&
            d.status.availableReplicas === 3 &&
            d.status.replicas === 3 &&
            d.status.observedGeneration === d.metadata?.generation
          );
        },
        90_000,
        200,
        what,
      );
    /** The name of the Deployment's ReplicaSet whose pods run `img` (the hash is the apiserver-defaulted template's). */
    const rsName = async (img: string): Promise<string> => {
      const rss = (await apps.listNamespacedReplicaSet({ namespace: ns.name })).items;
      const rs = rss.find(
        (x) => x.spec?.template?.spec?.containers[0]?.image === img && x.metadata?.name?.startsWith('web-'),
      );
      if (!rs) throw new Error(`no ReplicaSet runs ${img}`);
      return rs.metadata!.name!;
    };
    const scaling = { type: 'Normal', reason: 'ScalingReplicaSet', count: 1 };
    const from = { from: 'deployment-controller', reporting: 'deployment-controller' };

    it('rolling update (maxSurge 1, maxUnavailable 0): one ScalingReplicaSet per step, in order', async () => {
      await apps.createNamespacedDeployment({ namespace: ns.name, body: body() });
      await complete('first rollout', image(1));
      const d = await read();
      d.spec!.template.spec!.containers[0]!.image = image(2);
      await apps.replaceNamespacedDeployment({ namespace: ns.name, name: 'web', body: d });
      await complete('second rollout', image(2));

      const [v1, v2] = [await rsName(image(1)), await rsName(image(2))];
      const events = (await eventsOf('Deployment', 'web')).map(seen);
      expect(events).toEqual(
        [
          `Scaled up replica set ${v1} from 0 to 3`,
          `Scaled up replica set ${v2} from 0 to 1`,
          `Scaled down replica set ${v1} from 3 to 2`,
          `Scaled up replica set ${v2} from 1 to 2`,
          `Scaled down replica set ${v1} from 2 to 1`,
          `Scaled up replica set ${v2} from 2 to 3`,
          `Scaled down replica set ${v1} from 1 to 0`,
        ].map((message) => ({ ...scaling, ...from, message })),
      );
      const created = (await eventsOf('ReplicaSet', v2)).map(seen);
      expect(created.map((e) => e.reason)).toEqual(['SuccessfulCreate', 'SuccessfulCreate', 'SuccessfulCreate']);
      const old = (await eventsOf('ReplicaSet', v1)).map((e) => e.reason);
      expect(old.filter((r) => r === 'SuccessfulDelete')).toHaveLength(3);
    });

    it('the rollback annotation: DeploymentRollback; the 10th ScalingReplicaSet within 10 min is combined', async () => {
      const d = await read();
      d.metadata!.annotations = { ...d.metadata!.annotations, 'deprecated.deployment.rollback.to': '1' };
      await apps.replaceNamespacedDeployment({ namespace: ns.name, name: 'web', body: d });
      await complete('rolled back', image(1));
      expect((await read()).metadata?.annotations?.['deprecated.deployment.rollback.to']).toBeUndefined();
      const [v1, v2] = [await rsName(image(1)), await rsName(image(2))];
      const events = (await eventsOf('Deployment', 'web')).map(seen);
      // Seven ScalingReplicaSet events of the first update are there already; the 8th and 9th are their own
      // Events, the 10th starts the aggregate (client-go's EventAggregator) and the 11th to 13th count it up:
      // it shows the latest message, and carries no reporting component (as upstream's aggregate).
      expect(events.slice(7)).toEqual([
        {
          type: 'Normal',
          reason: 'DeploymentRollback',
          message: 'Rolled back deployment "web" to revision 1',
          count: 1,
          ...from,
        },
        { ...scaling, ...from, message: `Scaled up replica set ${v1} from 0 to 1` },
        { ...scaling, ...from, message: `Scaled down replica set ${v2} from 3 to 2` },
        {
          ...scaling,
          from: 'deployment-controller',
          reporting: '',
          count: 4,
          message: `(combined from similar events): Scaled down replica set ${v2} from 1 to 0`,
        },
      ]);
    });

    it('kubectl describe deployment lists them as upstream does', async () => {
      await deps.events.flush();
      const out = await kubectl(c.state, ['describe', 'deployment', 'web', '-n', ns.name]);
      const section = out.slice(out.indexOf('Events:'));
      expect(section).toMatch(/Type\s+Reason\s+Age\s+From\s+Message/);
      expect(section).toMatch(
        new RegExp(
          `Normal\\s+ScalingReplicaSet\\s+\\S+\\s+deployment-controller\\s+Scaled up replica set ${await rsName(image(1))} from 0 to 3`,
        ),
      );
      expect(section).toMatch(
        /Normal\s+DeploymentRollback\s+\S+\s+deployment-controller\s+Rolled back deployment "web" to revision 1/,
      );
      expect(section).toMatch(
        /Normal\s+ScalingReplicaSet\s+\S+ \(x4 over \S+\)\s+deployment-controller\s+\(combined from similar events\): Scaled down/,
      );
    });
  });

  describe('the recorder on its own', () => {
    const spec = (object: string, message: string): ResolvedEvent => ({
      regarding: { kind: 'ConfigMap', apiVersion: 'v1', namespace: ns.name, name: object, uid: `uid-${object}` },
      source: 'events-it',
      type: 'Normal',
      reason: 'Testing',
      message,
    });
    const list = async (object: string) =>
      (
        await core.listNamespacedEvent({ namespace: ns.name, fieldSelector: `involvedObject.name=${object}` })
      ).items.sort(byRecordedOrder);
    const metric = async (name: string) => (await registry.getSingleMetricAsString(name)).split('\n');

    it('a full buffer drops (counted) and never blocks; what it holds is written', async () => {
      const recorder = deps.events.for(CLUSTER, deps.clients(CLUSTER).rest);
      let dropped = 0;
      let written = 0;
      const small = new EventRecorder(deps.clients(CLUSTER).rest, {
        capacity: 5,
        metrics: { dropped: () => dropped++, written: () => written++, filtered: () => undefined },
      });
      const started = performance.now();
      for (let i = 0; i < 10; i++) small.record(spec('burst', `message ${i}`));
      expect(performance.now() - started).toBeLessThan(200); // record() only buffers
      expect(small.pending).toBe(5); // one is being written, five wait, four were dropped
      expect(dropped).toBe(4);
      expect(await small.flush()).toBe(true);
      expect(written).toBe(6);
      expect((await list('burst')).map((e) => e.message)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `message ${i}`));
      expect(recorder).toBe(deps.events.for(CLUSTER, deps.clients(CLUSTER).rest)); // one per cluster
    });

    it('a repeated event is one Event whose count goes up (PATCH), with its first and last timestamps', async () => {
      const recorder = deps.events.for(CLUSTER, deps.clients(CLUSTER).rest);
      for (let i = 0; i < 3; i++) recorder.record(spec('repeat', 'same message'));
      expect(await recorder.flush()).toBe(true);
      const [e, ...others] = await list('repeat');
      expect(others).toEqual([]);
      expect(e).toMatchObject({ count: 3, message: 'same message', reason: 'Testing', type: 'Normal' });
      expect(e?.lastTimestamp?.getTime()).toBeGreaterThanOrEqual(e?.firstTimestamp?.getTime() ?? Infinity);
      expect(await metric('fleetq_events_written_total')).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^fleetq_events_written_total\{cluster="fleetq-1",verb="patch"\} [1-9]/),
        ]),
      );
    });

    it('the 10th similar event (another message) is an aggregate, then counted', async () => {
      const recorder = deps.events.for(CLUSTER, deps.clients(CLUSTER).rest);
      for (let i = 1; i <= 11; i++) recorder.record(spec('similar', `message ${i}`));
      expect(await recorder.flush()).toBe(true);
      const events = (await list('similar')).map((e) => [e.message, e.count]);
      expect(events).toEqual([
        ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => [`message ${i}`, 1]),
        ['(combined from similar events): message 11', 2],
      ]);
    });
  });
});
