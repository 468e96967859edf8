// The Lambda handler path (shared/runtime/sqs-batch.ts) against the SQS TEST DOUBLE of documented AWS
// behaviour (test/helpers/queue/sqs-fifo-double.ts; see its header): fauxqs never puts two messages of one FIFO
// group in one batch, real SQS does, so this path is shown on the double. The controller is a stand-in
// that records runs; the queue, its messages and the batch handling are the real code.
import { describe, expect, it } from '@jest/globals';
import { ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { Controller } from '../../../shared/controllers/controller.js';
import { ReconcileError } from '../../../shared/kube/errors.js';
import type { ReconcileKey } from '../../../shared/kube/key.js';
import type { EventRecorders } from '../../../shared/kube/events/recorders.js';
import { SqsQueue } from '../../../shared/queue/sqs/sqs-queue.js';
import { Logger } from '../../../shared/runtime/logger.js';
import { processWorkBatch } from '../../../shared/runtime/sqs-batch.js';
import { toRecord, workBatchDeps } from '../../helpers/lambda/sqs.js';
import { SqsFifoDouble } from '../../helpers/queue/sqs-fifo-double.js';

const key = (name: string): ReconcileKey => ({ cluster: 'a', kind: 'Deployment', namespace: 'default', name });

describe('Lambda SQS batch on a FIFO double that puts several messages of one group in a batch', () => {
  it('runs a key once for all its records, reports only a failed run, dead-letters an unsigned record unrun', async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues('lambda', 360);
    const queue = new SqsQueue({ client: sqs.asClient(), urls, signingSecret: 'lambda-secret' });
    for (let i = 0; i < 3; i++) await queue.add(key('web'));
    await queue.add(key('down'));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: urls.work,
        MessageBody: 'a/Deployment/default/forged',
        MessageGroupId: 'a/Deployment/default/forged',
        MessageDeduplicationId: 'forged-1',
      }),
    );
    const runs: string[] = [];
    const controller: Controller = {
      kind: 'Deployment',
      async observe(_view, k) {
        runs.push(k.name);
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (k.name === 'down') throw new ReconcileError('Unreachable', 'cluster down');
        return null;
      },
      plan: () => ({ actions: [] }),
    };
    const deps = workBatchDeps(queue, controller);
    // The event source mapping: one receive with the queue's visibility timeout, one invocation.
    const out = (await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: urls.work,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 360,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    )) as { Messages: Message[] };
    expect(out.Messages).toHaveLength(5);
    const records = out.Messages.map((m) => toRecord(m, 'arn:aws:sqs:us-east-1:000000000000:lambda.fifo'));
    const byBody = (body: string) => records.filter((r) => r.body === body).map((r) => r.messageId);
    const response = await processWorkBatch(deps, records, { visibilityMs: 360_000, remainingMs: () => 600_000 });

    expect(runs.sort()).toEqual(['down', 'web']); // three records of web: one run; forged: never
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(byBody('a/Deployment/default/down'));
    const letters = await queue.deadLetters();
    expect(letters.map((d) => ({ key: d.key, raw: d.raw, reason: d.reason }))).toEqual([
      { key: null, raw: 'a/Deployment/default/forged', reason: 'bad signature' },
    ]);
    // The failed key's message stays with its backoff (1 s), not the 360 s the batch was received with.
    const down = sqs.messages(urls.work).find((m) => m.body === 'a/Deployment/default/down');
    expect((down?.visibleAt ?? 0) - Date.now()).toBeLessThanOrEqual(1_000);
    await queue.close();
  });

  it("writes the batch's buffered events before it returns, within the time the invocation has left", async () => {
    const sqs = new SqsFifoDouble();
    const urls = sqs.createQueues('lambda-events', 360);
    const queue = new SqsQueue({ client: sqs.asClient(), urls });
    await queue.add(key('web'));
    const order: string[] = [];
    const flushes: number[] = [];
    // The recorder set's flush is the contract here (kube/events: written or given up within the time).
    const events = {
      flush: async (ms: number) => {
        flushes.push(ms);
        await new Promise((resolve) => setTimeout(resolve, 10));
        order.push('flushed');
        return false;
      },
    } as unknown as EventRecorders;
    const warnings: string[] = [];
    const deps = workBatchDeps(
      queue,
      { kind: 'Deployment', observe: async () => null, plan: () => ({ actions: [] }) },
      { events, logger: new Logger('test', 'warn', (line) => warnings.push(line)) },
    );
    const out = (await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: urls.work, MaxNumberOfMessages: 10, VisibilityTimeout: 360 }),
    )) as { Messages: Message[] };
    const records = out.Messages.map((m) => toRecord(m, 'arn:aws:sqs:us-east-1:000000000000:lambda-events.fifo'));
    let left = 3_500;
    await processWorkBatch(deps, records, { visibilityMs: 360_000, remainingMs: () => left });
    order.push('returned');
    left = 60_000;
    await processWorkBatch(deps, [], { visibilityMs: 360_000, remainingMs: () => left });

    expect(order).toEqual(['flushed', 'returned', 'flushed']);
    // 1 s kept in hand for returning; never more than 5 s.
    expect(flushes).toEqual([2_500, 5_000]);
    expect(warnings.filter((w) => w.includes('Events still buffered'))).toHaveLength(2);
    await queue.close();
  });
});
