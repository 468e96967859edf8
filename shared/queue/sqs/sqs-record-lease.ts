// For the Lambda SQS handler: the fields of an event record from the FIFO work queue that the driver reads,
// and the record as a Lease (the shape the runtime needs). SqsQueue.holdRecords is the path that also
// checks signatures, coalesces records of one key and keeps Lambda's visibility.
import { parseKey } from '../../kube/key.js';
import type { Lease } from '../work-queue.js';
import { deliveredConflicts, deliveredFailures } from './sqs-message.js';

/** The fields of aws-lambda's SQSRecord that we read (structurally compatible with it). */
export type SqsRecordLike = {
  readonly body: string;
  readonly messageId: string;
  readonly receiptHandle?: string;
  readonly attributes: {
    readonly SentTimestamp: string;
    readonly ApproximateReceiveCount: string;
    readonly ApproximateFirstReceiveTimestamp?: string;
    readonly MessageGroupId?: string;
  };
  readonly messageAttributes?: Readonly<Record<string, { readonly stringValue?: string | undefined }>>;
};

/**
 * Throws MalformedKeyError when the body is not a key: report it as a terminal failure (dead-letter), not a
 * retry. The token is the receipt handle, which changes on every receive. failures counts only receives
 * that did not end in a delete plus failures carried by a re-send (sqs-message.ts), never a bare receive.
 */
export function leaseFromSqsRecord(record: SqsRecordLike): Lease {
  const key = parseKey(record.body);
  const receiveCount = Number(record.attributes.ApproximateReceiveCount);
  return {
    key,
    id: record.body,
    token: record.receiptHandle ?? `${record.messageId}:${receiveCount}`,
    readyAt: Number(record.attributes.SentTimestamp),
    failures: deliveredFailures(record.messageAttributes, record.attributes.ApproximateReceiveCount),
    conflicts: deliveredConflicts(record.messageAttributes),
  };
}
