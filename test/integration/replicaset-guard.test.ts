// The ReplicaSet guard on a real apiserver (fleetq-1): the paging bug is put back on purpose in a test-only
// view whose list() returns the first page only (page size 5). The namespace holds 6 pods of another app whose
// names sort first, so observe never sees the ReplicaSet's own pods and plans to create them again every pass.
// With the guard, the second pass is refused (GuardRefused, retried) and the pods stay at replicas; without it
// (the same controller with preflight removed), the same view over-creates. Driven through the real runtime.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import type { ApiObject } from '../../shared/kube/meta/object.js';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { Controller } from '../../shared/controllers/controller.js';
import { replicaSetController } from '../../shared/controllers/replicaset/index.js';
import type { ObservedReplicaSet } from '../../shared/controllers/replicaset/types.js';
import { LiveClusterView, type ListPage } from '../../shared/kube/cluster-view.js';
import { GuardRefusedError } from '../../shared/kube/errors.js';
import type { ListOptions } from '../../shared/kube/view.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type Outcome, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { Logger } from '../../shared/runtime/logger.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
const PAGE = 5;
const FILLERS = 6;
const REPLICAS = 3;

type LogLine = Record<string, unknown> & { level: string; message: string };

/** The bug, on purpose: list() stops after the first page. countControlled is the live view's own. */
class FirstPageOnlyView extends LiveClusterView {
  override async list<T extends ApiObject>(
    kind: string,
    namespace: string | undefined,
    options: ListOptions = {},
  ): Promise<T[]> {
    for await (const page of this.pages<T>(kind, namespace, options)) return firstPage(page, kind);
    return [];
  }
}

function firstPage<T extends ApiObject>(page: ListPage<T>, kind: string): T[] {
  return page.items.map((o) => ({ ...o, apiVersion: 'v1', kind }));
}

describe('ReplicaSet guard against a list that stops after its first page', () => {
  let c: TestCluster;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  const namespaces: Array<{ name: string; remove: () => Promise<void> }> = [];

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    core = c.kc.makeApiClient(CoreV1Api);
    apps = c.kc.makeApiClient(AppsV1Api);
  });

  afterAll(async () => {
    await Promise.all(namespaces.map((n) => n.remove()));
  });

  /** A namespace with FILLERS pods named `a-filler-*` (first in list order) and a ReplicaSet `web` of 3. */
  async function setUp(): Promise<string> {
    const ns = await testNamespace(c.kc);
    namespaces.push(ns);
    for (let i = 0; i < FILLERS; i++) {
      await core.createNamespacedPod({
        namespace: ns.name,
        body: { metadata: { name: `a-filler-${i}`, labels: { app: 'filler' } }, spec: kwokPodTemplate({}).spec! },
      });
    }
    await apps.createNamespacedReplicaSet({
      namespace: ns.name,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: REPLICAS,
          selector: { matchLabels: { app: 'web' } },
          template: kwokPodTemplate({ app: 'web' }),
        },
      },
    });
    return ns.name;
  }

  async function webPods(namespace: string): Promise<V1Pod[]> {
    const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=web' })).items;
    return pods.filter((p) => !p.metadata?.deletionTimestamp);
  }

  /** Runs `passes` reconciles of the ReplicaSet through the runtime with the first-page-only view. */
  async function drive(namespace: string, controller: Controller<ObservedReplicaSet>, passes: number) {
    const queue = new MemoryQueue();
    const refusals: GuardRefusedError[] = [];
    const logs: LogLine[] = [];
    const recording: Controller<ObservedReplicaSet> = {
      ...controller,
      ...(controller.preflight && {
        preflight: (view, key, o, result) =>
          controller.preflight!(view, key, o, result).catch((err: unknown) => {
            if (err instanceof GuardRefusedError) refusals.push(err);
            throw err;
          }),
      }),
    };
    const base = inProcessDeps(c, {
      owns: ['ReplicaSet'],
      controllers: [['ReplicaSet', recording as Controller]],
      queue,
      service: 'replicaset-guard-it',
    });
    const rest = base.clients(CLUSTER).rest;
    const deps: ReconcileDeps = {
      ...base,
      logger: new Logger('replicaset-guard-it', 'warn', (line) => logs.push(JSON.parse(line) as LogLine)),
      clients: () => ({ rest, view: new FirstPageOnlyView(rest, { pageSize: PAGE }) }),
    };
    const outcomes: Outcome[] = [];
    const key = { cluster: CLUSTER, kind: 'ReplicaSet', namespace, name: 'web' };
    try {
      for (let i = 0; i < passes; i++) {
        await queue.add(key);
        const lease = await queue.get(10_000);
        if (!lease) throw new Error('the queue handed out no lease');
        outcomes.push(await reconcileOne(deps, lease));
      }
    } finally {
      await queue.close();
    }
    return { outcomes, refusals, logs };
  }

  it('with the guard: the first pass creates 3, later passes are refused and the pods stay at 3', async () => {
    const namespace = await setUp();
    const { outcomes, refusals, logs } = await drive(namespace, replicaSetController, 4);
    expect(outcomes[0]).toBe('done');
    expect(outcomes.slice(1)).toEqual(['retried', 'retried', 'retried']);
    expect(refusals).toHaveLength(3);
    expect(refusals[0]?.code).toBe('GuardRefused');
    expect(refusals[0]?.fields).toEqual({
      live: REPLICAS,
      creates: REPLICAS,
      replicas: REPLICAS,
      maxSurge: 0,
      bound: REPLICAS,
      observedPods: PAGE,
    });
    expect(await webPods(namespace)).toHaveLength(REPLICAS);
    const refused = logs.filter((l) => l.message === 'Guard refused the plan');
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatchObject({
      level: 'error',
      code: 'GuardRefused',
      live: REPLICAS,
      creates: REPLICAS,
      bound: REPLICAS,
      name: 'web',
      namespace,
    });
  });

  it('without the guard, the same view over-creates (what the guard prevents)', async () => {
    const namespace = await setUp();
    const { preflight: _omitted, ...unguarded } = replicaSetController;
    const { outcomes, refusals } = await drive(namespace, unguarded, 3);
    expect(outcomes).toEqual(['done', 'done', 'done']);
    expect(refusals).toEqual([]);
    expect(await webPods(namespace)).toHaveLength(3 * REPLICAS);
  });
});
