// The WorkQueue contract: client-go workqueue semantics made fleet-wide. Every driver
// (memory/, redis/, sqs/) implements exactly this and passes test/integration/work-queue.contract.test.ts.
//
// - add(key): waiting → nothing; being processed → marked dirty, runs once more after done(); else enqueued.
// - a key is held by at most one lease at a time, across all processes; a lease not renewed within
//   leaseMs is lost and the key is handed out again (a new lease with a new fencing token).
// - addAfter(key, ms): the earlier of two pending ready times wins.
// - retry(lease, err): per-key exponential backoff (baseDelayMs doubling to maxDelayMs, client-go's
//   5 ms → 1000 s), without end: transient failures never dead-letter a key. done() resets the count.
//   retry(lease, err, { conflict: true }) backs off on a separate per-key conflict count (same base and cap)
//   and leaves the failure count alone: a routine 409 after an outage costs baseDelayMs, not the outage's
//   backoff, and a persistent conflict still backs off instead of looping. Not counted as a failure in
//   metrics. done() resets both counts.
// - done(lease, requeueAfterMs): release and schedule the next run in one atomic step, so a crash between
//   the two cannot lose the requeue.
// - the dead-letter list holds terminal failures only: deadLetter(lease, reason) for a key that cannot
//   succeed (400/422, unknown cluster or kind), parkInvalid(raw, reason) for a message or an object that
//   never became a valid key (malformed, bad signature, a bad owner name seen by the forwarder).
// - with signingSecret set, every message carries an HMAC-SHA256 over the key; a message whose HMAC is
//   missing or wrong is dead-lettered with the reason "bad signature" and never handed out.
// - per-cluster fairness: get() rotates over clusters that have ready keys, and never hands out more
//   than clusterConcurrency keys of one cluster at a time.
// Choices every driver makes the same way (see memory/memory-queue.ts):
// - a key has one pending ready time; a later addAfter superseded by an earlier one is dropped
//   (SQS cannot drop it: it may run once more).
// - retry(): the backoff wins over an add made during the failed run; the retry run covers that add (on SQS a
//   conflict retry hops through the delay queue, so an add made during that run is not held back).
// - a lost lease counts as a failure for the backoff; the key is ready again at once.
// - dead-lettering resets the failure count; an add made during the last run still runs once more.
import type { ReconcileKey } from '../kube/key.js';

export type Lease = {
  readonly key: ReconcileKey;
  /** keyString(key) */
  readonly id: string;
  /** Fencing token: unique per hand-out. A holder whose token is no longer current must not write. */
  readonly token: string;
  /** Epoch ms when the key became ready (for queue-duration metrics). */
  readonly readyAt: number;
  /** Consecutive failures before this hand-out. */
  readonly failures: number;
  /** Consecutive conflict retries before this hand-out (absent = 0); their own backoff, not failures. */
  readonly conflicts?: number;
  /**
   * performance.now() in this process, taken just before the request that granted (or, for a prefetched
   * lease, last renewed) it: the runtime's local fence deadline counts leaseMs from here. Optional: without
   * it the runtime counts from when it asked for the key.
   */
  readonly grantedAt?: number;
};

export type DeadLetter = {
  /** The key, or null when the message itself could not be parsed. */
  readonly key: ReconcileKey | null;
  /** The raw message body when key is null. */
  readonly raw?: string;
  /** The signature a raw message carried when it was dead-lettered (untrusted: check it before use). */
  readonly signature?: string;
  readonly reason: string;
  readonly failures: number;
  readonly at: number;
};

export type RedriveOptions = {
  /** Also requeue matching raw letters whose text parses as a key (re-signed with the current secret). */
  readonly raw?: boolean;
};

export type DoneOptions = {
  /**
   * The caller asks for its next key right after (a worker slot that keeps running): a driver that can lease
   * it in the same round trip does (Redis: one script releases and hands out), and keeps it for this process's
   * next get(). The others ignore it. A lease taken this way and never asked for is given back by close().
   */
  readonly thenGet?: boolean;
};

/** What done() did: released the key (and scheduled its requeue), or found the lease no longer current. */
export type DoneOutcome =
  | { readonly outcome: 'done' }
  /** The lease was no longer current (expired or superseded): nothing was changed, no requeue scheduled. */
  | { readonly outcome: 'lease-lost' };

export type RetryOutcome =
  | { readonly outcome: 'retried'; readonly delayMs: number }
  /** The lease was no longer current (expired or superseded): nothing was changed. */
  | { readonly outcome: 'lease-lost' };

