// ensureSqsQueues on the SQS emulator (fauxqs): the work queue is a high-throughput FIFO queue, as the Serverless
// stack's WorkQueue (serverless.yml), whether it is created now or was created before without those attributes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { deleteSqsQueues, ensureSqsQueues, sqsQueueNames } from '../../shared/queue/sqs/sqs-setup.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';

const THROUGHPUT = ['DeduplicationScope', 'FifoThroughputLimit'] as const;

describe('ensureSqsQueues (fauxqs)', () => {
  let sqs: SqsEmulator;
  let admin: SQSClient;
  beforeAll(async () => {
    sqs = await startSqsEmulator();
    admin = sqsClient(sqs.endpoint);
  });
  afterAll(async () => {
    admin?.destroy();
    await sqs?.stop();
  });

  const throughput = async (QueueUrl: string) =>
    (await admin.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: [...THROUGHPUT] }))).Attributes;

  it('creates the work queue in high-throughput mode, as serverless.yml does', async () => {
    const urls = await ensureSqsQueues(admin, sqsQueueNames(`setup-${randomUUID().slice(0, 8)}`));
    try {
      expect(await throughput(urls.work)).toEqual({
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
      });
      // Called again (every process start does): the same queues, no error.
      expect(
        await ensureSqsQueues(
          admin,
          sqsQueueNames(
            urls.work
              .split('/')
              .pop()!
              .replace(/\.fifo$/, ''),
          ),
        ),
      ).toEqual(urls);
    } finally {
      await deleteSqsQueues(admin, urls);
    }
  });

  it('keeps using a work queue made before without high throughput', async () => {
    // SQS lets SetQueueAttributes switch an existing FIFO queue to high throughput, which ensureSqsQueues then does;
    // fauxqs refuses those attributes there (InvalidAttributeName), so here the queue is used as it is.
    const names = sqsQueueNames(`setup-old-${randomUUID().slice(0, 8)}`);
    const old = await admin.send(
      new CreateQueueCommand({
        QueueName: names.work,
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'false' },
      }),
    );
    const urls = await ensureSqsQueues(admin, names);
    try {
      expect(urls.work).toBe(old.QueueUrl);
    } finally {
      await deleteSqsQueues(admin, urls);
    }
  });
});
