// What the Lambda SQS event source mapping does, against a real SQS emulator: receive a batch (with the
// queue's visibility timeout), invoke the handler with it as an SQSEvent and a context whose remaining time
// counts down from the function timeout, then settle the batch as AWS documents for ReportBatchItemFailures
// ("Handling errors for an SQS event source in Lambda", docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling):
//   - the invocation failed (the handler threw): nothing is deleted; the whole batch becomes visible again
//     once its visibility timeout runs out;
//   - a null or empty response, or an empty batchItemFailures list: the whole batch succeeded, all deleted;
//   - an itemIdentifier that is empty, null or not a messageId of the batch: the whole batch failed, nothing
//     deleted;
//   - otherwise every record not reported is deleted, the reported ones stay (visible again after the timeout).
// AWS does not say which delete call the mapping makes; this one deletes one record a request (DeleteMessage),
// and the Lambda cost bench also reports the figure as if each invocation's deletes were one DeleteMessageBatch.
// A delete SQS refuses is recorded on the invocation (deleteErrors), never hidden.
import { DeleteMessageCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import type { Controller } from '../../../shared/controllers/controller.js';
import type { EventRecorders } from '../../../shared/kube/events/recorders.js';
import type { ClusterRegistry } from '../../../shared/kube/registry.js';
import type { SqsQueue } from '../../../shared/queue/sqs/sqs-queue.js';
import { Logger } from '../../../shared/runtime/logger.js';
import type { ClusterClients } from '../../../shared/runtime/reconcile-one.js';
import type { SqsBatchDeps } from '../../../shared/runtime/sqs-batch.js';

export type LambdaContextLike = { getRemainingTimeInMillis(): number };
export type BatchHandler = (
  event: SQSEvent,
  context: LambdaContextLike,
) => Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> } | void>;

/** A context whose remaining time counts down from `timeoutMs` (the function timeout). */
export function lambdaContext(timeoutMs: number, start = Date.now()): LambdaContextLike {
  return { getRemainingTimeInMillis: () => Math.max(0, start + timeoutMs - Date.now()) };
}

export type Invocation = {
  readonly records: SQSRecord[];
  /** The messageIds the mapping did not delete: those reported, or the whole batch when it failed. */
  readonly failed: string[];
  /** The handler threw, or its response named a record the batch does not hold (the whole batch failed). */
  readonly batchFailed?: string;
  /** Deletes SQS refused (receipt handle and the error's name). */
  readonly deleteErrors: Array<{ receiptHandle: string; error: string }>;
};

/**
 * What the mapping keeps of a batch after the invocation: the messageIds not to delete. Documented rules (see
 * the header): a thrown error or an invalid itemIdentifier fails the whole batch.
 */
export function undeletedIds(
  records: readonly Pick<SQSRecord, 'messageId'>[],
  outcome: { response: unknown } | { error: unknown },
): { failed: string[]; batchFailed?: string } {
  const all = records.map((r) => r.messageId);
  if ('error' in outcome) return { failed: all, batchFailed: `invocation failed: ${String(outcome.error)}` };
  const response = outcome.response as { batchItemFailures?: unknown } | null | undefined;
  const failures = response?.batchItemFailures;
  if (failures === undefined || failures === null) return { failed: [] };
  if (!Array.isArray(failures)) return { failed: all, batchFailed: 'batchItemFailures is not a list' };
  const ids = new Set(all);
  const failed: string[] = [];
  for (const f of failures as Array<{ itemIdentifier?: unknown } | null>) {
    const id = f?.itemIdentifier;
    if (typeof id !== 'string' || id === '' || !ids.has(id)) {
      return { failed: all, batchFailed: `invalid itemIdentifier ${JSON.stringify(id ?? null)}` };
    }
    failed.push(id);
  }
  return { failed };
}

export function toRecord(m: Message, queueArn: string): SQSRecord {
  const a = m.Attributes ?? {};
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, v] of Object.entries(m.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: v.DataType ?? 'String',
      ...(v.StringValue !== undefined && { stringValue: v.StringValue }),
    };
  }
  return {
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(a.MessageGroupId !== undefined && { MessageGroupId: a.MessageGroupId }),
      ...(a.MessageDeduplicationId !== undefined && { MessageDeduplicationId: a.MessageDeduplicationId }),
    },
    messageAttributes,
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

/** One poll of the mapping: returns what was invoked (nothing when the queue had nothing visible). */
export async function pollOnce(
  client: SQSClient,
  queueUrl: string,
  handler: BatchHandler,
  visibilitySeconds = 30,
  timeoutMs = visibilitySeconds * 1000,
): Promise<Invocation | null> {
  const out = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      VisibilityTimeout: visibilitySeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  const messages = out.Messages ?? [];
  if (messages.length === 0) return null;
  const records = messages.map((m) =>
    toRecord(m, `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop() ?? ''}`),
  );
  const outcome = await handler({ Records: records }, lambdaContext(timeoutMs)).then(
    (response) => ({ response }),
    (error: unknown) => ({ error }),
  );
  const { failed, batchFailed } = undeletedIds(records, outcome);
  const deleteErrors: Invocation['deleteErrors'] = [];
  for (const r of records) {
    if (failed.includes(r.messageId)) continue;
    await client
      .send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: r.receiptHandle }))
      .catch((err: unknown) =>
        deleteErrors.push({ receiptHandle: r.receiptHandle, error: err instanceof Error ? err.name : String(err) }),
      );
  }
  return { records, failed, ...(batchFailed !== undefined && { batchFailed }), deleteErrors };
}

/** Polls the given queues until stopped; every invocation is recorded. */
export function startMapping(
  client: SQSClient,
  mappings: ReadonlyArray<{ url: string; handler: BatchHandler }>,
): { invocations: Invocation[]; stop: () => Promise<void> } {
  const invocations: Invocation[] = [];
  let stopped = false;
  const loops = mappings.map(async ({ url, handler }) => {
    while (!stopped) {
      const inv = await pollOnce(client, url, handler).catch(() => null);
      if (inv) invocations.push(inv);
      else await new Promise((r) => setTimeout(r, 50));
    }
  });
  return {
    invocations,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/**
 * What processWorkBatch needs to run `controller` on the keys of `queue` and nothing else: every cluster known and
 * owned, no clients (the controller reads nothing), a logger at `logger` (default: silent below errors).
 */
export function workBatchDeps(
  queue: SqsQueue,
  controller: Controller,
  extra: { logger?: Logger; events?: EventRecorders } = {},
): SqsBatchDeps {
  return {
    registry: { get: () => ({}), owns: () => true } as unknown as ClusterRegistry,
    clients: () => ({}) as ClusterClients,
    controllers: new Map([[controller.kind, controller]]),
    queue,
    logger: extra.logger ?? new Logger('test', 'error', () => {}),
    ...(extra.events && { events: extra.events }),
    now: () => new Date(),
  };
}
