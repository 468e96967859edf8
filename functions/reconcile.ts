// AWS Lambda handlers for the SQS driver.
//   handler: SQS batches from the FIFO work queue → reconcileOne each key, partial batch failures. Fences
//            never shorten a message's visibility below the queue's (SQS_VISIBILITY_MS, which must equal the
//            work queue's VisibilityTimeout) or the invocation's remaining time.
//   delay:   SQS batches from the delay queue → due keys to the work queue (addAfter, requeueAfter, backoff).
// Configuration comes from the environment (README "Configuration"); SQS_WORK_URL, SQS_DELAY_URL and
// SQS_DEAD_URL name the queues the stack created; FLEETQ_SIGNING_SECRET, when set, makes every message carry an
// HMAC of its key and dead-letters those that do not. Dependencies are built once per container and reused.
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { SqsQueue } from '../shared/queue/sqs/sqs-queue.js';
import { loadConfig } from '../shared/runtime/config.js';
import { makeDeps } from '../shared/runtime/deps.js';
import {
  processDelayBatch,
  processWorkBatch,
  type SqsBatchDeps,
  type SqsBatchResponse,
} from '../shared/runtime/sqs-batch.js';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (the URL of an SQS queue of the stack)`);
  return value;
}

let depsPromise: Promise<SqsBatchDeps> | undefined;

function deps(): Promise<SqsBatchDeps> {
  depsPromise ??= (async () => {
    const config = loadConfig(process.env, { FLEETQ_DRIVER: 'sqs' });
    const client = new SQSClient({
      region: config.AWS_REGION,
      ...(config.SQS_ENDPOINT && { endpoint: config.SQS_ENDPOINT }),
    });
    const queue = new SqsQueue({
      client,
      urls: { work: required('SQS_WORK_URL'), delay: required('SQS_DELAY_URL'), dead: required('SQS_DEAD_URL') },
      leaseMs: config.FLEETQ_LEASE_MS,
      ...(config.FLEETQ_SIGNING_SECRET !== undefined && { signingSecret: config.FLEETQ_SIGNING_SECRET }),
    });
    return { ...(await makeDeps(config, { service: 'fleetq-reconcile', queue })), queue };
  })();
  return depsPromise;
}

export const handler = async (
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SqsBatchResponse> => {
  const d = await deps();
  return processWorkBatch(d, event.Records, {
    visibilityMs: Number(process.env.SQS_VISIBILITY_MS ?? 900_000),
    remainingMs: () => context.getRemainingTimeInMillis(),
  });
};

export const delay = async (event: SQSEvent): Promise<void> => {
  const d = await deps();
  await processDelayBatch(d.queue, event.Records);
};
