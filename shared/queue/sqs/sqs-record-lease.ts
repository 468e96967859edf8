// For the Lambda SQS handler: an event record from the FIFO work queue as a Lease. Lambda itself owns the
// message (visibility, delete on success, batchItemFailures), so this is only the shape the runtime needs.
import { parseKey } from '../../kube/key.js';
import type { Lease } from '../work-queue.js';

/** The fields of aws-lambda's SQSRecord that we read (structurally compatible with it). */
export type SqsRecordLike = {
  readonly body: string;
  readonly messageId: string;
  readonly receiptHandle?: string;
  readonly attributes: {
    readonly SentTimestamp: string;
    readonly ApproximateReceiveCount: string;
    readonly ApproximateFirstReceiveTimestamp?: string;
  };
};

/**
 * Throws MalformedKeyError when the body is not a key: report it as a terminal failure (dead-letter), not a
 * retry. The token is the receipt handle, which changes on every receive.
 */
export function leaseFromSqsRecord(record: SqsRecordLike): Lease {
  const key = parseKey(record.body);
  const receiveCount = Number(record.attributes.ApproximateReceiveCount);
  return {
    key,
    id: record.body,
    token: record.receiptHandle ?? `${record.messageId}:${receiveCount}`,
    readyAt: Number(record.attributes.SentTimestamp),
    failures: Number.isFinite(receiveCount) && receiveCount > 1 ? receiveCount - 1 : 0,
  };
}
