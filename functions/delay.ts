// AWS Lambda handler for the delay queue: due keys (requeueAfter, backoff) to the work queue, the rest another
// hop. It needs only the queues and, when messages are signed, its own secret holding FLEETQ_SIGNING_SECRET only
// (stack parameter delaySecretArn): never the clusters' credentials or Redis.
import type { SQSEvent } from 'aws-lambda';
import { SqsQueue } from '../shared/queue/sqs/sqs-queue.js';
import { loadConfig, signingOptions } from '../shared/runtime/config.js';
import { LambdaDeps } from '../shared/runtime/lambda-deps.js';
import { processDelayBatch } from '../shared/runtime/sqs-batch.js';
import { sqsClientFor, stackQueueUrls } from './lambda-queue.js';

const lambda = new LambdaDeps<SqsQueue>(
  'fleetq-delay',
  async (env) => {
    // The delay pump opens no Redis: REDIS_URL is not asked for (a loopback placeholder, never connected to,
    // satisfies the Lambda check and redis-url-policy.ts; a REDIS_URL in its environment is ignored).
    const config = loadConfig(env, { FLEETQ_DRIVER: 'sqs', REDIS_URL: 'redis://127.0.0.1:1' });
    return new SqsQueue({
      client: sqsClientFor(config),
      ownsClient: true,
      urls: stackQueueUrls(config),
      leaseMs: config.FLEETQ_LEASE_MS,
      ...signingOptions(config),
    });
  },
  (queue) => queue.close(),
);

export const delay = async (event: SQSEvent): Promise<void> => {
  const { deps: queue } = await lambda.get();
  await processDelayBatch(queue, event.Records);
  if (process.env.IS_LOCAL === 'true') await lambda.dispose();
};
