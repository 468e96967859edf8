// The SQS driver on a real emulator (fauxqs): messages of a cluster at its concurrency cap wait in this
// process's buffer longer than their visibility timeout; they must be kept invisible (not go stale and be
// redelivered), so they are neither counted as failures nor dead-lettered, and each runs exactly once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SqsQueue } from '../../shared/queue/sqs/sqs-queue.js';
import { deleteSqsQueues, ensureSqsQueues, sqsQueueNames } from '../../shared/queue/sqs/sqs-setup.js';
import type { Lease } from '../../shared/queue/work-queue.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';

describe('SQS driver: buffered messages of a capped cluster (fauxqs)', () => {
  let sqs: SqsEmulator;
  let client: SQSClient;
  beforeAll(async () => {
    sqs = await startSqsEmulator();
    client = sqsClient(sqs.endpoint);
  });
  afterAll(async () => {
    client?.destroy();
    await sqs?.stop();
  });

  it('keeps them invisible past their visibility: no failure counted, nothing dead-lettered, one run each', async () => {
    const urls = await ensureSqsQueues(client, sqsQueueNames(`capped-${randomUUID().slice(0, 8)}`));
    const q = new SqsQueue({ client, urls, leaseMs: 1000, clusterConcurrency: 1 });
    try {
      const names = ['web-0', 'web-1', 'web-2', 'web-3'];
      for (const name of names) await q.add({ cluster: 'a', kind: 'Deployment', namespace: 'default', name });
      const first = (await q.get(3000)) as Lease;
      expect(first).not.toBeNull();
      // Hold the first key for 4 visibility periods (renewing) while get() buffers the others.
      const heldUntil = Date.now() + 4_000;
      while (Date.now() < heldUntil) {
        expect(await q.renew(first)).toBe(true);
        expect(await q.get(300)).toBeNull();
      }
      // Nothing became visible again meanwhile: another consumer would get nothing.
      const peek = await client.send(
        new ReceiveMessageCommand({ QueueUrl: urls.work, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
      );
      expect(peek.Messages ?? []).toEqual([]);
      await q.done(first);
      const rest: Lease[] = [];
      for (let got = await q.get(3000); got; got = await q.get(1500)) {
        rest.push(got);
        await q.done(got);
      }
      expect([first, ...rest].map((l) => l.key.name).sort()).toEqual(names);
      expect(rest.map((l) => l.failures)).toEqual([0, 0, 0]);
      expect(await q.deadLetters()).toEqual([]);
    } finally {
      await q.close();
      await deleteSqsQueues(client, urls);
    }
  });
});
