// The three SQS queues behind one WorkQueue, created if absent (CreateQueue is idempotent for equal
// attributes). URLs are used exactly as SQS returns them: fauxqs rejects any other host spelling.
// The work queue is a high-throughput FIFO queue, as serverless.yml's WorkQueue: deduplication and the throughput
// quota per message group (the key), not per queue. A work queue made before without them is switched to them
// with SetQueueAttributes, which SQS allows on an existing queue.
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  type QueueAttributeName,
  type SQSClient,
} from '@aws-sdk/client-sqs';

export type SqsQueueUrls = {
  /** FIFO queue: MessageGroupId = keyString(key), so a key is never in flight twice. */
  readonly work: string;
  /** Standard queue with per-message DelaySeconds, for addAfter and long hops. */
  readonly delay: string;
  /** Standard queue of JSON dead letters. */
  readonly dead: string;
};

export type SqsQueueNames = { readonly work: string; readonly delay: string; readonly dead: string };

/** `${name}.fifo`, `${name}-delay`, `${name}-dlq`. SQS names allow [A-Za-z0-9_-], up to 80 characters. */
export function sqsQueueNames(name: string): SqsQueueNames {
  if (!/^[A-Za-z0-9_-]{1,70}$/.test(name)) throw new RangeError(`invalid SQS queue base name ${JSON.stringify(name)}`);
  return { work: `${name}.fifo`, delay: `${name}-delay`, dead: `${name}-dlq` };
}

/** The work queue's high-throughput FIFO attributes (serverless.yml's WorkQueue sets the same). */
export const HIGH_THROUGHPUT_FIFO = { DeduplicationScope: 'messageGroup', FifoThroughputLimit: 'perMessageGroupId' };

export async function ensureSqsQueues(client: SQSClient, names: SqsQueueNames): Promise<SqsQueueUrls> {
  const create = async (QueueName: string, Attributes: Record<string, string>): Promise<string> => {
    const out = await client.send(new CreateQueueCommand({ QueueName, Attributes }));
    if (!out.QueueUrl) throw new Error(`CreateQueue ${QueueName} returned no QueueUrl`);
    return out.QueueUrl;
  };
  // SQS refuses to create a queue that exists with other attributes (QueueNameExists); an emulator may return
  // it as it is. Either way the work queue's throughput attributes are read back and set when they differ.
  const createWork = async (): Promise<string> => {
    const attributes = { FifoQueue: 'true', ContentBasedDeduplication: 'false', ...HIGH_THROUGHPUT_FIFO };
    let QueueUrl: string;
    try {
      QueueUrl = await create(names.work, attributes);
    } catch (err) {
      if (!String((err as { name?: unknown }).name).endsWith('QueueNameExists')) throw err;
      const found = await client.send(new GetQueueUrlCommand({ QueueName: names.work }));
      if (!found.QueueUrl) throw new Error(`GetQueueUrl ${names.work} returned no QueueUrl`, { cause: err });
      QueueUrl = found.QueueUrl;
    }
    const { Attributes = {} } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: Object.keys(HIGH_THROUGHPUT_FIFO) as QueueAttributeName[],
      }),
    );
    if (Object.entries(HIGH_THROUGHPUT_FIFO).some(([k, v]) => Attributes[k as QueueAttributeName] !== v)) {
      // An emulator that cannot set them (fauxqs: InvalidAttributeName) keeps the queue as it is: the attributes
      // change throughput, not what the queue does.
      await client
        .send(new SetQueueAttributesCommand({ QueueUrl, Attributes: HIGH_THROUGHPUT_FIFO }))
        .catch((err: unknown) => {
          if (!String((err as { name?: unknown }).name).endsWith('InvalidAttributeName')) throw err;
        });
    }
    return QueueUrl;
  };
  const [work, delay, dead] = await Promise.all([
    createWork(),
    create(names.delay, {}),
    create(names.dead, { MessageRetentionPeriod: '1209600' }),
  ]);
  return { work, delay, dead };
}

export async function deleteSqsQueues(client: SQSClient, urls: SqsQueueUrls): Promise<void> {
  await Promise.all(
    [urls.work, urls.delay, urls.dead].map((QueueUrl) => client.send(new DeleteQueueCommand({ QueueUrl }))),
  );
}
