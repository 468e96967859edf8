// The worker loop: N concurrent slots, each taking a key, renewing its lease while the reconcile runs,
// and reconciling it. stop() stops taking keys and waits for the ones in flight (graceful shutdown).
// The lease's fence (lease-fence.ts) is shared by the renewal timer and the writer: a refused renewal marks
// it lost at once, and so does its local deadline passing, so the reconcile makes no further write.
import type { Lease } from '../queue/work-queue.js';
import { errorFields, type Logger } from './logger.js';
import { LeaseFence } from './lease-fence.js';
import { reconcileOne, type ReconcileDeps } from './reconcile-one.js';

export type LoopOptions = {
  readonly concurrency: number;
  /** How long one get() waits for a key before looking at the stop flag again. */
  readonly pollMs?: number;
  /** Lease renewal period while a reconcile runs; default leaseMs/3. */
  readonly renewEveryMs?: number;
  /** The queue's lease duration (the fence's local deadline); default deps.leaseMs, else 30 000. */
  readonly leaseMs?: number;
};

export class WorkerLoop {
  private stopping = false;
  private slots: Promise<void>[] = [];
  private inFlight = 0;
  /** A running loop keeps the process alive even while its slots wait on unref'd queue timers. */
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: ReconcileDeps,
    private readonly options: LoopOptions,
  ) {}

  get busy(): number {
    return this.inFlight;
  }

  start(): void {
    if (this.slots.length > 0) return;
    this.keepAlive = setInterval(() => undefined, 60_000);
    for (let i = 0; i < this.options.concurrency; i++) this.slots.push(this.slot(i));
  }

  /** Takes no new keys; resolves when every in-flight reconcile has finished and released its key. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.slots);
    this.slots = [];
    clearInterval(this.keepAlive);
  }

  private async slot(index: number): Promise<void> {
    const { queue, logger } = this.deps;
    while (!this.stopping) {
      let lease: Lease | null;
      const askedAt = performance.now();
      try {
        lease = await queue.get(this.options.pollMs ?? 1_000);
      } catch (err) {
        logger.error('Queue get failed', { slot: index, error: errorFields(err) });
        await delay(1_000);
        continue;
      }
      if (lease === null) continue;
      this.inFlight++;
      const leaseMs = this.options.leaseMs ?? this.deps.leaseMs ?? 30_000;
      const fence = new LeaseFence(queue, lease, { leaseMs, grantedAt: lease.grantedAt ?? askedAt });
      try {
        await withRenewal(fence, this.options.renewEveryMs ?? Math.floor(leaseMs / 3), logger, () =>
          reconcileOne(this.deps, lease, fence, { thenGet: () => !this.stopping }),
        );
      } catch (err) {
        // reconcileOne handles reconcile errors; what reaches here is the queue itself failing.
        logger.error('Queue update failed after reconcile', { slot: index, key: lease.id, error: errorFields(err) });
      } finally {
        this.inFlight--;
      }
    }
  }
}

/** Renews the fence's lease every `everyMs` while fn runs; a refusal marks the fence lost (fn's next write fails). */
export async function withRenewal<T>(
  fence: LeaseFence,
  everyMs: number,
  logger: Logger,
  fn: () => Promise<T>,
): Promise<T> {
  const { lease } = fence;
  const timer = setInterval(() => {
    if (!fence.held()) return;
    fence.renew().then(
      (ok) =>
        ok ||
        logger.warn('Lease renewal refused; the reconcile stops before its next write', {
          key: lease.id,
          token: lease.token,
          reason: fence.lostReason,
        }),
      (err: unknown) => logger.warn('Lease renewal failed', { key: lease.id, error: errorFields(err) }),
    );
  }, everyMs);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
