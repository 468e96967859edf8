// The event pipeline's enqueues: a key the mapping batches (the Job descriptor's Pod owns entry, batchMs 1000:
// upstream's syncJobBatchPeriod) goes to queue.addAfter, every other key to queue.add; one key of a batch is
// enqueued once, at once when any event of the batch yields it at once. On a MemoryQueue with a fixed clock, a
// pod change runs its Job 1 s later, and pod changes within that second share the run.
import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { EventPipeline, type PipelineStats } from '../../../shared/forwarder/event-pipeline.js';
import { forwarderMetrics } from '../../../shared/forwarder/metrics.js';
import { DEFAULT_TRIM_LIMITS } from '../../../shared/forwarder/object-trim.js';
import type { WatchedEvent } from '../../../shared/forwarder/resource-watcher.js';
import type { KubeObject } from '../../../shared/forwarder/resources.js';
import { keyString, type ReconcileKey } from '../../../shared/kube/key.js';
import type { Kind } from '../../../shared/kube/kinds.js';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import type { WorkQueue } from '../../../shared/queue/work-queue.js';
import { Logger } from '../../../shared/runtime/logger.js';
import type { CacheChange, CacheStore } from '../../../shared/cache/cache-store.js';
import { MemoryCacheStore } from '../../../shared/cache/memory-cache-store.js';

const NS = 'ns';
const JOB = 'c1/Job/ns/train';

type Enqueue = { op: 'add' } | { op: 'addAfter'; delayMs: number };
type Queue = Pick<WorkQueue, 'add' | 'addAfter' | 'parkInvalid'>;

/** Records each enqueue by key string (and passes it on, when given a queue). */
class Recorder implements Queue {
  readonly calls: Array<{ key: string } & Enqueue> = [];
  constructor(private readonly inner?: Queue) {}
  async add(key: ReconcileKey): Promise<void> {
    this.calls.push({ key: keyString(key), op: 'add' });
    await this.inner?.add(key);
  }
  async addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    this.calls.push({ key: keyString(key), op: 'addAfter', delayMs });
    await this.inner?.addAfter(key, delayMs);
  }
  async parkInvalid(): Promise<void> {}
}

function pipeline(queue: Queue, owns: readonly Kind[] = ['Job', 'ReplicaSet'], cache?: CacheStore): EventPipeline {
  const stats: PipelineStats = {
    events: 0,
    keysAdded: 0,
    relists: { initial: 0, expired: 0 },
    warmLists: 0,
    invalidKeys: 0,
  };
  return new EventPipeline({
    cluster: 'c1',
    owns,
    handOver: [],
    served: owns,
    queue,
    logListed: false,
    trim: DEFAULT_TRIM_LIMITS,
    stats,
    metrics: forwarderMetrics(new Registry()),
    logger: new Logger('test', 'error'),
    now: () => 0,
    countError: () => {},
    listsAcrossRuns: () => false,
    ...(cache !== undefined && { cache }),
  });
}

const job = (name = 'train'): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: NS, uid: `uid-${name}` },
  spec: { selector: { matchLabels: { job: name } } },
});
const pod = (name: string, owner: { kind: string; name: string; apiVersion: string } | null, labels = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: NS,
    labels,
    ...(owner && { ownerReferences: [{ ...owner, uid: `uid-${owner.name}`, controller: true }] }),
  },
});
const jobPod = (name: string) => pod(name, { kind: 'Job', name: 'train', apiVersion: 'batch/v1' });
const ev = (type: WatchedEvent['type'], object: KubeObject): WatchedEvent => ({ type, object });

