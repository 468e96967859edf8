// The in-process WorkQueue (the embedded default): client-go's workqueue with leases added.
//
// State per key id: at most one of pending (ready or delayed) / held, plus an optional dirty ready time while
// held. Ready ids sit in one FIFO per cluster; get() rotates over clusters with ready ids and skips clusters at
// their concurrency cap. Rules shared with the other drivers (see work-queue.ts):
// - add = addAfter(0); the earlier ready time wins, including for the dirty time of a held key.
// - retry: the key comes back after its backoff; a dirty mark is consumed by that retry run (it starts after
//   the add, so it reads the fresher state). Backoff wins over an earlier dirty time, as in the SQS driver.
// - a lease not renewed within leaseMs is lost: the key is ready again at once and the loss counts as a
//   failure (a handler that crashes on a key must not loop forever); done/retry/renew with its token do nothing.
// - dead-lettering resets the failure count; a key re-added while held still runs once more (no lost update).
import { randomUUID } from 'node:crypto';
import { MalformedKeyError, parseKey, type ReconcileKey } from '../../kube/key.js';
import { backoffDelay, type DeadLetter, type Lease, type RetryOutcome, type WorkQueue } from '../work-queue.js';
import type { QueueOptions } from '../work-queue.js';
import {
  checkedKeyString,
  clusterAndKind,
  clusterCap,
  errorReason,
  resolveQueueOptions,
  type ResolvedQueueOptions,
} from '../queue-options.js';
import { MinHeap } from './min-heap.js';
import { MemoryWaiters } from './memory-waiters.js';

type Pending = { readyAt: number; state: 'ready' | 'delayed' };
type Held = { readonly lease: Lease; readonly cluster: string; expiresAt: number };

export type MemoryQueueOptions = QueueOptions & { readonly now?: () => number };

export class MemoryQueue implements WorkQueue {
  readonly driver = 'memory' as const;
  private readonly onMalformed: ((raw: string, reason: string) => void) | undefined;
  private readonly options: ResolvedQueueOptions;
  private readonly now: () => number;
  private readonly pending = new Map<string, Pending>();
  private readonly readyByCluster = new Map<string, string[]>();
  private readonly rotation: string[] = [];
  private readonly delayed = new MinHeap<{ at: number; id: string }>();
  private readonly held = new Map<string, Held>();
  private readonly heldPerCluster = new Map<string, number>();
  private readonly dirty = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  private readonly dead = new Map<string, DeadLetter>();
  private readonly waiters = new MemoryWaiters();
  private readonly instance = randomUUID().slice(0, 8);
  private sequence = 0;
  private closed = false;

  constructor(options: MemoryQueueOptions = {}) {
    this.options = resolveQueueOptions(options);
    this.now = options.now ?? Date.now;
    this.onMalformed = options.onMalformed;
  }

  async add(key: ReconcileKey): Promise<void> {
    this.schedule(checkedKeyString(key), this.now());
  }

