// A resync owed after a data loss survives the forwarder that owed it. resyncAfterLoss (what a detected Redis data
// loss runs, redis-loss-resync.ts) records the resync as owed in the cluster's checkpoints until it is done; a
// forwarder that starts on those checkpoints and finds it owed (its process died mid-resync, or a pool member takes
// the cluster over from one that did) resumes its watches and runs the resync itself. The same at any start that
// resumes watches into a queue that did not outlive the last process (resyncOnResume: the memory driver). Without that, the keys the
// loss took would wait for the periodic resync (12-24 h): nothing else brings back a key no event touches.
// Real kube-apiserver (the sandbox's fleetq-1) and real Redis checkpoints; the queue records what is added.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { AppsV1Api } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { Forwarder, LOSS_RESYNC_DUE } from '../../shared/forwarder/forwarder.js';
import { Logger } from '../../shared/runtime/logger.js';
import { keyString } from '../../shared/kube/key.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { entryId } from '../../shared/cache/cache-entry.js';
import { RedisCacheStore } from '../../shared/cache/redis-cache-store.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { redisClient } from '../helpers/queue/redis.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { RecordingQueue } from '../helpers/queue/recording-queue.js';

const CLUSTER = 'fleetq-1';

describe('a resync owed after a data loss', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let checkpoints: RedisCheckpointStore;
  const redis = redisClient();
  const queues: RecordingQueue[] = [];
  const running: Forwarder[] = [];
  const key = (name: string): string => keyString({ cluster: CLUSTER, kind: 'Deployment', namespace: ns.name, name });
  const owed = async (): Promise<string | undefined> =>
    (await checkpoints.load(CLUSTER, [LOSS_RESYNC_DUE])).get(LOSS_RESYNC_DUE);

  function forwarder(o: { resyncOnResume?: boolean; cache?: RedisCacheStore } = {}): {
    f: Forwarder;
    q: RecordingQueue;
  } {
    const q = new RecordingQueue();
    const f = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['Deployment'],
      queue: q,
      checkpoints,
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      // No periodic resync: what enqueues the idle key must be the owed one.
      resyncMs: 0,
      ...o,
    });
    queues.push(q);
    running.push(f);
    return { f, q };
  }

  beforeEach(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    checkpoints = new RedisCheckpointStore(redis, `test-${randomUUID()}`);
    // An idle Deployment: once listed, no event of it comes again.
    await c.kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: ns.name,
      body: {
        metadata: { name: 'idle' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'idle' } }, template: kwokPodTemplate({ app: 'idle' }) },
      },
    });
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((f) => f.stop()));
    await Promise.all(queues.splice(0).map((q) => q.inner.close()));
    await checkpoints.clear();
    await ns.remove();
  });

  afterAll(async () => redis.quit());

  /** A forwarder lists the cluster, enqueues the idle key, and stops cleanly: its checkpoints are past it. */
  async function listedAndStopped(): Promise<void> {
    const first = forwarder();
    await first.f.start();
    await first.f.synced();
    await waitFor(async () => first.q.added.includes(key('idle')), 30_000, 50, 'the idle key from the first list');
    await first.f.stop();
  }

  it('resyncAfterLoss enqueues every owned key and clears the record once done', async () => {
    const { f, q } = forwarder();
    await f.start();
    await f.synced();
    const from = q.added.length;
    expect(await f.resyncAfterLoss()).toBeGreaterThan(0);
    expect(q.added.slice(from)).toContain(key('idle'));
    expect(await owed()).toBeUndefined();
  });

  it('resyncAfterLoss brings back an object the cache lost below its watermark (a lagging replica promoted)', async () => {
    // What a promoted replica can hold: the object's last write never reached it, and a list or an event applied
    // there since moved the kind's watermark past it. The cache then reads the object as deleted since the list.
    const cache = new RedisCacheStore({ redis, cluster: CLUSTER, prefix: `test-${randomUUID().slice(0, 8)}` });
    try {
      const { f } = forwarder({ cache });
      await f.start();
      await f.synced();
      const id = entryId('Deployment', ns.name, 'idle');
      await waitFor(async () => (await cache.get(id)) !== null, 30_000, 50, 'the idle Deployment in the cache');
      const watermark = await cache.watermark('Deployment');
      expect(watermark).toBeDefined();
      await cache.remove('Deployment', id, watermark as string);
      expect(await cache.get(id)).toBeNull();
      expect(await cache.watermark('Deployment')).toBe(watermark);

      await f.resyncAfterLoss();
      expect((await cache.get(id))?.metadata?.name).toBe('idle');
      expect(await cache.watermark('Deployment')).toBeDefined();
    } finally {
      await cache.reset();
    }
  });

  it('resyncAfterLoss still refills and enqueues when the cache cannot be reset (Redis still settling)', async () => {
    const store = new RedisCacheStore({ redis, cluster: CLUSTER, prefix: `test-${randomUUID().slice(0, 8)}` });
    let resets = 0;
    const cache = new Proxy(store, {
      get: (target, prop, receiver): unknown =>
        prop === 'reset' && resets++ > 0 // the first start's reset works; the refill's is refused
          ? () => Promise.reject(new Error('LOADING Redis is loading the dataset in memory'))
          : Reflect.get(target, prop, receiver),
    });
    try {
      const { f, q } = forwarder({ cache });
      await f.start();
      await f.synced();
      const from = q.added.length;
      expect(await f.resyncAfterLoss()).toBeGreaterThan(0);
      expect(resets).toBe(2);
      expect(q.added.slice(from)).toContain(key('idle'));
      expect(await owed()).toBeUndefined();
      expect(f.stats.errors).toBe(1);
    } finally {
      await store.reset();
    }
  });

  it('losses met at once (the queue marker and the primaries watch see one failover): their resyncs run one after the other', async () => {
    // Run together, the second's cache reset lands in the first's refill, between a kind's beginReplace and its
    // endReplace, and the first's keys go out while the kind is not current. (Before the cache set no watermark
    // after such a reset, the end marked the kind current without the objects filed before the reset; the next
    // relist could not bring them back, below that watermark, and their keys planned nothing.) The cache below
    // holds a second reset back until a page of Deployments was filed after the first (what the race needs), and
    // records each step once done.
    const store = new RedisCacheStore({ redis, cluster: CLUSTER, prefix: `test-${randomUUID().slice(0, 8)}` });
    const steps: string[] = [];
    let pageSinceReset = true;
    let held: { release: () => void; done: Promise<void> } | undefined;
    const cache = new Proxy(store, {
      get: (target, prop, receiver): unknown => {
        if (prop === 'reset')
          return async (): Promise<void> => {
            const hold = !pageSinceReset;
            pageSinceReset = false;
            if (hold) {
              let release = (): void => undefined;
              const gate = new Promise<void>((resolve) => (release = resolve));
              let finished = (): void => undefined;
              held = { release, done: new Promise<void>((resolve) => (finished = resolve)) };
              const deadline = setTimeout(release, 10_000);
              await gate;
              clearTimeout(deadline);
              await target.reset().finally(finished);
            } else await target.reset();
            steps.push('reset');
          };
        if (prop === 'beginReplace' || prop === 'endReplace')
          return async (kind: string, ...rest: unknown[]): Promise<void> => {
            await (target[prop] as (...a: unknown[]) => Promise<void>).call(target, kind, ...rest);
            steps.push(`${prop}:${kind}`);
          };
        if (prop === 'putListed')
          return async (entries: Parameters<RedisCacheStore['putListed']>[0]): Promise<void> => {
            await target.putListed(entries);
            if (!entries.some((e) => e.kind === 'Deployment')) return;
            pageSinceReset = true;
            if (held) {
              const { release, done } = held;
              held = undefined;
              release();
              await done;
            }
          };
        return Reflect.get(target, prop, receiver);
      },
    });
    try {
      const { f, q } = forwarder({ cache });
      await f.start();
      await f.synced();
      const from = steps.length;
      const added = q.added.length;
      // A third asked while the second is due shares it.
      const counts = await Promise.all([f.resyncAfterLoss(), f.resyncAfterLoss(), f.resyncAfterLoss()]);
      expect(counts.every((n) => n > 0)).toBe(true);
      // The cache holds the object again once both are done.
      expect((await store.get(entryId('Deployment', ns.name, 'idle')))?.metadata?.name).toBe('idle');
      expect(await store.watermark('Deployment')).toBeDefined();
      // No reset while a kind was being relisted.
      const open = new Set<string>();
      const resetsMidRelist: string[] = [];
      for (const step of steps.slice(from)) {
        const [what, kind] = step.split(':') as [string, string | undefined];
        if (what === 'beginReplace') open.add(kind as string);
        else if (what === 'endReplace') open.delete(kind as string);
        else if (open.size > 0) resetsMidRelist.push(`reset while relisting ${[...open].join(', ')}`);
      }
      expect(resetsMidRelist).toEqual([]);
      expect(steps.slice(from).filter((s) => s === 'reset')).toHaveLength(2);
      expect(q.added.slice(added).filter((k) => k === key('idle'))).toHaveLength(2);
      expect(await owed()).toBeUndefined();
    } finally {
      held?.release();
      await store.reset();
    }
  });

  it('a forwarder starting on checkpoints that owe a resync resumes its watches and runs it', async () => {
    await listedAndStopped();
    // What a forwarder that died mid-resync leaves: the record resyncAfterLoss wrote before it began.
    await checkpoints.save(CLUSTER, new Map([[LOSS_RESYNC_DUE, String(Date.now())]]));

    const next = forwarder();
    await next.f.start();
    await waitFor(async () => next.q.added.includes(key('idle')), 30_000, 50, 'the idle key from the owed resync');
    await waitFor(async () => (await owed()) === undefined, 10_000, 50, 'the owed resync cleared');
    // Resumed from the checkpoints (no list of its own enqueued the key): the resync did.
    expect(next.f.stats.relists).toEqual({ initial: 0, expired: 0 });
    expect(next.f.stats.resyncs).toBe(1);
  });

  it('resyncOnResume (a queue that died with the last process): a start that resumes watches resyncs', async () => {
    await listedAndStopped();
    const next = forwarder({ resyncOnResume: true });
    await next.f.start();
    await waitFor(async () => next.q.added.includes(key('idle')), 30_000, 50, 'the idle key from the resync');
    expect(next.f.stats.relists).toEqual({ initial: 0, expired: 0 });
    expect(next.f.stats.resyncs).toBe(1);
  });

  it('a forwarder starting on checkpoints that owe nothing resyncs nothing', async () => {
    await listedAndStopped();
    const next = forwarder();
    await next.f.start();
    await next.f.synced();
    // A later change is a marker: once its key is through, the start's own work is done.
    await c.kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: ns.name,
      body: {
        metadata: { name: 'marker' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'm' } }, template: kwokPodTemplate({ app: 'm' }) },
      },
    });
    await waitFor(async () => next.q.added.includes(key('marker')), 30_000, 50, 'the marker key');
    expect(next.f.stats.resyncs).toBe(0);
    expect(next.q.added).not.toContain(key('idle'));
  });
});
