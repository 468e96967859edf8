// The SQS driver against a TEST DOUBLE of documented AWS behaviour (test/helpers/queue/sqs-fifo-double.ts: see its
// header for the AWS docs it follows). A double is used here, and only here, because fauxqs — the real
// emulator every other SQS test runs against — returns one message per FIFO group per receive, while real
// SQS returns as many messages of one group as it can; the scenarios below depend on exactly that.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { keyString, type ReconcileKey } from '../../../shared/kube/key.js';
import { signKey } from '../../../shared/queue/message-signing.js';
import { messageGroupId } from '../../../shared/queue/sqs/sqs-message.js';
import { SqsQueue, type RecordPlan } from '../../../shared/queue/sqs/sqs-queue.js';
import type { Lease, QueueOptions } from '../../../shared/queue/work-queue.js';
import { toRecord } from '../../helpers/lambda/sqs.js';
import { SqsFifoDouble } from '../../helpers/queue/sqs-fifo-double.js';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';

jest.setTimeout(60_000);

const key = (cluster: string, name: string): ReconcileKey => ({
  cluster,
  kind: 'Deployment',
  namespace: 'default',
  name,
});
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(what: string, ms: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

let queues: SqsQueue[] = [];
afterEach(async () => {
  await Promise.all(queues.map((q) => q.close()));
  queues = [];
});

function open(sqs: SqsFifoDouble, urls: ReturnType<SqsFifoDouble['createQueues']>, options: QueueOptions = {}) {
  const q = new SqsQueue({ leaseMs: 30_000, baseDelayMs: 1000, ...options, client: sqs.asClient(), urls });
  queues.push(q);
  return q;
}

describe('SQS driver on a FIFO double that returns several messages of one group per receive', () => {
  it('50 adds of one key: never two runs of it at once in one process, every add covered by a later run', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues();
    const q = open(sqs, urls);
    const k = key('a', 'web');
    const runs: Array<{ start: number; end: number }> = [];
    let running = 0;
    let maxRunning = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const lease = await q.get(50);
        if (!lease) continue;
        running++;
        maxRunning = Math.max(maxRunning, running);
        const run = { start: Date.now(), end: 0 };
        await sleep(5 + Math.floor(Math.random() * 10));
        run.end = Date.now();
        runs.push(run);
        running--;
        await q.done(lease);
      }
    };
    const workers = [worker(), worker(), worker(), worker()];
    for (let i = 0; i < 50; i++) {
      await q.add(k);
      if (i % 7 === 0) await sleep(3);
    }
    await until('the work queue to drain', 20_000, () => sqs.messages(urls.work).length === 0 && running === 0);
    stop = true;
    await Promise.all(workers);

    expect(sqs.maxSameGroupPerReceive).toBeGreaterThan(1); // the double did return several of one group
    expect(maxRunning).toBe(1);
    const sent = sqs.calls.filter((c) => c.command === 'SendMessageCommand' && c.input.MessageBody === keyString(k));
    expect(sent).toHaveLength(50);
    for (const add of sent) expect(runs.some((r) => r.start >= add.at)).toBe(true);
    expect(runs.length).toBeLessThan(50); // adds were coalesced
  });

  it('a capped cluster: buffered messages kept past their visibility are neither failures nor dead letters', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues('capped', 1);
    const q = open(sqs, urls, { leaseMs: 1000, clusterConcurrency: 1 });
    for (let i = 0; i < 5; i++) await q.add(key('a', `web-${i}`));
    const first = (await q.get(2000)) as Lease;
    expect(first).not.toBeNull();
    // Hold the first key 4 visibility periods (renewing it) while get() keeps the other four buffered.
    const heldUntil = Date.now() + 4_000;
    while (Date.now() < heldUntil) {
      expect(await q.renew(first)).toBe(true);
      expect(await q.get(300)).toBeNull();
    }
    await q.done(first);
    const rest: Lease[] = [];
    for (let i = 0; i < 4; i++) {
      const lease = (await q.get(3000)) as Lease;
      expect(lease).not.toBeNull();
      rest.push(lease);
      await q.done(lease);
    }
    expect(rest.map((l) => l.failures)).toEqual([0, 0, 0, 0]);
    expect(await q.deadLetters()).toEqual([]);
  });

  it('Lambda: a fence never shortens visibility below the queue timeout or the remaining function time', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues('lambda', 360);
    const q = open(sqs, urls, { leaseMs: 30_000 });
    await q.add(key('a', 'web'));
    await q.add(key('a', 'web'));
    // What the event source mapping does: receive with the queue's visibility timeout (360 s).
    const out = (await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: urls.work,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 360,
        MessageAttributeNames: ['All'],
      }),
    )) as { Messages: NonNullable<Parameters<typeof toRecord>[0]>[] };
    expect(out.Messages).toHaveLength(2);
    const records = out.Messages.map((m) => toRecord(m, 'arn:aws:sqs:us-east-1:000000000000:lambda.fifo'));
    let remaining = 600_000;
    const plans = await q.holdRecords(records, { visibilityMs: 360_000, remainingMs: () => remaining });
    expect(plans).toHaveLength(1); // two records of one key: one lease, one coalesced record
    const plan = plans[0] as Extract<RecordPlan, { lease: Lease }>;
    expect(plan.coalesced).toHaveLength(1);
    const visibleFor = () =>
      (sqs.messages(urls.work).find((m) => m.receiptHandle === plan.lease.token)?.visibleAt ?? 0) - Date.now();
    expect(await q.renew(plan.lease)).toBe(true);
    expect(visibleFor()).toBeGreaterThan(599_000); // the remaining function time (600 s) > queue's 360 s
    remaining = 5_000;
    expect(await q.renew(plan.lease)).toBe(true);
    expect(visibleFor()).toBeGreaterThan(359_000); // never below the queue's visibility timeout
    const cmv = sqs.calls.filter((c) => c.command === 'ChangeMessageVisibilityCommand');
    // The second renewal is not sent: the 600 s visibility outlasts the 5 s the invocation has left (sqs-queue.ts).
    expect(cmv.map((c) => c.input.VisibilityTimeout)).toEqual([600]);
    // A second poller gets nothing of this key while the first holds it.
    const second = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: urls.work, MaxNumberOfMessages: 10 }))) as {
      Messages?: unknown[];
    };
    expect(second.Messages ?? []).toEqual([]);
    await q.done(plan.lease);
    expect(q.settleRecord(plan.lease)).toBe('delete');
  });

  it('a 300-character key: its group id is hashed to fit SQS, the body keeps the whole key', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues();
    const q = open(sqs, urls);
    const k: ReconcileKey = { cluster: 'c', kind: 'Deployment', namespace: 'n'.repeat(63), name: 'x'.repeat(223) };
    const id = keyString(k);
    expect(id).toHaveLength(300);
    expect(messageGroupId(id)).toMatch(/^h:[0-9a-f]{64}$/);
    expect(messageGroupId(id)).toBe(messageGroupId(id));
    expect(messageGroupId('a/Deployment/default/web')).toBe('a/Deployment/default/web');
    await q.add(k);
    await q.addAfter(k, 1);
    const sends = sqs.calls.filter((c) => c.command === 'SendMessageCommand' && c.input.QueueUrl === urls.work);
    expect(sends[0]?.input).toMatchObject({ MessageBody: id, MessageGroupId: messageGroupId(id) });
    const lease = (await q.get(3000)) as Lease;
    expect(lease.id).toBe(id);
    expect(lease.key).toEqual(k);
    await q.done(lease);
  });

  it('signing: an unsigned or forged message is dead-lettered as "bad signature" and never handed out', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues();
    const q = open(sqs, urls, { signingSecret: 's3cret' });
    const forged = 'a/Deployment/default/forged';
    const unsigned = 'a/Deployment/default/unsigned';
    const send = (body: string, sig?: string) =>
      sqs.send(
        new SendMessageCommand({
          QueueUrl: urls.work,
          MessageBody: body,
          MessageGroupId: body,
          MessageDeduplicationId: `${body}-1`,
          ...(sig && { MessageAttributes: { 'fleetq-signature': { DataType: 'String', StringValue: sig } } }),
        }),
      );
    await send(forged, signKey('wrong', forged));
    await send(unsigned);
    await q.add(key('a', 'good'));
    const lease = (await q.get(3000)) as Lease;
    expect(lease.id).toBe('a/Deployment/default/good');
    expect(await q.get(300)).toBeNull();
    const letters = await q.deadLetters();
    expect(
      letters
        .map((l) => ({ key: l.key, raw: l.raw, reason: l.reason }))
        .sort((a, b) => String(a.raw).localeCompare(String(b.raw))),
    ).toEqual([
      { key: null, raw: forged, reason: 'bad signature' },
      { key: null, raw: unsigned, reason: 'bad signature' },
    ]);
    // A forged delayed add is not laundered into a signed work message by the delay pump.
    await q.routeDelayed([JSON.stringify({ id: 'a/Deployment/default/late', due: Date.now() })]);
    expect(sqs.messages(urls.work).some((m) => m.body === 'a/Deployment/default/late')).toBe(false);
    expect((await q.deadLetters()).some((l) => l.reason === 'bad signature' && l.raw?.includes('late'))).toBe(true);
  });

  it('retry never dead-letters; failures count failed runs only; done(lease, requeueAfter) sends before it deletes', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues();
    const q = open(sqs, urls, { baseDelayMs: 1, maxDelayMs: 1000 });
    await q.add(key('a', 'web'));
    let lease = (await q.get(1000)) as Lease;
    for (let i = 0; i < 4; i++) {
      // Failures and conflicts alternate: each keeps its own count, a conflict never adds a failure.
      const conflict = i % 2 === 1;
      expect(lease).toMatchObject({ failures: Math.ceil(i / 2), conflicts: Math.floor(i / 2) });
      expect(await q.retry(lease, new Error('boom'), conflict ? { conflict: true } : undefined)).toEqual({
        outcome: 'retried',
        delayMs: 1000,
      });
      expect(await q.backoffBreakdown()).toEqual([{ cluster: 'a', keys: 1 }]);
      // A conflict hops through the delay queue (a kept message's next receive would count as a failure);
      // get() pumps it back once due.
      if (conflict) expect(sqs.messages(urls.delay).map((m) => JSON.parse(m.body))).toMatchObject([{ id: lease.id }]);
      lease = (await q.get(3000)) as Lease;
      expect(lease).not.toBeNull();
    }
    expect(lease).toMatchObject({ failures: 2, conflicts: 2 });
    expect(await q.deadLetters()).toEqual([]);
    const before = sqs.calls.length;
    await q.done(lease, 60_000);
    const after = sqs.calls
      .slice(before)
      .map((c) => `${c.command} ${c.input.QueueUrl === urls.delay ? 'delay' : 'work'}`);
    expect(after).toEqual(['SendMessageCommand delay', 'DeleteMessageCommand work']);
    expect(await q.backoffBreakdown()).toEqual([]);
    await q.add(key('a', 'web'));
    expect((await q.get(1000)) as Lease).toMatchObject({ failures: 0, conflicts: 0 });
  });

  it('a backoff past 12 h hops through the delay queue carrying the failure count', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues();
    const q = open(sqs, urls, { baseDelayMs: 50_000_000, maxDelayMs: 50_000_000 });
    await q.add(key('a', 'web'));
    const lease = (await q.get(1000)) as Lease;
    expect(await q.retry(lease, new Error('boom'))).toEqual({ outcome: 'retried', delayMs: 50_000_000 });
    expect(sqs.messages(urls.work)).toHaveLength(0);
    const [delayed] = sqs.messages(urls.delay);
    expect(JSON.parse(delayed?.body ?? '{}')).toMatchObject({ id: lease.id, failures: 1 });
    // The delay queue's consumer forwards it once due (here: routed as if the hops had passed).
    await q.routeDelayed([JSON.stringify({ ...JSON.parse(delayed?.body ?? '{}'), due: Date.now() })]);
    const next = (await q.get(1000)) as Lease;
    expect(next).toMatchObject({ id: lease.id, failures: 1 });
  });
});