  async addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    this.schedule(checkedKeyString(key), this.now() + Math.max(0, delayMs));
  }

  /** Test hook standing in for a corrupt message in the store: enqueues a raw id without validation. */
  addRaw(raw: string): void {
    this.schedule(raw, this.now());
  }

  async get(waitMs = 0): Promise<Lease | null> {
    const deadline = this.now() + waitMs;
    for (;;) {
      if (this.closed) return null;
      const lease = this.take();
      if (lease) return lease;
      const now = this.now();
      if (now >= deadline) return null;
      await this.waiters.wait(Math.min(deadline, this.nextWakeAt()) - now);
    }
  }

  async done(lease: Lease): Promise<void> {
    const held = this.current(lease);
    if (!held) return;
    this.release(held);
    this.failures.delete(lease.id);
    this.rescheduleDirty(lease.id);
  }

  async retry(lease: Lease, error: unknown): Promise<RetryOutcome> {
    const held = this.current(lease);
    if (!held) return { outcome: 'lease-lost' };
    this.release(held);
    const failures = held.lease.failures + 1;
    if (failures >= this.options.maxFailures) {
      this.park(lease.id, lease.key, null, errorReason(error), failures);
      return { outcome: 'dead-lettered' };
    }
    this.failures.set(lease.id, failures);
    this.dirty.delete(lease.id);
    const delayMs = backoffDelay(held.lease.failures, this.options.baseDelayMs, this.options.maxDelayMs);
    this.schedule(lease.id, this.now() + delayMs);
    return { outcome: 'retried', delayMs };
  }

  async deadLetter(lease: Lease, reason: string): Promise<void> {
    const held = this.current(lease);
    if (!held) return;
    this.release(held);
    this.park(lease.id, lease.key, null, reason, held.lease.failures);
  }

  async renew(lease: Lease): Promise<boolean> {
    const held = this.current(lease);
    if (!held) return false;
    held.expiresAt = this.now() + this.options.leaseMs;
    return true;
  }

  async deadLetters(): Promise<DeadLetter[]> {
    return [...this.dead.values()].sort((a, b) => a.at - b.at);
  }

  async redrive(match?: (d: DeadLetter) => boolean): Promise<number> {
    let moved = 0;
    for (const [entryId, letter] of [...this.dead]) {
      if (letter.key === null || (match && !match(letter))) continue;
      this.dead.delete(entryId);
      this.failures.delete(entryId);
      this.schedule(entryId, this.now());
      moved++;
    }
    return moved;
  }

  async depth(): Promise<number> {
    this.reclaimExpired();
    return this.pending.size;
  }

  /** Waiting keys by cluster and kind (for workqueue_depth). */
  async depthBreakdown(): Promise<Array<{ cluster: string; kind: string; depth: number }>> {
    this.reclaimExpired();
    const counts = new Map<string, { cluster: string; kind: string; depth: number }>();
    for (const id of this.pending.keys()) {
      const { cluster, kind } = clusterAndKind(id);
      const label = `${cluster}/${kind}`;
      const entry = counts.get(label) ?? { cluster, kind, depth: 0 };
      entry.depth++;
      counts.set(label, entry);
    }
    return [...counts.values()];
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiters.wakeAll();
  }

  private schedule(id: string, readyAt: number): void {
    this.reclaimExpired();
    if (this.held.has(id)) {
      const dirtyAt = this.dirty.get(id);
      if (dirtyAt === undefined || readyAt < dirtyAt) this.dirty.set(id, readyAt);
      return;
    }
    const now = this.now();
    const pending = this.pending.get(id);
    if (pending && (pending.state === 'ready' || readyAt >= pending.readyAt)) return;
    if (readyAt <= now) {
      this.pending.set(id, { readyAt, state: 'ready' });
      this.pushReady(id);
    } else {
      this.pending.set(id, { readyAt, state: 'delayed' });
      this.delayed.push({ at: readyAt, id });
      this.waiters.wakeAll();
    }
  }

  private pushReady(id: string): void {
    const { cluster } = clusterAndKind(id);
    const list = this.readyByCluster.get(cluster);
    if (list) list.push(id);
    else {
      this.readyByCluster.set(cluster, [id]);
      this.rotation.push(cluster);
    }
    this.waiters.wakeAll();
  }

  private promoteDue(now: number): void {
    for (let top = this.delayed.peek(); top && top.at <= now; top = this.delayed.peek()) {
      this.delayed.pop();
      const pending = this.pending.get(top.id);
      if (pending?.state !== 'delayed' || pending.readyAt !== top.at) continue; // superseded entry
      pending.state = 'ready';
      this.pushReady(top.id);
    }
  }

  /** One hand-out: round-robin over clusters with ready ids, skipping clusters at their cap. */
  private take(): Lease | null {
    this.reclaimExpired();
    const now = this.now();
    this.promoteDue(now);
    for (let skipped = 0; skipped < this.rotation.length;) {
      const cluster = this.rotation.shift() as string;
      const list = this.readyByCluster.get(cluster);
      if ((this.heldPerCluster.get(cluster) ?? 0) >= clusterCap(this.options, cluster)) {
        this.rotation.push(cluster);
        skipped++;
        continue;
      }
      const id = list?.shift();
      if (list && list.length > 0) this.rotation.push(cluster);
      else this.readyByCluster.delete(cluster);
      if (id === undefined) continue;
      const lease = this.handOut(id, cluster, now);
      if (lease) return lease;
      skipped = 0;
    }
    return null;
  }

  private handOut(id: string, cluster: string, now: number): Lease | null {
    const readyAt = this.pending.get(id)?.readyAt ?? now;
    this.pending.delete(id);
    let key: ReconcileKey;
    try {
      key = parseKey(id);
    } catch (err) {
      if (!(err instanceof MalformedKeyError)) throw err;
      this.park(`raw:${++this.sequence}`, null, id, err.message, 0);
      this.onMalformed?.(id, err.message);
      return null;
    }
    const token = `${this.instance}-${++this.sequence}`;
    const lease: Lease = { key, id, token, readyAt, failures: this.failures.get(id) ?? 0 };
    this.held.set(id, { lease, cluster, expiresAt: now + this.options.leaseMs });
    this.heldPerCluster.set(cluster, (this.heldPerCluster.get(cluster) ?? 0) + 1);
    return lease;
  }

  private current(lease: Lease): Held | undefined {
    this.reclaimExpired();
    const held = this.held.get(lease.id);
    return held?.lease.token === lease.token ? held : undefined;
  }

  private release(held: Held): void {
    this.held.delete(held.lease.id);
    const count = (this.heldPerCluster.get(held.cluster) ?? 1) - 1;
    if (count > 0) this.heldPerCluster.set(held.cluster, count);
    else this.heldPerCluster.delete(held.cluster);
    this.waiters.wakeAll();
  }

  private reclaimExpired(): void {
    if (this.held.size === 0) return;
    const now = this.now();
    for (const held of [...this.held.values()]) {
      if (held.expiresAt > now || this.held.get(held.lease.id) !== held) continue;
      const { id } = held.lease;
      this.release(held);
      const failures = held.lease.failures + 1;
      if (failures >= this.options.maxFailures) {
        this.park(id, held.lease.key, null, `lease expired (not renewed within ${this.options.leaseMs} ms)`, failures);
        continue;
      }
      this.failures.set(id, failures);
      this.dirty.delete(id);
      this.schedule(id, held.expiresAt);
    }
  }

  /** Parks a key (or a raw message) in the dead-letter list; a dirty mark still runs, with failures reset. */
  private park(entryId: string, key: ReconcileKey | null, raw: string | null, reason: string, failures: number): void {
    this.dead.delete(entryId);
    const at = this.now();
    this.dead.set(entryId, raw === null ? { key, reason, failures, at } : { key, raw, reason, failures, at });
    if (key === null) return;
    this.failures.delete(entryId);
    this.rescheduleDirty(entryId);
  }

  private rescheduleDirty(id: string): void {
    const dirtyAt = this.dirty.get(id);
    if (dirtyAt === undefined) return;
    this.dirty.delete(id);
    this.schedule(id, dirtyAt);
  }

  private nextWakeAt(): number {
    let at = this.delayed.peek()?.at ?? Number.POSITIVE_INFINITY;
    for (const held of this.held.values()) at = Math.min(at, held.expiresAt);
    return at;
  }
}