describe('event pipeline: batched keys go to addAfter, the others to add', () => {
  it.each(['ADDED', 'MODIFIED', 'DELETED'] as const)(
    'a %s pod of a Job enqueues the Job with addAfter 1000',
    async (type) => {
      const q = new Recorder();
      await pipeline(q).onEvents('pods', [ev(type, jobPod('train-0'))]);
      expect(q.calls).toEqual([{ key: JOB, op: 'addAfter', delayMs: 1000 }]);
    },
  );

  it("a Job's own events, and a ReplicaSet's pods, are enqueued with add", async () => {
    const q = new Recorder();
    const p = pipeline(q);
    await p.onEvents('jobs', [ev('ADDED', job()), ev('MODIFIED', job())]);
    await p.onEvents('pods', [
      ev('MODIFIED', pod('web-x', { kind: 'ReplicaSet', name: 'web', apiVersion: 'apps/v1' })),
    ]);
    expect(q.calls).toEqual([
      { key: JOB, op: 'add' },
      { key: 'c1/ReplicaSet/ns/web', op: 'add' },
    ]);
  });

  it('an orphan pod its Job selects enqueues the Job with addAfter 1000 (adoption, as upstream batches it)', async () => {
    const q = new Recorder();
    const p = pipeline(q);
    await p.onEvents('jobs', [ev('ADDED', job())]);
    q.calls.length = 0;
    await p.onEvents('pods', [ev('ADDED', pod('stray', null, { job: 'train' }))]);
    expect(q.calls).toEqual([{ key: JOB, op: 'addAfter', delayMs: 1000 }]);
  });

  it('pods of one Job in one batch: one addAfter; a pods relist after 410, which also wakes the Job at once: one add', async () => {
    const q = new Recorder();
    const p = pipeline(q);
    await p.onEvents('pods', [ev('ADDED', jobPod('train-0')), ev('MODIFIED', jobPod('train-1'))]);
    expect(q.calls).toEqual([{ key: JOB, op: 'addAfter', delayMs: 1000 }]);
    q.calls.length = 0;
    // A batch holds one resource's events; the mixed case is an expired pods list: its pods batch the Job, the
    // wake-up of every workload that depends on pods does not.
    await p.onList('jobs', 'initial', [job()], '5');
    await p.onList('pods', 'expired', [jobPod('train-0')], '6');
    expect(q.calls).toEqual([
      { key: JOB, op: 'add' },
      { key: JOB, op: 'add' },
    ]);
  });

  it('a listed page of pods (a relist) enqueues their Job with addAfter 1000', async () => {
    const q = new Recorder();
    await pipeline(q).onListPage('pods', 'initial', [jobPod('train-0'), jobPod('train-1')], true);
    expect(q.calls).toEqual([{ key: JOB, op: 'addAfter', delayMs: 1000 }]);
  });

  it('a failed addAfter fails the batch (its watch starts again from before it: nothing is lost)', async () => {
    const failing: Queue = {
      add: async () => {},
      addAfter: async () => {
        throw new Error('queue down');
      },
      parkInvalid: async () => {},
    };
    await expect(pipeline(failing).onEvents('pods', [ev('MODIFIED', jobPod('train-0'))])).rejects.toThrow('queue down');
  });
});

describe('event pipeline on a MemoryQueue with a fixed clock: a pod change runs its Job 1 s later', () => {
  it('is not handed out before 1 s; pod changes within that second share one run; a Job change runs at once', async () => {
    let now = 10_000;
    const memory = new MemoryQueue({ now: () => now });
    const p = pipeline(memory);
    await p.onEvents('pods', [ev('MODIFIED', jobPod('train-0'))]);
    now += 500;
    await p.onEvents('pods', [ev('MODIFIED', jobPod('train-1'))]);
    expect(await memory.get(0)).toBeNull();
    now += 499; // 999 ms after the first pod change
    expect(await memory.get(0)).toBeNull();
    now += 1;
    const lease = await memory.get(0);
    expect(lease?.id).toBe(JOB);
    await memory.done(lease!);
    now += 5_000;
    expect(await memory.get(0)).toBeNull(); // the second change's later time was dropped: one run for both
    // A pod change then a Job change: the Job's runs at once (the earlier time wins).
    await p.onEvents('pods', [ev('MODIFIED', jobPod('train-0'))]);
    await p.onEvents('jobs', [ev('MODIFIED', job())]);
    expect((await memory.get(0))?.id).toBe(JOB);
    await memory.close();
  });

  it('a pod change while the Job runs: it runs again 1 s after the change, once the run is done', async () => {
    let now = 10_000;
    const memory = new MemoryQueue({ now: () => now, leaseMs: 60_000 });
    const p = pipeline(memory);
    await p.onEvents('jobs', [ev('ADDED', job())]);
    const first = await memory.get(0);
    expect(first?.id).toBe(JOB);
    await p.onEvents('pods', [ev('ADDED', jobPod('train-0'))]);
    now += 200;
    await memory.done(first!);
    expect(await memory.get(0)).toBeNull();
    now += 800;
    const second = await memory.get(0);
    expect(second?.id).toBe(JOB);
    expect(second?.token).not.toBe(first?.token);
    await memory.close();
  });
});

describe('the cache writes of a batch', () => {
  it("are one applyMany of the batch's events in their order (on Redis one script call: no write overtakes another)", async () => {
    const store = new MemoryCacheStore();
    const calls: Array<{ kind: string; changes: string[] }> = [];
    const applyMany = store.applyMany.bind(store);
    store.applyMany = async (kind: string, changes: readonly CacheChange[]) => {
      calls.push({ kind, changes: changes.map((c) => (c.type === 'put' ? `put ${c.entry.name}` : `remove ${c.id}`)) });
      await applyMany(kind, changes);
    };
    await pipeline(new Recorder(), ['Job', 'ReplicaSet'], store).onEvents('pods', [
      ev('ADDED', jobPod('train-0')),
      ev('ADDED', jobPod('train-1')),
      ev('DELETED', jobPod('train-0')),
      ev('ADDED', jobPod('train-2')),
    ]);
    expect(calls).toEqual([
      { kind: 'Pod', changes: ['put train-0', 'put train-1', 'remove Pod/ns/train-0', 'put train-2'] },
    ]);
  });
});
