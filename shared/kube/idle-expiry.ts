// What a worker keeps per cluster (its clients and API budget objects, its event recorder, its cache store) is
// built on the cluster's first key and, without a bound, kept for the life of the process: a worker that has
// served 10,000 clusters holds 10,000 of each. This map forgets an entry nobody asked for in `idleMs`
// (FLEETQ_CLUSTER_IDLE_MS), as long as the entry says it can go (`canEvict`: nothing in flight, nothing that a
// fresh one would do differently). The next key of that cluster builds it again.
//
// Entries are only dropped, never closed: whoever still holds one (a request or an event write in flight) keeps
// using it until done, and the garbage collector takes it after. Sweeps run on access, at most every
// `sweepEveryMs` (default a quarter of idleMs, at most a minute), and cost O(entries); a process that serves no
// key at all does not sweep, and does not grow either. Time is an input (`now`).
export type IdleExpiryOptions<V> = {
  /** An entry not asked for in this long may go; 0 or less: never (entries are kept for the life of the map). */
  readonly idleMs: number;
  /** The entry's own least idle time, when longer than idleMs (e.g. a token bucket's time to refill). */
  readonly minIdleMs?: (value: V) => number;
  /** false keeps an idle entry (something in flight, or state a fresh entry would not have); default true. */
  readonly canEvict?: (value: V) => boolean;
  readonly onEvict?: (key: string, value: V) => void;
  readonly now?: () => number;
  /** Least time between two sweeps; default min(idleMs / 4, 60 000). */
  readonly sweepEveryMs?: number;
};

export class IdleExpiry<V> {
  private readonly entries = new Map<string, { value: V; usedAt: number }>();
  private lastSweep: number;
  private readonly now: () => number;

  constructor(private readonly o: IdleExpiryOptions<V>) {
    this.now = o.now ?? Date.now;
    this.lastSweep = this.now();
  }

  /** The entry (marked used now), or undefined. */
  get(key: string): V | undefined {
    const now = this.now();
    this.maybeSweep(now);
    const e = this.entries.get(key);
    if (!e) return undefined;
    e.usedAt = now;
    return e.value;
  }

  set(key: string, value: V): void {
    const now = this.now();
    this.maybeSweep(now);
    this.entries.set(key, { value, usedAt: now });
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  values(): IterableIterator<V> {
    const it = this.entries.values();
    return (function* () {
      for (const e of it) yield e.value;
    })();
  }

  /** Drops every entry idle for its time that can go; returns how many went. */
  sweep(now = this.now()): number {
    this.lastSweep = now;
    if (this.o.idleMs <= 0) return 0;
    let evicted = 0;
    for (const [key, e] of this.entries) {
      const idleFor = now - e.usedAt;
      if (idleFor < this.o.idleMs) continue;
      if (this.o.minIdleMs && idleFor < this.o.minIdleMs(e.value)) continue;
      if (this.o.canEvict && !this.o.canEvict(e.value)) continue;
      this.entries.delete(key);
      evicted++;
      this.o.onEvict?.(key, e.value);
    }
    return evicted;
  }

  private maybeSweep(now: number): void {
    if (this.o.idleMs <= 0) return;
    const every = this.o.sweepEveryMs ?? Math.min(this.o.idleMs / 4, 60_000);
    if (now - this.lastSweep >= every) this.sweep(now);
  }
}
