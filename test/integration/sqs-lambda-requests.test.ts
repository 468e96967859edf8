// What Lambda + SQS pays per key, on the real emulator (fauxqs) behind request-counting proxies:
//  - the forwarder's add fold (shared/queue/sqs/sqs-add-fold.ts): adds of one key within the window are ONE
//    SendMessage; a shutdown sends what is held;
//  - the reconcile function deletes none of its records: the event source mapping (test/helpers/lambda/sqs.ts)
//    deletes each record it was not told failed, once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Controller } from '../../shared/controllers/controller.js';
import { ReconcileError } from '../../shared/kube/errors.js';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { AddFoldQueue } from '../../shared/queue/sqs/sqs-add-fold.js';
import { SqsQueue } from '../../shared/queue/sqs/sqs-queue.js';
import {
  deleteSqsQueues,
  ensureSqsQueues,
  sqsQueueNames,
  type SqsQueueUrls,
} from '../../shared/queue/sqs/sqs-setup.js';
import { processWorkBatch } from '../../shared/runtime/sqs-batch.js';
import { pollOnce, workBatchDeps, type BatchHandler } from '../helpers/lambda/sqs.js';
import { startSqsCountingProxy, type CountingProxy } from '../helpers/queue/sqs-counting-proxy.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';
import { messagesIn } from '../helpers/bench/lambda-pipeline.js';

const key = (name: string): ReconcileKey => ({ cluster: 'a', kind: 'Deployment', namespace: 'default', name });
const requests = (proxy: CountingProxy, action: string) => proxy.counts.get(action)?.requests ?? 0;

describe('Lambda + SQS requests per key (fauxqs)', () => {
  let sqs: SqsEmulator;
  let admin: SQSClient;
  let urls: SqsQueueUrls;
  beforeAll(async () => {
    sqs = await startSqsEmulator();
    admin = sqsClient(sqs.endpoint);
    urls = await ensureSqsQueues(admin, sqsQueueNames(`requests-${randomUUID().slice(0, 8)}`));
  });
  afterAll(async () => {
    if (urls) await deleteSqsQueues(admin, urls);
    admin?.destroy();
    await sqs?.stop();
  });

  it("folds a key's adds within the window into one message, and sends what it holds on close", async () => {
    const proxy = await startSqsCountingProxy(sqs.endpoint);
    const fold = new AddFoldQueue(new SqsQueue({ client: sqsClient(proxy.endpoint), ownsClient: true, urls }), {
      windowMs: 150,
      maxKeys: 100,
    });
    try {
      // Events of two keys as a rollout makes them: several watchers add the same keys at once.
      const adds = Array.from({ length: 12 }, (_, i) => fold.add(key(i % 3 === 0 ? 'db' : 'web')));
      await Promise.all(adds);
      expect(requests(proxy, 'SendMessage')).toBe(2);
      expect(await messagesIn(admin, urls.work)).toBe(2);
      // Held at shutdown: sent by close(), not dropped.
      const late = fold.add(key('late'));
      await fold.close();
      await late;
      expect(requests(proxy, 'SendMessage')).toBe(3);
      expect(await messagesIn(admin, urls.work)).toBe(3);
    } finally {
      await fold.close();
      await proxy.stop();
    }
  });

  it('deletes each record once, by the mapping; a failed run is reported and not deleted', async () => {
    const fn = await startSqsCountingProxy(sqs.endpoint);
    const mapping = await startSqsCountingProxy(sqs.endpoint);
    const fresh = await ensureSqsQueues(admin, sqsQueueNames(`once-${randomUUID().slice(0, 8)}`));
    const queue = new SqsQueue({ client: sqsClient(fn.endpoint), ownsClient: true, urls: fresh });
    const mappingClient = sqsClient(mapping.endpoint);
    try {
      for (const name of ['a', 'b', 'c', 'down']) await queue.add(key(name));
      const controller: Controller = {
        kind: 'Deployment',
        async observe(_view, k) {
          if (k.name === 'down') throw new ReconcileError('Unreachable', 'cluster down');
          return null;
        },
        plan: () => ({ actions: [] }),
      };
      const deps = workBatchDeps(queue, controller);
      const handler: BatchHandler = (event) =>
        processWorkBatch(deps, event.Records, { visibilityMs: 30_000, remainingMs: () => 30_000 });
      const invocation = await pollOnce(mappingClient, fresh.work, handler, 30, 30_000);
      if (!invocation) throw new Error('the mapping received nothing');
      expect(invocation.records).toHaveLength(4);
      expect(invocation.failed.map((id) => invocation.records.find((r) => r.messageId === id)?.body)).toEqual([
        'a/Deployment/default/down',
      ]);
      expect(invocation.deleteErrors).toEqual([]);
      // The function deleted nothing; the mapping one delete per record it was not told failed.
      expect(requests(fn, 'DeleteMessage') + requests(fn, 'DeleteMessageBatch')).toBe(0);
      expect(requests(mapping, 'DeleteMessage')).toBe(3);
      // Left: the failed key's message, in flight for its backoff.
      expect(await messagesIn(admin, fresh.work)).toBe(1);
    } finally {
      mappingClient.destroy();
      await queue.close();
      await deleteSqsQueues(admin, fresh);
      await fn.stop();
      await mapping.stop();
    }
  });
});
