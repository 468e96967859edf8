// The WorkQueue contract (shared/queue/work-queue.ts), one scenario file run against every driver:
// memory, bullmq (real Redis at REDIS_URL) and sqs (a real fauxqs on a free port). Timings scale with each
// driver's documented granularity (SQS works in whole seconds); nothing waits on a fixed sleep.
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Registry } from 'prom-client';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { instrument } from '../../shared/queue/metrics.js';
import { backoffDelay, type Lease, type QueueOptions, type WorkQueue } from '../../shared/queue/work-queue.js';
import { allDrivers, type TestQueue } from '../helpers/queue-drivers.js';

jest.setTimeout(60_000);

const key = (cluster: string, name: string): ReconcileKey => ({
  cluster,
  kind: 'Deployment',
  namespace: 'default',
  name,
});

/** Gets until a lease arrives or the deadline passes; returns it with the time it took. */
async function getWithin(queue: WorkQueue, ms: number): Promise<{ lease: Lease | null; tookMs: number }> {
  const start = Date.now();
  const lease = await queue.get(ms);
  return { lease, tookMs: Date.now() - start };
}

async function mustGet(queue: WorkQueue, ms = 5_000): Promise<Lease> {
  const { lease } = await getWithin(queue, ms);
  if (!lease) throw new Error(`no lease within ${ms} ms`);
  return lease;
}

