// Each record of a Lambda batch is deleted exactly once: by the event source mapping (test/helpers/lambda/sqs.ts
// pollOnce, which settles a batch as AWS documents), never also by the function. Every way a run can end is in
// one batch: done (three records of one key, coalesced), a retry kept with its backoff (reported), a conflict
// that hops through the delay queue, a terminal failure (dead-lettered), and a record with a bad signature. On
// the SQS FIFO double (test/helpers/queue/sqs-fifo-double.ts), which records every call and returns several
// messages of one group in one receive, as real SQS does.
import { describe, expect, it } from '@jest/globals';
import {
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Controller } from '../../../shared/controllers/controller.js';
import { ReconcileError, TerminalError } from '../../../shared/kube/errors.js';
import type { ReconcileKey } from '../../../shared/kube/key.js';
import { SqsQueue } from '../../../shared/queue/sqs/sqs-queue.js';
import { processWorkBatch } from '../../../shared/runtime/sqs-batch.js';
import { pollOnce, undeletedIds, workBatchDeps, type BatchHandler } from '../../helpers/lambda/sqs.js';
import { SqsFifoDouble } from '../../helpers/queue/sqs-fifo-double.js';

const key = (name: string): ReconcileKey => ({ cluster: 'a', kind: 'Deployment', namespace: 'default', name });

/** Deletes of work-queue messages by receipt handle, whoever sent them. */
function deletesByHandle(sqs: SqsFifoDouble, workUrl: string): Map<string, number> {
  const counts = new Map<string, number>();
  const count = (handle: unknown) => counts.set(String(handle), (counts.get(String(handle)) ?? 0) + 1);
  for (const call of sqs.calls) {
    if (call.input.QueueUrl !== workUrl) continue;
    if (call.command === DeleteMessageCommand.name) count(call.input.ReceiptHandle);
    if (call.command === DeleteMessageBatchCommand.name) {
      for (const e of call.input.Entries as Array<{ ReceiptHandle: string }>) count(e.ReceiptHandle);
    }
  }
  return counts;
}

describe('Lambda SQS batch: each record deleted once', () => {
  it('leaves every delete to the mapping: one delete per unreported record, none for a reported one', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues('once', 360);
    const queue = new SqsQueue({ client: sqs.asClient(), urls, signingSecret: 'once-secret' });
    for (let i = 0; i < 3; i++) await queue.add(key('web'));
    for (const name of ['down', 'conflicted', 'terminal']) await queue.add(key(name));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: urls.work,
        MessageBody: 'a/Deployment/default/forged',
        MessageGroupId: 'a/Deployment/default/forged',
        MessageDeduplicationId: 'forged-1',
      }),
    );
    const controller: Controller = {
      kind: 'Deployment',
      async observe(_view, k) {
        if (k.name === 'down') throw new ReconcileError('Unreachable', 'cluster down');
        if (k.name === 'conflicted') throw new ReconcileError('Conflict', 'the object has been modified');
        if (k.name === 'terminal') throw new TerminalError('Invalid', 'spec refused');
        return null;
      },
      plan: () => ({ actions: [] }),
    };
    const deps = workBatchDeps(queue, controller);
    const handler: BatchHandler = (event) =>
      processWorkBatch(deps, event.Records, { visibilityMs: 360_000, remainingMs: () => 600_000 });

    const invocation = await pollOnce(sqs.asClient(), urls.work, handler, 360, 600_000);
    expect(invocation).not.toBeNull();
    const { records, failed, deleteErrors } = invocation as NonNullable<typeof invocation>;
    expect(records).toHaveLength(7);
    expect(sqs.maxSameGroupPerReceive).toBe(3); // the coalesced case was exercised
    const bodyOf = (id: string) => records.find((r) => r.messageId === id)?.body;
    expect(failed.map(bodyOf)).toEqual(['a/Deployment/default/down']);
    expect(deleteErrors).toEqual([]);

    const deletes = deletesByHandle(sqs, urls.work);
    for (const r of records) {
      expect({ body: r.body, deletes: deletes.get(r.receiptHandle) ?? 0 }).toEqual({
        body: r.body,
        deletes: failed.includes(r.messageId) ? 0 : 1,
      });
    }
    // What the runs sent still went out: the conflict's hop, the dead letters (terminal, forged).
    const hops = sqs.messages(urls.delay).map((m) => (JSON.parse(m.body) as { id: string }).id);
    expect(hops).toEqual(['a/Deployment/default/conflicted']);
    expect((await queue.deadLetters()).map((d) => (d.key ? d.key.name : d.raw)).sort()).toEqual([
      'a/Deployment/default/forged',
      'terminal',
    ]);
    // Left in the work queue: the retried key only, invisible for its backoff.
    expect(sqs.messages(urls.work).map((m) => m.body)).toEqual(['a/Deployment/default/down']);
    await queue.close();
  });

  it('deletes nothing when the invocation fails', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues('thrown', 30);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: urls.work,
        MessageBody: 'a/Deployment/default/web',
        MessageGroupId: 'g',
        MessageDeduplicationId: 'd1',
      }),
    );
    const invocation = await pollOnce(sqs.asClient() as SQSClient, urls.work, () => Promise.reject(new Error('boom')));
    expect(invocation?.batchFailed).toMatch(/boom/);
    expect(deletesByHandle(sqs, urls.work).size).toBe(0);
    expect(sqs.messages(urls.work)).toHaveLength(1);
  });
});

