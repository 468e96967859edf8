// Receive-side dedup for SQS ("N adds while waiting → 1 reconcile"). Every add is its own FIFO message (a
// key-based MessageDeduplicationId would drop an add sent after a run started: a lost update), so duplicates
// are coalesced when received instead: a message sent before the start of a *completed* run of its key is
// redundant, because that run read state at least as fresh as the add that sent it.
//
// Both times are SQS server clock: the run start is the ApproximateFirstReceiveTimestamp of the message that
// started the run (for a redelivered message that is earlier than the real start, which only makes us keep
// more messages), compared with SentTimestamp. The history is per process: a duplicate received by another
// process costs one extra reconcile, never correctness.
const MAX_KEYS = 100_000;

export class SqsRunHistory {
  private readonly completedRunStart = new Map<string, number>();

  /** A run of `id` that started (server clock) at `runStart` has completed successfully. */
  completed(id: string, runStart: number): void {
    const previous = this.completedRunStart.get(id) ?? 0;
    this.completedRunStart.delete(id); // re-insert: Map order is our LRU order
    this.completedRunStart.set(id, Math.max(previous, runStart));
    if (this.completedRunStart.size > MAX_KEYS) {
      const oldest = this.completedRunStart.keys().next();
      if (!oldest.done) this.completedRunStart.delete(oldest.value);
    }
  }

  /** True when a message of `id` sent at `sentAt` is covered by a completed run. */
  isRedundant(id: string, sentAt: number): boolean {
    const runStart = this.completedRunStart.get(id);
    return runStart !== undefined && sentAt < runStart;
  }
}
