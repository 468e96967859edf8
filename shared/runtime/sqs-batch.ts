// The Lambda side of the SQS driver. A batch from the FIFO work queue: each record becomes a lease held by
// the SqsQueue and goes through the same reconcileOne as a long-running worker. Records of one message
// group (one key) run in order; groups run side by side. A record whose reconcile must be retried is
// reported in batchItemFailures (its visibility already set to the key's backoff), and so is every later
// record of its group in the batch, as SQS FIFO requires. A batch from the delay queue is routed: due
// keys to the work queue, the rest another hop.
import type { SqsQueue } from '../queue/sqs/sqs-queue.js';
import type { SqsRecordLike } from '../queue/sqs/sqs-record-lease.js';
import { errorFields } from './logger.js';
import { reconcileOne, type Outcome, type ReconcileDeps } from './reconcile-one.js';

export type SqsEventRecord = SqsRecordLike & { readonly attributes: { readonly MessageGroupId?: string } };
export type SqsBatchResponse = { batchItemFailures: Array<{ itemIdentifier: string }> };
export type SqsBatchDeps = ReconcileDeps & { readonly queue: SqsQueue };

const FAILED: ReadonlySet<Outcome | 'dropped' | 'error'> = new Set(['retried', 'lease-lost', 'error']);

export async function processWorkBatch(
  deps: SqsBatchDeps,
  records: readonly SqsEventRecord[],
  visibilityMs: number,
): Promise<SqsBatchResponse> {
  const groups = new Map<string, SqsEventRecord[]>();
  for (const r of records) {
    const group = r.attributes.MessageGroupId ?? r.body;
    groups.set(group, [...(groups.get(group) ?? []), r]);
  }
  const failed: string[] = [];
  await Promise.all(
    [...groups.values()].map(async (group) => {
      for (const [i, record] of group.entries()) {
        const outcome = await processRecord(deps, record, visibilityMs);
        if (FAILED.has(outcome)) {
          failed.push(...group.slice(i).map((r) => r.messageId));
          return;
        }
      }
    }),
  );
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}

async function processRecord(
  deps: SqsBatchDeps,
  record: SqsEventRecord,
  visibilityMs: number,
): Promise<Outcome | 'dropped' | 'error'> {
  try {
    const held = await deps.queue.holdRecord(record, visibilityMs);
    if ('lease' in held) return await reconcileOne(deps, held.lease);
    if (held.dropped === 'malformed') {
      deps.logger.error('Malformed message dead-lettered', {
        messageId: record.messageId,
        body: record.body.slice(0, 200),
        reason: held.reason,
      });
    }
    return 'dropped';
  } catch (err) {
    deps.logger.error('Record failed before reconcile', { messageId: record.messageId, error: errorFields(err) });
    return 'error';
  }
}

export async function processDelayBatch(queue: SqsQueue, records: readonly SqsRecordLike[]): Promise<void> {
  await queue.routeDelayed(records.map((r) => r.body));
}
