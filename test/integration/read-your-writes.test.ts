// Read-your-writes on a real apiserver (fleetq-2), through the real runtime and a real forwarder filling an
// in-process cache. The cache is made to lag on purpose: every Pod event reaches it 3 s late (a slow
// informer). Two passes of a ReplicaSet of 3 run back to back; the first creates 3 pods. The second reads:
// - with the wait (as shipped): it waits until the cache has passed the first pass's creates, sees 3 pods and
//   creates nothing;
// - with the wait removed: it reads the lagging cache, sees no pods and creates 3 more (a double create), and
//   seen on the sandbox: its status write then conflicts as well.
// The ReplicaSet guard is taken out of both runs, so that what stops the double create is the wait alone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { setTimeout as delay } from 'node:timers/promises';
import type { CacheEntry } from '../../shared/cache/cache-entry.js';
import type { CacheStore } from '../../shared/cache/cache-store.js';
import { CachedClusterView } from '../../shared/cache/cached-cluster-view.js';
import { MemoryCacheStore } from '../../shared/cache/memory-cache-store.js';
import type { Controller } from '../../shared/controllers/controller.js';
import { replicaSetController } from '../../shared/controllers/replicaset/index.js';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { LiveClusterView } from '../../shared/kube/cluster-view.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { Logger } from '../../shared/runtime/logger.js';
import { reconcileOne, type Outcome, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-2';
const REPLICAS = 3;
const POD_LAG_MS = 3_000;

/** A store whose Pod changes land POD_LAG_MS after they arrive, in order (its Pod watermark lags with them). */
class LaggingStore extends MemoryCacheStore {
  lagging = false;
  private chain: Promise<void> = Promise.resolve();

  override put(entry: CacheEntry, rv: string): Promise<void> {
    return this.later(entry.kind, () => super.put(entry, rv));
  }
  override remove(kind: string, id: string, rv: string): Promise<void> {
    return this.later(kind, () => super.remove(kind, id, rv));
  }
  override advance(kind: string, rv: string): Promise<void> {
    return this.later(kind, () => super.advance(kind, rv));
  }
  private later(kind: string, apply: () => Promise<void>): Promise<void> {
    if (!this.lagging || kind !== 'Pod') return apply();
    // Accepted at once (the forwarder goes on), applied POD_LAG_MS after it arrived, in arrival order.
    const due = Date.now() + POD_LAG_MS;
    this.chain = this.chain.then(async () => {
      await delay(Math.max(0, due - Date.now()));
      await apply();
    });
    return Promise.resolve();
  }
}

describe('read-your-writes through a lagging cache', () => {
  let c: TestCluster;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let store: LaggingStore;
  let forwarder: Forwarder;
  const namespaces: Array<{ remove: () => Promise<void> }> = [];

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    core = c.kc.makeApiClient(CoreV1Api);
    apps = c.kc.makeApiClient(AppsV1Api);
    store = new LaggingStore();
    forwarder = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['ReplicaSet'],
      queue: { add: async () => undefined, addAfter: async () => undefined, parkInvalid: async () => undefined },
      checkpoints: new MemoryCheckpointStore(),
      cache: store as CacheStore,
      resyncMs: 0,
      logger: new Logger('ryw-forwarder', 'error'),
    });
    await forwarder.start();
    await forwarder.synced();
  });

  afterAll(async () => {
    await forwarder.stop();
    await Promise.all(namespaces.map((n) => n.remove()));
  });

  async function waitForCached(id: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while ((await store.get(id)) === null) {
      if (Date.now() > deadline) throw new Error(`${id} never reached the cache`);
      await delay(50);
    }
  }

  async function livePods(namespace: string): Promise<V1Pod[]> {
    const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=web' })).items;
    return pods.filter((p) => !p.metadata?.deletionTimestamp);
  }

  /** Two passes back to back; returns their outcomes and the pods the apiserver then holds. */
  async function twoPasses(readYourWrites: boolean): Promise<{ outcomes: Outcome[]; pods: number; waited: string[] }> {
    const waited: string[] = [];
    const ns = await testNamespace(c.kc);
    namespaces.push(ns);
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
    await waitForCached(`ReplicaSet/${ns.name}/web`);
    store.lagging = true;
    const { preflight: _guardRemoved, ...unguarded } = replicaSetController;
    const queue = new MemoryQueue();
    const base = inProcessDeps(c, {
      owns: ['ReplicaSet'],
      controllers: [['ReplicaSet', unguarded as Controller]],
      queue,
      service: 'ryw-it',
    });
    const rest = base.clients(CLUSTER).rest;
    const cached = new CachedClusterView({
      store,
      live: new LiveClusterView(rest),
      cachedKinds: new Set(['Pod', 'ReplicaSet']),
      waitMs: 20_000,
      readYourWrites,
      onWait: (e) => waited.push(e.outcome),
    });
    const deps: ReconcileDeps = { ...base, clients: () => ({ rest, view: cached, cached }) };
    const key = { cluster: CLUSTER, kind: 'ReplicaSet', namespace: ns.name, name: 'web' };
    const outcomes: Outcome[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        await queue.add(key);
        const lease = await queue.get(10_000);
        if (!lease) throw new Error('no lease');
        outcomes.push(await reconcileOne(deps, lease));
      }
    } finally {
      await queue.close();
      store.lagging = false;
    }
    return { outcomes, pods: (await livePods(ns.name)).length, waited };
  }

  it('with the wait, the second pass sees its own creates and creates nothing more', async () => {
    const { outcomes, pods, waited } = await twoPasses(true);
    expect(outcomes).toEqual(['done', 'done']);
    expect(pods).toBe(REPLICAS);
    // The second pass waited for the cache (it did not fall back to live reads).
    expect(waited).toEqual(['caught-up']);
  });

  it('with the wait removed, the second pass reads the lagging cache and creates them again', async () => {
    const { outcomes, pods, waited } = await twoPasses(false);
    // The second pass creates 3 more before its status write, which then conflicts too (it read a stale
    // ReplicaSet as well): both are what reading behind one's own writes does.
    expect({ first: outcomes[0], pods, waited }).toEqual({ first: 'done', pods: 2 * REPLICAS, waited: [] });
  });
});