describe('undeletedIds: the documented success and failure conditions of a partial batch response', () => {
  const records = [{ messageId: 'm1' }, { messageId: 'm2' }, { messageId: 'm3' }];
  it.each([
    ['no response', undefined],
    ['a null response', null],
    ['an empty response', {}],
    ['a null list', { batchItemFailures: null }],
    ['an empty list', { batchItemFailures: [] }],
  ])('%s: the whole batch succeeded', (_name, response) => {
    expect(undeletedIds(records, { response })).toEqual({ failed: [] });
  });
  it('reported records stay, the others are deleted', () => {
    expect(undeletedIds(records, { response: { batchItemFailures: [{ itemIdentifier: 'm2' }] } })).toEqual({
      failed: ['m2'],
    });
  });
  it.each([
    ['an empty itemIdentifier', ''],
    ['a null itemIdentifier', null],
    ['an itemIdentifier not in the batch', 'm9'],
  ])('%s: the whole batch failed', (_name, itemIdentifier) => {
    const out = undeletedIds(records, { response: { batchItemFailures: [{ itemIdentifier }] } });
    expect(out.failed).toEqual(['m1', 'm2', 'm3']);
    expect(out.batchFailed).toMatch(/invalid itemIdentifier/);
  });
  it('a thrown error: the whole batch failed', () => {
    expect(undeletedIds(records, { error: new Error('x') }).failed).toEqual(['m1', 'm2', 'm3']);
  });
});

describe('Lambda SQS lease renewal', () => {
  it('sends no ChangeMessageVisibility while the visibility outlasts the invocation, and does once it may not', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues('renew', 360);
    const queue = new SqsQueue({ client: sqs.asClient(), urls });
    await queue.add(key('web'));
    const invocation = await pollOnce(
      sqs.asClient(),
      urls.work,
      async (event) => {
        let remainingMs = 60_000;
        const plans = await queue.holdRecords(event.Records, { visibilityMs: 360_000, remainingMs: () => remainingMs });
        const plan = plans[0];
        if (!plan || !('lease' in plan)) throw new Error('no lease');
        const changes = () => sqs.calls.filter((c) => c.command === 'ChangeMessageVisibilityCommand').length;
        // 360 s of visibility against 60 s left: nothing to renew.
        expect(await queue.renew(plan.lease)).toBe(true);
        expect(changes()).toBe(0);
        // An invocation with more time left than the visibility minus the margin: renewed on SQS.
        remainingMs = 300_000;
        expect(await queue.renew(plan.lease)).toBe(true);
        expect(changes()).toBe(1);
        await queue.done(plan.lease);
        queue.settleRecord(plan.lease);
      },
      360,
      60_000,
    );
    expect(invocation?.failed).toEqual([]);
    await queue.close();
  });
});
