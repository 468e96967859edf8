// The workqueue metrics of the reconcile Lambda: the same client-go names the long-running worker serves
// through Prometheus (queue/metrics.ts `instrument`), here from the SQS driver's Lambda path (holdRecords hands
// leases out instead of get). A record's lease counts as taken when the batch admits it: its queue duration runs
// from when the message was sent, its work duration until the run's done/retry/deadLetter; adds (requeues,
// addAfter), failure retries and conflict retries are counted as the worker counts them. The handler writes them
// with its reconcile metrics as EMF lines at the end of each invocation (emf.ts).
// workqueue_depth is not reported from here: reading it costs an SQS call per invocation, and CloudWatch has the
// queue's own ApproximateNumberOfMessagesVisible.
import type { Registry } from 'prom-client';
import { instrument } from '../queue/metrics.js';
import { SqsQueue, type LambdaTiming, type RecordPlan, type SqsQueueOptions } from '../queue/sqs/sqs-queue.js';
import type { SqsRecordLike } from '../queue/sqs/sqs-record-lease.js';
import type { DoneOutcome, Lease, RetryOutcome, WorkQueue } from '../queue/work-queue.js';
import type { ReconcileKey } from '../kube/key.js';

/** An SqsQueue whose Lambda path records the workqueue_* metrics in `registry` under queue `name`. */
export class MeteredSqsQueue extends SqsQueue {
  private readonly metered: WorkQueue;
  /** Leases admitted by holdRecords, handed to the instrumented view's get() one at a time. */
  private readonly admitted: Lease[] = [];

  constructor(options: SqsQueueOptions, registry: Registry, name = 'work') {
    super(options);
    // The unmetered operations, for instrument() to wrap; depth is left out (see above).
    const base = {
      driver: this.driver,
      add: (key: ReconcileKey) => super.add(key),
      addAfter: (key: ReconcileKey, delayMs: number) => super.addAfter(key, delayMs),
      get: () => Promise.resolve(this.admitted.shift() ?? null),
      done: (lease: Lease, requeueAfterMs?: number) => super.done(lease, requeueAfterMs),
      retry: (lease: Lease, error: unknown, o?: { readonly conflict?: boolean }) => super.retry(lease, error, o),
      deadLetter: (lease: Lease, reason: string) => super.deadLetter(lease, reason),
      renew: (lease: Lease) => super.renew(lease),
      parkInvalid: (raw: string, reason: string) => super.parkInvalid(raw, reason),
      backoffBreakdown: () => super.backoffBreakdown(),
      deadLetters: () => super.deadLetters(),
      redrive: () => Promise.resolve(0),
      depth: () => Promise.resolve(0),
      depthBreakdown: () => Promise.resolve([]),
      close: () => Promise.resolve(),
    } as unknown as WorkQueue;
    this.metered = instrument(base, registry, name);
  }

  override async holdRecords(records: readonly SqsRecordLike[], timing: LambdaTiming): Promise<RecordPlan[]> {
    const plans = await super.holdRecords(records, timing);
    for (const plan of plans) {
      if (!('lease' in plan)) continue;
      this.admitted.push(plan.lease);
      await this.metered.get(0);
    }
    return plans;
  }

  override add(key: ReconcileKey): Promise<void> {
    return this.metered.add(key);
  }

  override addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    return this.metered.addAfter(key, delayMs);
  }

  override done(lease: Lease, requeueAfterMs?: number): Promise<DoneOutcome> {
    return this.metered.done(lease, requeueAfterMs);
  }

  override retry(lease: Lease, error: unknown, options?: { readonly conflict?: boolean }): Promise<RetryOutcome> {
    return this.metered.retry(lease, error, options);
  }

  override deadLetter(lease: Lease, reason: string): Promise<void> {
    return this.metered.deadLetter(lease, reason);
  }

  override renew(lease: Lease): Promise<boolean> {
    return this.metered.renew(lease);
  }
}
