// The Lambda side of the SQS driver. A batch from the FIFO work queue is admitted by the queue by the same
// rules as a worker's receive (SqsQueue.holdRecords): a body that is not a key or whose signature is bad is
// dead-lettered and never reconciled; the records of one key become ONE lease (one run covers them all:
// they were sent before it started), so a key never runs twice at once in one invocation. Keys run side by
// side through the same reconcileOne as a long-running worker. A run's message is reported in
// batchItemFailures when it must stay in the queue (retried: its visibility is already the key's backoff;
// lease lost; or the run ended without an outcome); everything else, the coalesced records included, is left
// for Lambda to delete. Records of a group after a failed one are NOT reported: they are the same key and
// the retry run covers them (SQS FIFO's "report the rest of the group" rule exists to keep an order that
// level-triggered keys do not need). Nothing is dead-lettered for its receive count. A batch from the delay
// queue is routed: due keys to the work queue, the rest another hop.
import type { LambdaTiming, SqsQueue } from '../queue/sqs/sqs-queue.js';
import type { SqsRecordLike } from '../queue/sqs/sqs-record-lease.js';
import { errorFields } from './logger.js';
import { reconcileOne, type ReconcileDeps } from './reconcile-one.js';

export type SqsEventRecord = SqsRecordLike;
export type SqsBatchResponse = { batchItemFailures: Array<{ itemIdentifier: string }> };
export type SqsBatchDeps = ReconcileDeps & { readonly queue: SqsQueue };

export async function processWorkBatch(
  deps: SqsBatchDeps,
  records: readonly SqsEventRecord[],
  timing: LambdaTiming,
): Promise<SqsBatchResponse> {
  const failed: string[] = [];
  let plans;
  try {
    plans = await deps.queue.holdRecords(records, timing);
  } catch (err) {
    deps.logger.error('Batch failed before reconcile', { records: records.length, error: errorFields(err) });
    return { batchItemFailures: records.map((r) => ({ itemIdentifier: r.messageId })) };
  }
  await Promise.all(
    plans.map(async (plan) => {
      if ('dropped' in plan) {
        if (plan.dropped === 'invalid') {
          const record = records.find((r) => r.messageId === plan.messageId);
          deps.logger.error('Invalid message dead-lettered', {
            messageId: plan.messageId,
            body: record?.body.slice(0, 200),
            reason: plan.reason,
          });
        }
        return;
      }
      try {
        await reconcileOne(deps, plan.lease);
      } catch (err) {
        deps.logger.error('Record failed outside reconcile', { messageId: plan.messageId, error: errorFields(err) });
      }
      if (deps.queue.settleRecord(plan.lease) === 'keep') failed.push(plan.messageId);
    }),
  );
  // A Lambda container is frozen once the handler returns: events still buffered would wait for the next
  // invocation, or be lost with the container. Written now, bounded by the time the invocation has left.
  const flushMs = Math.min(EVENTS_FLUSH_MS, Math.max(0, timing.remainingMs() - EVENTS_FLUSH_MARGIN_MS));
  if (deps.events && !(await deps.events.flush(flushMs))) {
    deps.logger.warn('Events still buffered at the end of the batch', { waitedMs: flushMs });
  }
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}

/** The longest a batch waits for its events to be written, and the time it keeps in hand for returning. */
const EVENTS_FLUSH_MS = 5_000;
const EVENTS_FLUSH_MARGIN_MS = 1_000;

export async function processDelayBatch(queue: SqsQueue, records: readonly SqsRecordLike[]): Promise<void> {
  await queue.routeDelayed(records.map((r) => r.body));
}
