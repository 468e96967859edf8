// AWS Lambda handler for the delay queue: due keys (requeueAfter, backoff) to the work queue, the rest another
// hop. It needs only the queues and the signing secret (FLEETQ_SECRET_ID), not the clusters.
import type { SQSEvent } from 'aws-lambda';
import { SqsQueue } from '../shared/queue/sqs/sqs-queue.js';
import { loadConfig } from '../shared/runtime/config.js';
import { LambdaDeps } from '../shared/runtime/lambda-deps.js';
import { processDelayBatch } from '../shared/runtime/sqs-batch.js';
import { sqsClientFor, stackQueueUrls } from './lambda-queue.js';

const lambda = new LambdaDeps<SqsQueue>(
  'fleetq-delay',
  async (env) => {
    // The delay pump needs no Redis: REDIS_URL is not asked for.
    const config = loadConfig({ REDIS_URL: 'redis://unused', ...env }, { FLEETQ_DRIVER: 'sqs' });
    return new SqsQueue({
      client: sqsClientFor(config),
      ownsClient: true,
      urls: stackQueueUrls(config),
      leaseMs: config.FLEETQ_LEASE_MS,
      ...(config.FLEETQ_SIGNING_SECRET !== undefined && { signingSecret: config.FLEETQ_SIGNING_SECRET }),
    });
  },
  (queue) => queue.close(),
);

export const delay = async (event: SQSEvent): Promise<void> => {
  const { deps: queue } = await lambda.get();
  await processDelayBatch(queue, event.Records);
  if (process.env.IS_LOCAL === 'true') await lambda.dispose();
};
