// Throttled checkpoint writes for one cluster: the latest resourceVersion per resource is kept in memory and
// written every intervalMs, after everyUpdates updates, and on close. A failed write keeps the entries for
// the next try (a lost checkpoint costs a replay of events, never a lost event).
import type { CheckpointStore } from '../queue/history/checkpoint-store.js';
import type { Logger } from '../runtime/logger.js';

export type CheckpointWriterOptions = {
  readonly intervalMs?: number;
  readonly everyUpdates?: number;
};

export class CheckpointWriter {
  private dirty = new Map<string, string>();
  private updates = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private readonly intervalMs: number;
  private readonly everyUpdates: number;

  constructor(
    private readonly cluster: string,
    private readonly store: CheckpointStore,
    private readonly logger: Logger,
    private readonly onError: (err: unknown) => void,
    options: CheckpointWriterOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 1_000;
    this.everyUpdates = options.everyUpdates ?? 100;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  mark(resource: string, resourceVersion: string): void {
    this.dirty.set(resource, resourceVersion);
    if (++this.updates >= this.everyUpdates) void this.flush();
  }

  /** Writes what is pending; resolves when it (and any write before it) is done. Never rejects. */
  flush(): Promise<void> {
    this.running = this.running.then(() => this.write());
    return this.running;
  }

  /** Stops the timer and writes what is pending; resolves to whether everything marked was written. */
  async close(): Promise<boolean> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
    return this.dirty.size === 0;
  }

  private async write(): Promise<void> {
    if (this.dirty.size === 0) return;
    const batch = this.dirty;
    this.dirty = new Map();
    this.updates = 0;
    try {
      await this.store.save(this.cluster, batch);
      this.logger.debug('Checkpoints saved', { checkpoints: Object.fromEntries(batch) });
    } catch (err) {
      this.onError(err);
      this.logger.error('Checkpoint save failed', { err });
      for (const [resource, rv] of batch) if (!this.dirty.has(resource)) this.dirty.set(resource, rv);
    }
  }
}