describe.each(allDrivers())('WorkQueue contract: $name', (h) => {
  let opened: TestQueue[] = [];
  const open = async (options: QueueOptions = {}): Promise<WorkQueue> => {
    const q = await h.create({ leaseMs: h.leaseMs * 10, baseDelayMs: h.baseDelayMs, ...options });
    opened.push(q);
    return q.queue;
  };
  const short = h.name === 'sqs' ? 1_500 : 150; // "nothing arrives" windows

  beforeAll(() => h.start());
  afterAll(() => h.stop());
  afterEach(async () => {
    await Promise.all(opened.map((q) => q.dispose()));
    opened = [];
  });

  it('hands out a key added three times while waiting once', async () => {
    const q = await open();
    for (let i = 0; i < 3; i++) await q.add(key('a', 'web'));
    expect(await q.depth()).toBe(h.depthCountsMessages ? 3 : 1);
    const lease = await mustGet(q);
    expect(lease.key).toEqual(key('a', 'web'));
    expect(lease.failures).toBe(0);
    await q.done(lease);
    expect((await getWithin(q, short)).lease).toBeNull();
  });

  it('runs a key added while held once more after done, never concurrently', async () => {
    const q = await open();
    await q.add(key('a', 'web'));
    const first = await mustGet(q);
    await q.add(key('a', 'web'));
    await q.add(key('a', 'web'));
    expect((await getWithin(q, short)).lease).toBeNull();
    await q.done(first);
    const second = await mustGet(q);
    expect(second.id).toBe(first.id);
    expect(second.token).not.toBe(first.token);
    await q.done(second);
    expect((await getWithin(q, short)).lease).toBeNull();
  });

  it('addAfter: the earlier of two ready times wins', async () => {
    const q = await open();
    const later = h.roundDelay(20_000);
    const earlier = h.roundDelay(h.baseDelayMs * 3);
    await q.addAfter(key('a', 'web'), later);
    await q.addAfter(key('a', 'web'), earlier);
    const { lease, tookMs } = await getWithin(q, later / 2);
    expect(lease?.id).toBe('a/Deployment/default/web');
    expect(tookMs).toBeGreaterThanOrEqual(earlier - 50);
    expect(tookMs).toBeLessThan(later / 2);
    await q.done(lease as Lease);
    if (h.dropsLaterAddAfter) expect(await q.depth()).toBe(0);
  });

  it('backs off exponentially on retry and resets on done', async () => {
    const q = await open({ maxFailures: 10 });
    await q.add(key('a', 'web'));
    let lease = await mustGet(q);
    const delays: number[] = [];
    for (let failures = 0; failures < 2; failures++) {
      expect(lease.failures).toBe(failures);
      const outcome = await q.retry(lease, new Error(`boom ${failures}`));
      const want = h.roundDelay(backoffDelay(failures, h.baseDelayMs, 1_000_000));
      expect(outcome).toEqual({ outcome: 'retried', delayMs: want });
      delays.push(want);
      const got = await getWithin(q, want * 4 + 2_000);
      expect(got.tookMs).toBeGreaterThanOrEqual(want - 50);
      lease = got.lease as Lease;
    }
    expect(delays[1]).toBe((delays[0] as number) * 2);
    expect(lease.failures).toBe(2);
    await q.done(lease);
    await q.add(key('a', 'web'));
    expect((await mustGet(q)).failures).toBe(0);
  });

  it('dead-letters after maxFailures with the last error', async () => {
    const q = await open({ maxFailures: 3, baseDelayMs: h.name === 'sqs' ? 1 : 5 });
    await q.add(key('a', 'web'));
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const lease = await mustGet(q);
      outcomes.push((await q.retry(lease, new Error(`boom ${i}`))).outcome);
    }
    expect(outcomes).toEqual(['retried', 'retried', 'dead-lettered']);
    const letters = await q.deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ key: key('a', 'web'), failures: 3 });
    expect(letters[0]?.reason).toContain('boom 2');
    expect((await getWithin(q, short)).lease).toBeNull();
  });

  it('redrives dead letters back to ready with the failure count reset', async () => {
    const q = await open();
    await q.add(key('a', 'web'));
    await q.add(key('b', 'api'));
    await q.deadLetter(await mustGet(q), 'terminal: spec invalid');
    await q.deadLetter(await mustGet(q), 'terminal: spec invalid');
    expect((await q.deadLetters()).map((d) => d.key?.cluster).sort()).toEqual(['a', 'b']);
    expect(await q.redrive((d) => d.key?.cluster === 'b')).toBe(1);
    expect((await q.deadLetters()).map((d) => d.key?.cluster)).toEqual(['a']);
    const lease = await mustGet(q);
    expect(lease).toMatchObject({ id: 'b/Deployment/default/api', failures: 0 });
    await q.done(lease);
    expect(await q.redrive()).toBe(1);
    expect(await q.deadLetters()).toEqual([]);
    expect((await mustGet(q)).id).toBe('a/Deployment/default/web');
  });

  it('re-hands out a key whose lease expired, with a new token; the old token is fenced off', async () => {
    const q = await open({ leaseMs: h.leaseMs });
    await q.add(key('a', 'web'));
    const first = await mustGet(q);
    const second = await mustGet(q, h.leaseMs * 4 + 2_000);
    expect(second.id).toBe(first.id);
    expect(second.token).not.toBe(first.token);
    expect(second.failures).toBe(1);
    expect(await q.renew(first)).toBe(false);
    expect(await q.retry(first, new Error('late'))).toEqual({ outcome: 'lease-lost' });
    await q.done(first); // ignored: the key stays held by `second`
    expect(await q.renew(second)).toBe(true);
    expect((await getWithin(q, Math.min(short, h.leaseMs / 3))).lease).toBeNull();
    await q.done(second);
  });

  it('rotates over clusters: a quiet cluster is served within 2 gets', async () => {
    const q = await open();
    const busy = Math.min(500, h.fairnessWindow - 2);
    for (let i = 0; i < busy; i++) await q.add(key('a', `web-${i}`));
    await q.add(key('b', 'api'));
    const first = await mustGet(q);
    const second = await mustGet(q);
    expect([first.key.cluster, second.key.cluster]).toContain('b');
  });

  it('never holds more than clusterConcurrency keys of one cluster', async () => {
    const q = await open({ clusterConcurrency: 2, clusterConcurrencyOverrides: { b: 1 } });
    for (let i = 0; i < 4; i++) await q.add(key('a', `web-${i}`));
    for (let i = 0; i < 3; i++) await q.add(key('b', `api-${i}`));
    const held: Lease[] = [];
    for (let got = await getWithin(q, short); got.lease; got = await getWithin(q, short)) held.push(got.lease);
    const count = (c: string) => held.filter((l) => l.key.cluster === c).length;
    expect({ a: count('a'), b: count('b') }).toEqual({ a: 2, b: 1 });
    await q.done(held.find((l) => l.key.cluster === 'a') as Lease);
    expect((await mustGet(q)).key.cluster).toBe('a');
  });

  it('dead-letters a malformed message with its reason and never hands it out', async () => {
    const tq = await h.create({ leaseMs: h.leaseMs * 10 });
    opened.push(tq);
    await tq.injectRaw('not a key');
    await tq.queue.add(key('a', 'web'));
    const lease = await mustGet(tq.queue);
    expect(lease.id).toBe('a/Deployment/default/web');
    expect((await getWithin(tq.queue, short)).lease).toBeNull();
    const letters = await tq.queue.deadLetters();
    expect(letters).toEqual([expect.objectContaining({ key: null, raw: 'not a key' })]);
    expect(letters[0]?.reason).toMatch(/malformed reconcile key/);
  });

  it('reports depth: waiting keys, ready or delayed, not held', async () => {
    const q = await open();
    for (const name of ['x', 'y', 'z']) await q.add(key('a', name));
    await q.addAfter(key('a', 'later'), 60_000);
    expect(await q.depth()).toBe(4);
    await mustGet(q);
    expect(await q.depth()).toBe(3);
  });

  it('exports client-go workqueue metrics through instrument()', async () => {
    const registry = new Registry();
    const q = instrument(await open(), registry, 'contract');
    await q.add(key('a', 'web'));
    await q.done(await mustGet(q));
    const text = await registry.metrics();
    expect(text).toContain('workqueue_adds_total{name="contract",cluster="a",kind="Deployment"} 1');
    expect(text).toMatch(/workqueue_queue_duration_seconds_count\{name="contract",cluster="a",kind="Deployment"\} 1/);
    expect(text).toMatch(/workqueue_work_duration_seconds_count\{name="contract",cluster="a",kind="Deployment"\} 1/);
    expect(text).toContain('workqueue_depth');
    expect(text).toContain('workqueue_unfinished_work_seconds');
    expect(text).toContain('workqueue_retries_total');
  });
});
