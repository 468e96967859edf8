// Prefetched leases waiting in this process (RedisQueue `prefetch` > 1). Their lease runs from the fetch, so a
// lease that has waited more than a third of leaseMs is renewed before it is handed out, and dropped if the
// renewal fails (it expired and the key is someone else's now).
import type { Lease } from '../work-queue.js';

export class LeaseBuffer {
  private readonly items: Array<{ lease: Lease; fetchedAt: number }> = [];

  constructor(
    readonly capacity: number,
    private readonly leaseMs: number,
    private readonly renew: (lease: Lease) => Promise<boolean>,
  ) {
    if (!(capacity >= 1)) throw new RangeError(`prefetch must be >= 1, got ${capacity}`);
  }

  get size(): number {
    return this.items.length;
  }

  put(leases: readonly Lease[]): void {
    const fetchedAt = Date.now();
    for (const lease of leases) this.items.push({ lease, fetchedAt });
  }

  async take(): Promise<Lease | null> {
    for (let item = this.items.shift(); item; item = this.items.shift()) {
      if (Date.now() - item.fetchedAt < this.leaseMs / 3) return item.lease;
      const renewedAt = performance.now();
      if (await this.renew(item.lease)) return { ...item.lease, grantedAt: renewedAt };
    }
    return null;
  }

  drain(): Lease[] {
    return this.items.splice(0).map((item) => item.lease);
  }
}
