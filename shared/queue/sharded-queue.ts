// A WorkQueue over N queue shards (queue-shards.ts): producers' keys go to their cluster's shard; a consumer takes
// from every shard in a weighted fair rotation (ShardRotation), so each cluster keeps about an equal share of
// hand-outs whichever shard it hashes to, and a shard with ready keys is never starved.
//
// get() never waits on one shard while another has keys: it asks each shard without blocking (poll), in the
// rotation's order, and only when none had a key does it block, on every shard's wake list at once (the first
// mark to arrive ends the wait), for no longer than the earliest delayed-key deadline any shard reported. So a
// wait costs one wake-up, not N in turn.
//
// A lease is answered by its cluster's shard (done, retry, renew, deadLetter). Dead letters, depth and the
// backoff breakdown are the shards' together. done(…, { thenGet }) lets the lease's shard lease its next key in the
// same round trip, as without shards; that lease waits in the shard's buffer until the rotation asks the shard (so
// it never jumps the rotation), renewed there if it waits long (lease-buffer.ts): at most one idle lease per shard
// per prefetch.
import { parseKey, MalformedKeyError, type ReconcileKey } from '../kube/key.js';
import { ShardRotation, shardIndexOf } from './queue-shards.js';
import type {
  DeadLetter,
  DoneOptions,
  DoneOutcome,
  FencedAddOutcome,
  Lease,
  RedriveOptions,
  RetryOutcome,
  WorkQueue,
  WriteFence,
} from './work-queue.js';

/** One non-blocking hand-out attempt of a shard. */
export type ShardPoll = {
  readonly lease: Lease | null;
  /** ms until the shard's next delayed key or lease expiry is due; negative when none is known. */
  readonly waitHintMs: number;
  /** Clusters with ready keys in the shard (its rotation's members): the shard's weight. */
  readonly readyClusters: number;
};

/** A queue that can be one shard: polled without blocking, and waited on without taking a key. */
export type ShardMember = WorkQueue & {
  poll(): Promise<ShardPoll>;
  /**
   * Resolves when a wake mark arrives (a key was added or became ready) or after `ms`. A mark that arrives once
   * `stillWanted()` is false is left for the next waiter.
   */
  waitForWork(ms: number, stillWanted?: () => boolean): Promise<void>;
};

type Breakdown = Array<{ cluster: string; kind: string; depth: number }>;

/** Longest single wait before every shard is asked again (as the Redis driver's own get). */
const MAX_WAIT_MS = 200;

export class ShardedQueue implements WorkQueue {
  readonly driver: WorkQueue['driver'];
  private readonly rotation: ShardRotation;
  private closed = false;

  constructor(
    readonly shards: readonly ShardMember[],
    private readonly o: { readonly onClose?: () => Promise<void> } = {},
  ) {
    if (shards.length === 0) throw new RangeError('a sharded queue needs at least one shard');
    this.driver = shards[0]!.driver;
    this.rotation = new ShardRotation(shards.length);
    if (shards.every((s) => s.addFenced !== undefined))
      this.addFenced = (key, fence, delayMs) => this.shardFor(key).addFenced!(key, fence, delayMs);
  }

  /** The shard index of a cluster's keys. */
  shardOf(cluster: string): number {
    return shardIndexOf(cluster, this.shards.length);
  }

  private shardFor(key: ReconcileKey): ShardMember {
    return this.shards[this.shardOf(key.cluster)]!;
  }

  add(key: ReconcileKey): Promise<void> {
    return this.shardFor(key).add(key);
  }

  addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    return this.shardFor(key).addAfter(key, delayMs);
  }

  /** Present when every shard has it: the fenced add of the key's shard (the fence's keys must be in its slot). */
  readonly addFenced?: (key: ReconcileKey, fence: WriteFence, delayMs?: number) => Promise<FencedAddOutcome>;

  async get(waitMs = 0): Promise<Lease | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (this.closed) return null;
      let hint = -1;
      for (const index of this.rotation.order()) {
        const polled = await this.shards[index]!.poll();
        if (polled.lease) {
          this.rotation.served(index, polled.readyClusters);
          return polled.lease;
        }
        this.rotation.empty(index);
        if (polled.waitHintMs >= 0) hint = hint < 0 ? polled.waitHintMs : Math.min(hint, polled.waitHintMs);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return null;
      const ms = Math.min(remaining, hint < 0 ? MAX_WAIT_MS : hint, MAX_WAIT_MS);
      if (ms >= 1) await this.waitOnAll(ms);
    }
  }

  /**
   * Waits on every shard at once until the first wakes or `ms` passes. The other shards' waits run out in the
   * background (at most 200 ms); a mark one of them takes after that is put back, and an error of theirs after the
   * first woke is nobody's.
   */
  private async waitOnAll(ms: number): Promise<void> {
    let waiting = true;
    const stillWanted = (): boolean => waiting;
    try {
      await Promise.race(
        this.shards.map((s) =>
          s.waitForWork(ms, stillWanted).catch((err: unknown) => {
            if (waiting) throw err;
          }),
        ),
      );
    } finally {
      waiting = false;
    }
  }

  done(lease: Lease, requeueAfterMs?: number, options?: DoneOptions): Promise<DoneOutcome> {
    return this.shardFor(lease.key).done(lease, requeueAfterMs, options);
  }

  retry(lease: Lease, error: unknown, options?: { readonly conflict?: boolean }): Promise<RetryOutcome> {
    return this.shardFor(lease.key).retry(lease, error, options);
  }

  deadLetter(lease: Lease, reason: string): Promise<void> {
    return this.shardFor(lease.key).deadLetter(lease, reason);
  }

  renew(lease: Lease): Promise<boolean> {
    return this.shardFor(lease.key).renew(lease);
  }

  /** Raw text that is a key goes to its cluster's shard (so a raw redrive requeues it there), else to shard 0. */
  parkInvalid(raw: string, reason: string): Promise<void> {
    let shard = this.shards[0]!;
    try {
      shard = this.shardFor(parseKey(raw));
    } catch (err) {
      if (!(err instanceof MalformedKeyError)) throw err;
    }
    return shard.parkInvalid(raw, reason);
  }

  async backoffBreakdown(): Promise<Array<{ cluster: string; keys: number }>> {
    const counts = new Map<string, number>();
    for (const shard of this.shards)
      for (const b of await shard.backoffBreakdown()) counts.set(b.cluster, (counts.get(b.cluster) ?? 0) + b.keys);
    return [...counts].map(([cluster, keys]) => ({ cluster, keys }));
  }

  /** Every shard's dead letters, oldest first. */
  async deadLetters(): Promise<DeadLetter[]> {
    const all = (await Promise.all(this.shards.map((s) => s.deadLetters()))).flat();
    return all.sort((a, b) => a.at - b.at);
  }

  async redrive(match?: (d: DeadLetter) => boolean, options?: RedriveOptions): Promise<number> {
    let moved = 0;
    for (const shard of this.shards) moved += await shard.redrive(match, options);
    return moved;
  }

  async depth(): Promise<number> {
    let total = 0;
    for (const shard of this.shards) total += await shard.depth();
    return total;
  }

  /** Waiting keys by cluster and kind over every shard (workqueue_depth); a shard without a breakdown counts as one row. */
  async depthBreakdown(): Promise<Breakdown> {
    const rows: Breakdown = [];
    for (const shard of this.shards) {
      const withBreakdown = shard as ShardMember & { depthBreakdown?: () => Promise<Breakdown> };
      if (typeof withBreakdown.depthBreakdown === 'function') rows.push(...(await withBreakdown.depthBreakdown()));
      else rows.push({ cluster: '', kind: '', depth: await shard.depth() });
    }
    return rows;
  }

  onEpochMissing(listener: () => void): () => void {
    const removers = this.shards.flatMap((s) => (s.onEpochMissing ? [s.onEpochMissing(listener)] : []));
    return () => removers.forEach((remove) => remove());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const shard of this.shards) await shard.close();
    await this.o.onClose?.();
  }
}
