// Received-but-not-yet-handed-out SQS messages of one process, and the per-cluster fairness we can offer on
// SQS: best effort. A receive returns up to 10 messages (distinct keys: a FIFO group is locked while one of
// its messages is in flight) in the queue's order; we hand them out least-recently-served cluster first and
// hold back clusters at their cap. So a quiet cluster overtakes a busy one only within what has been
// received (10 per receive, plus what is already buffered); behind 500 messages of another cluster it waits
// for them to drain. Real fleet-wide fairness needs the Redis driver.
import type { ReconcileKey } from '../../kube/key.js';

export type Received = {
  readonly key: ReconcileKey;
  readonly id: string;
  readonly cluster: string;
  readonly receiptHandle: string;
  /** SentTimestamp (server clock). */
  readonly sentAt: number;
  /** ApproximateFirstReceiveTimestamp (server clock). */
  readonly runStart: number;
  readonly failures: number;
  /** Local clock, taken before the receive request: conservative. */
  receivedAt: number;
  /** Local time by which the message becomes visible again (conservative). */
  deadline: number;
};

export class SqsFairBuffer {
  private readonly items: Received[] = [];
  private readonly lastServed = new Map<string, number>();
  private served = 0;

  get size(): number {
    return this.items.length;
  }

  push(item: Received): void {
    this.items.push(item);
  }

  /** Removes and returns messages whose visibility ends within marginMs: they will be redelivered. */
  dropStale(now: number, marginMs: number, only: (item: Received) => boolean = () => true): Received[] {
    const stale: Received[] = [];
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i] as Received;
      if (item.deadline - marginMs <= now && only(item)) stale.push(...this.items.splice(i, 1));
    }
    return stale;
  }

  /** Messages received by a request sent at `receivedAt`. */
  recent(receivedAt: number): Received[] {
    return this.items.filter((item) => item.receivedAt === receivedAt);
  }

  /** The oldest message of the least-recently-served cluster that is under its cap. */
  take(isUnderCap: (cluster: string) => boolean): Received | undefined {
    let best = -1;
    let bestServed = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.items.length; i++) {
      const { cluster } = this.items[i] as Received;
      const served = this.lastServed.get(cluster) ?? -1;
      if (served < bestServed && isUnderCap(cluster)) {
        best = i;
        bestServed = served;
      }
    }
    if (best < 0) return undefined;
    const [item] = this.items.splice(best, 1) as [Received];
    this.lastServed.set(item.cluster, ++this.served);
    return item;
  }

  drain(): Received[] {
    return this.items.splice(0);
  }
}
