// What the Lambda SQS event source mapping does, against a real SQS emulator: receive a batch (with the
// queue's visibility timeout), invoke the handler with it as an SQSEvent and a context whose remaining time
// counts down from the function timeout, delete the records the handler did not report in batchItemFailures.
import { DeleteMessageCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

export type LambdaContextLike = { getRemainingTimeInMillis(): number };
export type BatchHandler = (
  event: SQSEvent,
  context: LambdaContextLike,
) => Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> } | void>;

/** A context whose remaining time counts down from `timeoutMs` (the function timeout). */
export function lambdaContext(timeoutMs: number, start = Date.now()): LambdaContextLike {
  return { getRemainingTimeInMillis: () => Math.max(0, start + timeoutMs - Date.now()) };
}

export type Invocation = { readonly records: SQSRecord[]; readonly failed: string[] };

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
  const response = await handler({ Records: records }, lambdaContext(timeoutMs));
  const failed = response ? response.batchItemFailures.map((f) => f.itemIdentifier) : [];
  for (const r of records) {
    if (!failed.includes(r.messageId)) {
      await client
        .send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: r.receiptHandle }))
        .catch(() => undefined);
    }
  }
  return { records, failed };
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
