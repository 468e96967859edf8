// The three SQS queues behind one WorkQueue, created if absent (CreateQueue is idempotent for equal
// attributes). URLs are used exactly as SQS returns them: fauxqs rejects any other host spelling.
import { CreateQueueCommand, DeleteQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';

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

export async function ensureSqsQueues(client: SQSClient, names: SqsQueueNames): Promise<SqsQueueUrls> {
  const create = async (QueueName: string, Attributes: Record<string, string>): Promise<string> => {
    const out = await client.send(new CreateQueueCommand({ QueueName, Attributes }));
    if (!out.QueueUrl) throw new Error(`CreateQueue ${QueueName} returned no QueueUrl`);
    return out.QueueUrl;
  };
  const [work, delay, dead] = await Promise.all([
    create(names.work, { FifoQueue: 'true', ContentBasedDeduplication: 'false' }),
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
