// Received-but-not-yet-handed-out SQS messages of one process, at most one per key (further messages of a
// buffered key are coalesced by the driver), and the per-cluster fairness we can offer on SQS: best effort.
// A receive returns up to 10 messages in the queue's order (real SQS returns as many messages of one group
// as it can; the driver keeps one per key); we hand them out least-recently-served cluster first and
// hold back clusters at their cap. Held-back messages are kept invisible (extended), never left to go stale. So a quiet cluster overtakes a busy one only within what has been
// received (10 per receive, plus what is already buffered); behind 500 messages of another cluster it waits
// for them to drain. Real fleet-wide fairness needs the Redis driver.
import type { ReconcileKey } from '../../kube/key.js';

export type Received = {
  readonly key: ReconcileKey;
  readonly id: string;
  readonly cluster: string;
  readonly messageId: string;
  receiptHandle: string;
  /** SentTimestamp (server clock). */
  readonly sentAt: number;
  /** ApproximateFirstReceiveTimestamp (server clock). */
  readonly runStart: number;
  failures: number;
  /** Consecutive conflict retries carried by the message. */
  conflicts: number;
  /** Local clock, taken before the receive request: conservative. */
  receivedAt: number;
  /** performance.now() before the request that received or last extended it (Lease.grantedAt). */
  grantedAt: number;
  /** Local time by which the message becomes visible again (conservative). */
  deadline: number;
  /**
   * Signed by a secret other than the current one (a rotation window's previous secret, or the form without a key
   * id): a retry sends a fresh copy, signed anew, instead of keeping this message.
   */
  readonly staleSignature?: boolean;
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

  /** The buffered message of key `id`, if any. */
  find(id: string): Received | undefined {
    return this.items.find((item) => item.id === id);
  }

  remove(item: Received): void {
    const i = this.items.indexOf(item);
    if (i >= 0) this.items.splice(i, 1);
  }

  /** Messages whose visibility ends within marginMs (to be extended before SQS redelivers them). */
  expiring(now: number, marginMs: number): Received[] {
    return this.items.filter((item) => item.deadline - marginMs <= now);
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
