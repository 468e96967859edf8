// The worker loop: N concurrent slots, each taking a key, renewing its lease while the reconcile runs,
// and reconciling it. stop() stops taking keys and waits for the ones in flight (graceful shutdown).
import type { Lease, WorkQueue } from '../queue/work-queue.js';
import { errorFields, type Logger } from './logger.js';
import { reconcileOne, type ReconcileDeps } from './reconcile-one.js';

export type LoopOptions = {
  readonly concurrency: number;
  /** How long one get() waits for a key before looking at the stop flag again. */
  readonly pollMs?: number;
  /** Lease renewal period while a reconcile runs; default leaseMs/3 of the queue (10 s). */
  readonly renewEveryMs?: number;
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
      try {
        lease = await queue.get(this.options.pollMs ?? 1_000);
      } catch (err) {
        logger.error('Queue get failed', { slot: index, error: errorFields(err) });
        await delay(1_000);
        continue;
      }
      if (lease === null) continue;
      this.inFlight++;
      try {
        await withRenewal(queue, lease, this.options.renewEveryMs ?? 10_000, logger, () =>
          reconcileOne(this.deps, lease),
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

async function withRenewal<T>(
  queue: WorkQueue,
  lease: Lease,
  everyMs: number,
  logger: Logger,
  fn: () => Promise<T>,
): Promise<T> {
  const timer = setInterval(() => {
    queue.renew(lease).then(
      (ok) => ok || logger.warn('Lease renewal refused', { key: lease.id }),
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
