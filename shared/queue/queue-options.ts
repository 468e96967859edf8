// Option resolution and the small rules every driver shares, so the three drivers cannot drift apart:
// defaults, the per-cluster cap, key validation on add, and how an error becomes a dead-letter reason.
import { keyString, MalformedKeyError, parseKey, type ReconcileKey } from '../kube/key.js';
import { DEFAULT_QUEUE_OPTIONS, type QueueOptions } from './work-queue.js';

export type ResolvedQueueOptions = {
  readonly leaseMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** HMAC secret; undefined when messages are not signed. */
  readonly signingSecret: string | undefined;
  /** The rotation window's previous secret (verifies only); undefined when none or when unsigned. */
  readonly signingSecretPrevious: string | undefined;
  /** Infinity when unlimited. */
  readonly clusterConcurrency: number;
  readonly clusterConcurrencyOverrides: Readonly<Record<string, number>>;
};

export function resolveQueueOptions(options: QueueOptions = {}): ResolvedQueueOptions {
  const resolved = {
    leaseMs: options.leaseMs ?? DEFAULT_QUEUE_OPTIONS.leaseMs,
    baseDelayMs: options.baseDelayMs ?? DEFAULT_QUEUE_OPTIONS.baseDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_QUEUE_OPTIONS.maxDelayMs,
    signingSecret: options.signingSecret === '' ? undefined : options.signingSecret,
    signingSecretPrevious:
      options.signingSecret === '' || options.signingSecretPrevious === '' ? undefined : options.signingSecretPrevious,
    clusterConcurrency: options.clusterConcurrency ?? Number.POSITIVE_INFINITY,
    clusterConcurrencyOverrides: options.clusterConcurrencyOverrides ?? {},
  };
  if (!(resolved.leaseMs > 0)) throw new RangeError(`leaseMs must be > 0, got ${resolved.leaseMs}`);
  if (!(resolved.baseDelayMs > 0)) throw new RangeError(`baseDelayMs must be > 0, got ${resolved.baseDelayMs}`);
  if (!(resolved.maxDelayMs >= resolved.baseDelayMs)) {
    throw new RangeError(`maxDelayMs must be >= baseDelayMs, got ${resolved.maxDelayMs}`);
  }
  if (!(resolved.clusterConcurrency >= 1)) {
    throw new RangeError(`clusterConcurrency must be >= 1, got ${resolved.clusterConcurrency}`);
  }
  return resolved;
}

/** The most keys of `cluster` that may be held at once. */
export function clusterCap(options: ResolvedQueueOptions, cluster: string): number {
  return options.clusterConcurrencyOverrides[cluster] ?? options.clusterConcurrency;
}

/**
 * keyString(key), refusing keys that would not parse back: a driver must never enqueue a message that
 * get() would have to dead-letter as malformed.
 */
export function checkedKeyString(key: ReconcileKey): string {
  const id = keyString(key);
  parseKey(id);
  return id;
}

/** The text of a raw dead letter when it is exactly a valid key (what a raw redrive may requeue); else undefined. */
export function rawKeyId(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return keyString(parseKey(raw)) === raw ? raw : undefined;
  } catch (err) {
    if (err instanceof MalformedKeyError) return undefined;
    throw err;
  }
}

/** The cluster and kind of an id, for metric labels; empty strings when it does not look like a key. */
export function clusterAndKind(id: string): { cluster: string; kind: string } {
  const [cluster = '', kind = ''] = id.split('/', 3);
  return { cluster, kind };
}

/** The last error as stored with a dead letter: short, one line, never the whole stack. */
export function errorReason(error: unknown): string {
  const text =
    error instanceof Error
      ? `${error.name}: ${error.message}`
      : typeof error === 'string'
        ? error
        : JSON.stringify(error);
  return (text ?? String(error)).slice(0, 1000);
}