export type QueueOptions = {
  /** Lease duration; a holder must renew() within it. Default 30 000. */
  readonly leaseMs?: number;
  /** Backoff base; default 5. */
  readonly baseDelayMs?: number;
  /** Backoff cap; default 1 000 000 (1000 s). */
  readonly maxDelayMs?: number;
  /** HMAC-SHA256 secret: messages are signed on add and checked on get; unsigned/forged → dead letter. */
  readonly signingSecret?: string;
  /**
   * A rotation window's previous secret: messages it signed still verify; new ones are signed with signingSecret
   * only (docs/operations/signing-key-rotation.md). Ignored without signingSecret.
   */
  readonly signingSecretPrevious?: string;
  /** Max keys of one cluster held at once (fleet-wide); default unlimited. Per-cluster overrides by name. */
  readonly clusterConcurrency?: number;
  readonly clusterConcurrencyOverrides?: Readonly<Record<string, number>>;
  /** Told of every message that was not a key and was dead-lettered without being handed out (for logging). */
  readonly onMalformed?: (raw: string, reason: string) => void;
};

export interface WorkQueue {
  readonly driver: 'memory' | 'redis' | 'sqs';
  add(key: ReconcileKey): Promise<void>;
  addAfter(key: ReconcileKey, delayMs: number): Promise<void>;
  /** Waits up to waitMs for a ready key; null when none. */
  get(waitMs?: number): Promise<Lease | null>;
  /**
   * Success: forgets the key's backoff; if it was re-added while held, it is enqueued again. With
   * requeueAfterMs, the key is also scheduled that far ahead, in the same atomic step. 'lease-lost' when the
   * lease was no longer current (another holder may have the key): nothing was changed.
   */
  done(lease: Lease, requeueAfterMs?: number, options?: DoneOptions): Promise<DoneOutcome>;
  /** Transient failure: requeue with the key's failure backoff, without end. A conflict: its conflict backoff. */
  retry(lease: Lease, error: unknown, options?: { readonly conflict?: boolean }): Promise<RetryOutcome>;
  /** Terminal failure: park the key in the dead-letter list now. */
  deadLetter(lease: Lease, reason: string): Promise<void>;
  /** Record something that never became a valid key (raw text, e.g. an object's identity) as a dead letter. */
  parkInvalid(raw: string, reason: string): Promise<void>;
  /** Keys waiting out a backoff (failures or conflicts > 0, not held), by cluster: the keys-in-backoff gauge. */
  backoffBreakdown(): Promise<Array<{ cluster: string; keys: number }>>;
  /** Extends the lease; false when it was lost (the holder must stop writing). */
  renew(lease: Lease): Promise<boolean>;
  /** Keys parked with their last error, oldest first. */
  deadLetters(): Promise<DeadLetter[]>;
  /**
   * Moves dead-lettered keys (all, or those matching) back to ready with their backoff reset. With
   * `{ raw: true }`, matching raw letters whose text is a valid key are requeued too, signed afresh with the
   * current secret (the caller decides which: see shared/replay/dead-letters.ts).
   */
  redrive(match?: (d: DeadLetter) => boolean, options?: RedriveOptions): Promise<number>;
  /** Keys waiting (ready or delayed), not held. */
  depth(): Promise<number>;
  /**
   * A queue whose store can lose its data (Redis) calls `listener` when an enqueue finds its data-loss marker
   * gone (redis-loss.ts); returns what removes the listener. Absent on the other drivers.
   */
  onEpochMissing?(listener: () => void): () => void;
  /**
   * add() behind a lease the caller holds (the forwarder pool's lease on the key's cluster), or addAfter() with a
   * `delayMs` over 0: the key is enqueued only while `fence.leaseKey` holds `fence.value`, in one atomic step.
   * Only the Redis driver has it (the lease lives in the queue's Redis).
   */
  addFenced?(key: ReconcileKey, fence: WriteFence, delayMs?: number): Promise<FencedAddOutcome>;
  close(): Promise<void>;
}

/**
 * The lease a fenced write checks: `leaseKey` must hold `value` (`<token>|<holder>`); an accepted write appends
 * `token` to the `writersKey` list when the writer changed (so the tokens that wrote never go down). Both keys are
 * the lease owner's (the forwarder's `fwd:` keys), in the queue's Redis slot.
 */
export type WriteFence = {
  readonly leaseKey: string;
  readonly value: string;
  readonly writersKey: string;
  readonly token: string;
};

/** added; added, and the store's data-loss marker was gone (see onEpochMissing); or refused by the fence. */
export type FencedAddOutcome = 'added' | 'added-epoch-missing' | 'refused';

export const DEFAULT_QUEUE_OPTIONS = {
  leaseMs: 30_000,
  baseDelayMs: 5,
  maxDelayMs: 1_000_000,
} as const;

/** client-go's ItemExponentialFailureRateLimiter: base * 2^failures, capped. */
export function backoffDelay(failures: number, baseDelayMs: number, maxDelayMs: number): number {
  const exp = Math.min(failures, 40);
  return Math.min(baseDelayMs * 2 ** exp, maxDelayMs);
}
