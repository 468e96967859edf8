// The in-process WorkQueue (the embedded default): client-go's workqueue with leases added.
//
// State per key id: at most one of pending (ready or delayed) / held, plus an optional dirty ready time while
// held. Ready ids sit in one FIFO per cluster; get() rotates over clusters with ready ids and skips clusters at
// their concurrency cap. Rules shared with the other drivers (see work-queue.ts):
// - add = addAfter(0); the earlier ready time wins, including for the dirty time of a held key.
// - retry: the key comes back after its backoff, without end (no failure count dead-letters a key); a dirty
//   mark is consumed by that retry run (it starts after the add, so it reads the fresher state). Backoff wins
//   over an earlier dirty time, as in the SQS driver. A conflict retry backs off on the key's conflict count,
//   not its failure count.
// - done(lease, requeueAfterMs): release, then the dirty time and the requeue time compete (earlier wins).
// - a lease not renewed within leaseMs is lost: the key is ready again at once and the loss counts as a
//   failure for the backoff; done/retry/renew with its token do nothing.
// - dead-lettering resets the failure count; a key re-added while held still runs once more (no lost update).
// - with signingSecret, add() stores the key's HMAC beside it and get() checks it: an id without a valid one
//   (addRaw, the test hook for a corrupt store) is dead-lettered as "bad signature" and never handed out.
import { randomUUID } from 'node:crypto';
import { MalformedKeyError, parseKey, type ReconcileKey } from '../../kube/key.js';
import {
  backoffDelay,
  type DeadLetter,
  type DoneOutcome,
  type Lease,
  type RedriveOptions,
  type RetryOutcome,
  type WorkQueue,
} from '../work-queue.js';
import {
  BAD_SIGNATURE,
  keyId,
  signatureKeyId,
  signKey,
  verifySignature,
  verifyingSecrets,
} from '../message-signing.js';
import type { QueueOptions } from '../work-queue.js';
import {
  checkedKeyString,
  clusterAndKind,
  clusterCap,
  rawKeyId,
  resolveQueueOptions,
  type ResolvedQueueOptions,
} from '../queue-options.js';
import type { OldestReadyBreakdown } from '../oldest-ready.js';
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
  private readonly conflicts = new Map<string, number>();
  private readonly dead = new Map<string, DeadLetter>();
  /** id → HMAC given on add (only with signingSecret); kept while the key is pending or held. */
  private readonly signatures = new Map<string, string>();
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
    this.schedule(this.signed(checkedKeyString(key)), this.now());
  }

  async addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    this.schedule(this.signed(checkedKeyString(key)), this.now() + Math.max(0, delayMs));
  }

  /**
   * Test hook standing in for a corrupt or forged message in the store: enqueues a raw id without validation,
   * with the given signature (none by default).
   */
  addRaw(raw: string, signature?: string): void {
    if (signature !== undefined) this.signatures.set(raw, signature);
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

  async done(lease: Lease, requeueAfterMs?: number): Promise<DoneOutcome> {
    const held = this.current(lease);
    if (!held) return { outcome: 'lease-lost' };
    this.release(held);
    this.failures.delete(lease.id);
    this.conflicts.delete(lease.id);
    this.rescheduleDirty(lease.id);
    if (requeueAfterMs !== undefined) this.schedule(lease.id, this.now() + Math.max(0, requeueAfterMs));
    if (!this.pending.has(lease.id)) this.signatures.delete(lease.id);
    return { outcome: 'done' };
  }

  async retry(lease: Lease, _error: unknown, options?: { readonly conflict?: boolean }): Promise<RetryOutcome> {
    const held = this.current(lease);
    if (!held) return { outcome: 'lease-lost' };
    this.release(held);
    const counts = options?.conflict ? this.conflicts : this.failures;
    const before = options?.conflict ? (held.lease.conflicts ?? 0) : held.lease.failures;
    counts.set(lease.id, before + 1);
    this.dirty.delete(lease.id);
    const delayMs = backoffDelay(before, this.options.baseDelayMs, this.options.maxDelayMs);
    this.schedule(lease.id, this.now() + delayMs);
    return { outcome: 'retried', delayMs };
  }

  async deadLetter(lease: Lease, reason: string): Promise<void> {
    const held = this.current(lease);
    if (!held) return;
    this.release(held);
    this.park(lease.id, lease.key, null, reason, held.lease.failures);
  }

  async parkInvalid(raw: string, reason: string): Promise<void> {
    this.park(`raw:${++this.sequence}`, null, raw, reason, 0);
  }

  async backoffBreakdown(): Promise<Array<{ cluster: string; keys: number }>> {
    this.reclaimExpired();
    const counts = new Map<string, number>();
    for (const id of new Set([...this.failures.keys(), ...this.conflicts.keys()])) {
      if (!this.pending.has(id)) continue;
      const { cluster } = clusterAndKind(id);
      counts.set(cluster, (counts.get(cluster) ?? 0) + 1);
    }
    return [...counts].map(([cluster, keys]) => ({ cluster, keys }));
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

  async redrive(match?: (d: DeadLetter) => boolean, options?: RedriveOptions): Promise<number> {
    let moved = 0;
    for (const [entryId, letter] of [...this.dead]) {
      const id = letter.key !== null ? entryId : options?.raw ? rawKeyId(letter.raw) : undefined;
      if (id === undefined || (match && !match(letter))) continue;
      this.dead.delete(entryId);
      if (!this.held.has(id)) {
        this.failures.delete(id);
        this.conflicts.delete(id);
      }
      this.schedule(this.signed(id), this.now());
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

  /**
   * Queue latency by cluster (oldest-ready.ts): per cluster with a ready key (a delayed one whose time has come
   * counts: the next get() moves it), the ready time of the one that has waited longest. Exact: one pass over the
   * waiting keys, O(waiting), in the process, as depthBreakdown.
   */
  async oldestReadyBreakdown(): Promise<OldestReadyBreakdown> {
    this.reclaimExpired();
    const now = this.now();
    const oldest = new Map<string, number>();
    for (const [id, { readyAt }] of this.pending) {
      if (readyAt > now) continue;
      const { cluster } = clusterAndKind(id);
      const seen = oldest.get(cluster);
      if (seen === undefined || readyAt < seen) oldest.set(cluster, readyAt);
    }
    return {
      clusters: [...oldest].map(([cluster, at]) => ({ cluster, oldestReadyAt: at, ageMs: now - at, exact: true })),
      unusable: 0,
      dueTruncated: false,
    };
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
      this.discard(id, err.message);
      return null;
    }
    const signature = this.signatures.get(id);
    if (this.options.signingSecret !== undefined && !verifySignature(verifyingSecrets(this.options), id, signature)) {
      this.discard(id, BAD_SIGNATURE, signature);
      return null;
    }
    // Verified by a previous secret (or the form without a key id): signed anew while held, as the Redis driver does.
    const secret = this.options.signingSecret;
    if (secret !== undefined && signatureKeyId(signature) !== keyId(secret)) this.signed(id);
    const token = `${this.instance}-${++this.sequence}`;
    const grantedAt = performance.now();
    const failures = this.failures.get(id) ?? 0;
    const lease: Lease = { key, id, token, readyAt, failures, conflicts: this.conflicts.get(id) ?? 0, grantedAt };
    this.held.set(id, { lease, cluster, expiresAt: now + this.options.leaseMs });
    this.heldPerCluster.set(cluster, (this.heldPerCluster.get(cluster) ?? 0) + 1);
    return lease;
  }

  /** A message that never became a valid key: parked raw, its failure count and signature forgotten. */
  private discard(id: string, reason: string, signature?: string): void {
    this.park(`raw:${++this.sequence}`, null, id, reason, 0, signature);
    this.failures.delete(id);
    this.conflicts.delete(id);
    this.dirty.delete(id);
    this.signatures.delete(id);
    this.onMalformed?.(id, reason);
  }

  private signed(id: string): string {
    const secret = this.options.signingSecret;
    if (secret !== undefined) this.signatures.set(id, signKey(secret, id));
    return id;
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
      this.failures.set(id, held.lease.failures + 1);
      this.dirty.delete(id);
      this.schedule(id, held.expiresAt);
    }
  }

  /** Parks a key (or a raw message) in the dead-letter list; a dirty mark still runs, with failures reset. */
  private park(
    entryId: string,
    key: ReconcileKey | null,
    raw: string | null,
    reason: string,
    failures: number,
    signature?: string,
  ): void {
    this.dead.delete(entryId);
    const at = this.now();
    const kept = signature === undefined || signature === '' ? {} : { signature };
    this.dead.set(entryId, raw === null ? { key, reason, failures, at } : { key, raw, ...kept, reason, failures, at });
    if (key === null) return;
    this.failures.delete(entryId);
    this.conflicts.delete(entryId);
    this.rescheduleDirty(entryId);
    if (!this.pending.has(entryId)) this.signatures.delete(entryId);
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
