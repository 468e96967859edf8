// The WorkQueue contract (shared/queue/work-queue.ts), one scenario file run against every driver:
// memory, redis (real Redis at REDIS_URL) and sqs (a real fauxqs on a free port). Timings scale with each
// driver's documented granularity (SQS works in whole seconds); nothing waits on a fixed sleep.
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Registry } from 'prom-client';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { BAD_SIGNATURE, signKey } from '../../shared/queue/message-signing.js';
import { instrument } from '../../shared/queue/metrics.js';
import {
  backoffDelay,
  type Lease,
  type QueueOptions,
  type RetryOutcome,
  type WorkQueue,
} from '../../shared/queue/work-queue.js';
import { allDrivers, type TestQueue } from '../helpers/queue/drivers.js';

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

  it('addAfter keeps the sooner time of a key already waiting: a later addAfter does not hold it back', async () => {
    const q = await open();
    const later = h.roundDelay(20_000);
    await q.add(key('a', 'web'));
    await q.addAfter(key('a', 'web'), later);
    const { lease, tookMs } = await getWithin(q, later / 2);
    expect(lease?.id).toBe('a/Deployment/default/web');
    expect(tookMs).toBeLessThan(h.name === 'sqs' ? 4_000 : 1_000);
    await q.done(lease as Lease);
    if (h.dropsLaterAddAfter) expect(await q.depth()).toBe(0);
  });

  it('addAfter on a held key marks it dirty: it runs once more after done, never concurrently, not before its time', async () => {
    const q = await open();
    const delay = h.roundDelay(h.baseDelayMs * 5);
    await q.add(key('a', 'web'));
    const first = await mustGet(q);
    const addedAt = Date.now();
    await q.addAfter(key('a', 'web'), delay);
    // Due while still held: not handed out beside the current run.
    expect((await getWithin(q, delay + short)).lease).toBeNull();
    await q.done(first);
    const { lease: second, tookMs } = await getWithin(q, 5_000);
    expect(second?.id).toBe(first.id);
    expect(second?.token).not.toBe(first.token);
    expect(tookMs).toBeLessThan(h.name === 'sqs' ? 4_000 : 1_000);
    expect(Date.now() - addedAt).toBeGreaterThanOrEqual(delay - 50);
    await q.done(second as Lease);
    expect((await getWithin(q, short)).lease).toBeNull();
  });

  it('addAfter on a held key that is done before its time runs it after the delay, not at done', async () => {
    const q = await open();
    const delay = h.roundDelay(h.baseDelayMs * 10);
    await q.add(key('a', 'web'));
    const first = await mustGet(q);
    const addedAt = Date.now();
    await q.addAfter(key('a', 'web'), delay);
    await q.done(first);
    const { lease: second } = await getWithin(q, delay * 4 + 2_000);
    expect(second?.id).toBe(first.id);
    expect(Date.now() - addedAt).toBeGreaterThanOrEqual(delay - 50);
    await q.done(second as Lease);
    expect((await getWithin(q, short)).lease).toBeNull();
  });

  it('addAfter on a held key already re-added keeps the sooner time: it runs at once after done', async () => {
    const q = await open();
    await q.add(key('a', 'web'));
    const first = await mustGet(q);
    await q.add(key('a', 'web'));
    await q.addAfter(key('a', 'web'), h.roundDelay(600_000));
    await q.done(first);
    const { lease: next, tookMs } = await getWithin(q, 5_000);
    expect(next?.id).toBe(first.id);
    expect(tookMs).toBeLessThan(h.name === 'sqs' ? 4_000 : 1_000);
  });

  it('backs off exponentially on retry and resets on done', async () => {
    const q = await open();
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

  it('retries without end: a key that failed 20 times is retried again, with the capped delay', async () => {
    const maxDelayMs = 8;
    const q = await open({ baseDelayMs: 1, maxDelayMs });
    await q.add(key('a', 'web'));
    let last: RetryOutcome | undefined;
    for (let i = 0; i < 20; i++) {
      const lease = await mustGet(q, 10_000);
      expect(lease.failures).toBe(i);
      last = await q.retry(lease, new Error(`boom ${i}`));
      expect(last.outcome).toBe('retried');
    }
    expect(last).toEqual({ outcome: 'retried', delayMs: h.roundDelay(maxDelayMs) });
    const lease = await mustGet(q, 10_000);
    expect(lease.failures).toBe(20);
    expect(await q.deadLetters()).toEqual([]);
    await q.done(lease);
    await q.add(key('a', 'web'));
    expect((await mustGet(q)).failures).toBe(0);
  });

  it('backs off a conflict on its own count: failures before it do not lengthen it, and it is not a failure', async () => {
    const q = await open();
    await q.add(key('a', 'web'));
    let lease = await mustGet(q);
    for (let failures = 0; failures < 2; failures++) {
      const want = h.roundDelay(backoffDelay(failures, h.baseDelayMs, 1_000_000));
      expect(await q.retry(lease, new Error('unreachable'))).toEqual({ outcome: 'retried', delayMs: want });
      lease = await mustGet(q, want * 4 + 2_000);
    }
    expect(lease).toMatchObject({ failures: 2 });
    // Two failures put the next failure at base * 4; a conflict now waits only the base delay.
    const want0 = h.roundDelay(backoffDelay(0, h.baseDelayMs, 1_000_000));
    expect(await q.retry(lease, new Error('409'), { conflict: true })).toEqual({ outcome: 'retried', delayMs: want0 });
    expect((await getWithin(q, Math.max(0, want0 - 100))).lease).toBeNull();
    const second = await mustGet(q, want0 * 4 + 2_000);
    expect(second).toMatchObject({ failures: 2, conflicts: 1 });
    // A persistent conflict still backs off exponentially, on the conflict count.
    const want1 = h.roundDelay(backoffDelay(1, h.baseDelayMs, 1_000_000));
    expect(await q.retry(second, new Error('409'), { conflict: true })).toEqual({ outcome: 'retried', delayMs: want1 });
    const third = await mustGet(q, want1 * 4 + 2_000);
    expect(third).toMatchObject({ failures: 2, conflicts: 2 });
    expect(await q.deadLetters()).toEqual([]);
    await q.done(third);
    await q.add(key('a', 'web'));
    expect(await mustGet(q)).toMatchObject({ failures: 0, conflicts: 0 });
  });

  it('done with requeueAfter releases and schedules the next run in one step', async () => {
    const q = await open();
    await q.add(key('a', 'web'));
    const after = h.roundDelay(h.baseDelayMs * 10);
    const lease = await mustGet(q);
    await q.done(lease, after);
    expect(await q.depth()).toBe(1);
    const { lease: next, tookMs } = await getWithin(q, after * 4 + 2_000);
    expect(next?.id).toBe(lease.id);
    expect(next?.token).not.toBe(lease.token);
    expect(next?.failures).toBe(0);
    expect(tookMs).toBeGreaterThanOrEqual(after - 50);
    await q.done(next as Lease);
    expect((await getWithin(q, short)).lease).toBeNull();
  });

  it('done with requeueAfter: an add made during the run still runs at once (the earlier time wins)', async () => {
    const q = await open();
    await q.add(key('a', 'web'));
    const lease = await mustGet(q);
    await q.add(key('a', 'web'));
    await q.done(lease, 600_000);
    const { lease: next, tookMs } = await getWithin(q, 5_000);
    expect(next?.id).toBe(lease.id);
    expect(tookMs).toBeLessThan(h.name === 'sqs' ? 4_000 : 1_000);
  });

  it('parkInvalid records what never became a key; redrive leaves it parked', async () => {
    const q = await open();
    await q.parkInvalid('eu-1/Pod/ns/Bad_Owner', 'owner name "Bad_Owner" is not a valid name');
    const letters = await q.deadLetters();
    expect(letters).toEqual([
      expect.objectContaining({
        key: null,
        raw: 'eu-1/Pod/ns/Bad_Owner',
        reason: expect.stringContaining('Bad_Owner'),
      }),
    ]);
    expect(await q.redrive()).toBe(0);
    expect(await q.deadLetters()).toHaveLength(1);
    expect((await getWithin(q, short)).lease).toBeNull();
  });

  it('reports keys in backoff by cluster: failed, waiting, not held', async () => {
    const q = await open({ baseDelayMs: 600_000, maxDelayMs: 600_000 });
    await q.add(key('a', 'web'));
    await q.add(key('a', 'api'));
    await q.add(key('b', 'db'));
    const held: Lease[] = [];
    for (let i = 0; i < 3; i++) held.push(await mustGet(q));
    const byId = (id: string) => held.find((l) => l.id === id) as Lease;
    await q.retry(byId('a/Deployment/default/web'), new Error('boom'));
    await q.retry(byId('b/Deployment/default/db'), new Error('boom'));
    await q.done(byId('a/Deployment/default/api'));
    await q.add(key('a', 'api')); // waiting without a failure: not in backoff
    const sorted = (await q.backoffBreakdown()).sort((x, y) => x.cluster.localeCompare(y.cluster));
    expect(sorted).toEqual([
      { cluster: 'a', keys: 1 },
      { cluster: 'b', keys: 1 },
    ]);
  });

  it('with a signing secret, signed keys run and a forged or unsigned message is dead-lettered, never handed out', async () => {
    const tq = await h.create({ leaseMs: h.leaseMs * 10, signingSecret: 'contract-secret' });
    opened.push(tq);
    await tq.injectRaw('a/Deployment/default/unsigned');
    await tq.injectRaw('a/Deployment/default/forged', signKey('another-secret', 'a/Deployment/default/forged'));
    await tq.queue.add(key('a', 'web'));
    const lease = await mustGet(tq.queue);
    expect(lease.id).toBe('a/Deployment/default/web');
    expect((await getWithin(tq.queue, short)).lease).toBeNull();
    await tq.queue.done(lease);
    const letters = await tq.queue.deadLetters();
    expect(
      letters
        .map((d) => ({ key: d.key, raw: d.raw, reason: d.reason }))
        .sort((x, y) => String(x.raw).localeCompare(String(y.raw))),
    ).toEqual([
      { key: null, raw: 'a/Deployment/default/forged', reason: BAD_SIGNATURE },
      { key: null, raw: 'a/Deployment/default/unsigned', reason: BAD_SIGNATURE },
    ]);
    expect(await tq.queue.redrive()).toBe(0);
    // A redrive of a signed key's dead letter is signed again and runs.
    await tq.queue.add(key('a', 'web'));
    await tq.queue.deadLetter(await mustGet(tq.queue), 'terminal');
    expect(await tq.queue.redrive()).toBe(1);
    expect((await mustGet(tq.queue)).id).toBe('a/Deployment/default/web');
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
    // Refused, and said so: the key stays held by `second`, and no requeue is scheduled for the stale holder.
    expect(await q.done(first, 0)).toEqual({ outcome: 'lease-lost' });
    expect(await q.renew(second)).toBe(true);
    expect((await getWithin(q, Math.min(short, h.leaseMs / 3))).lease).toBeNull();
    expect(await q.done(second)).toEqual({ outcome: 'done' });
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
    const q = instrument(await open({ baseDelayMs: 600_000, maxDelayMs: 600_000 }), registry, 'contract');
    await q.add(key('a', 'web'));
    await q.done(await mustGet(q));
    await q.add(key('b', 'api'));
    await q.retry(await mustGet(q), new Error('409'), { conflict: true });
    const text = await registry.metrics();
    expect(text).toContain('fleetq_workqueue_conflict_retries_total{name="contract",cluster="b",kind="Deployment"} 1');
    expect(text).not.toMatch(/workqueue_retries_total\{name="contract"/);
    expect(text).toContain('fleetq_keys_in_backoff{name="contract",cluster="b"} 1');
    expect(text).toContain('workqueue_adds_total{name="contract",cluster="a",kind="Deployment"} 1');
    expect(text).toMatch(/workqueue_queue_duration_seconds_count\{name="contract",cluster="a",kind="Deployment"\} 1/);
    expect(text).toMatch(/workqueue_work_duration_seconds_count\{name="contract",cluster="a",kind="Deployment"\} 1/);
    expect(text).toContain('workqueue_depth');
    expect(text).toContain('workqueue_unfinished_work_seconds');
    expect(text).toContain('workqueue_retries_total');
  });
});
