// Fleet-wide reconcile counts per cluster and outcome, kept in the queue's Redis for `fleetq status`.
//
// Why here and not from Prometheus: fleetq_reconcile_total is a counter per process, and no process knows where
// its peers serve /metrics (workers, Lambdas and `fleetq run` come and go; a Lambda serves none). So every
// process that reconciles adds its counts into shared time buckets: a HASH per 10-second bucket,
// `<queue prefix>rates:<bucket start ms>`, field `<cluster>|<outcome>` → count, expiring after 15 minutes. The
// key is in the queue's hash slot (Redis Cluster safe). Nothing is written on the reconcile path: counts are
// summed in memory and flushed at most every 5 s (one pipelined HINCRBY per cluster and outcome seen), so a
// process costs O(clusters) commands per 5 s. A reader sums the buckets of a window and divides by its span.
// What is lost: the counts of a process killed before its next flush (up to 5 s), and a frozen Lambda
// container's counts until its next invocation flushes them.
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { connectRedis, unrefSockets } from '../queue/redis/redis-connection.js';
import { redisKeyPrefix } from '../queue/redis/redis-keys.js';
import type { FleetqConfig } from './config.js';
import type { Outcome } from './reconcile-one.js';

export const RATE_BUCKET_MS = 10_000;
export const RATE_FLUSH_MS = 5_000;
const BUCKET_TTL_S = 15 * 60;

/** Outcomes counted as errors: a failure retried with backoff, or a key parked as a dead letter. */
export const ERROR_OUTCOMES: ReadonlySet<Outcome> = new Set<Outcome>(['retried', 'dead-lettered']);

export function rateBucketKey(queuePrefix: string, bucketStartMs: number): string {
  return `${queuePrefix}rates:${bucketStartMs}`;
}

export type RateCounterOptions = {
  readonly redis: RedisClient;
  /** The queue's key prefix (redisKeyPrefix(queue, prefix)), so the buckets share its hash slot. */
  readonly queuePrefix: string;
  readonly now?: () => number;
  readonly flushMs?: number;
  /** Told of a failed flush (the counts are kept and tried again). */
  readonly onError?: (err: unknown) => void;
  /** close() disconnects the client too. */
  readonly ownsClient?: boolean;
};

/** Sums reconcile outcomes in memory and adds them into the shared Redis buckets every flushMs. */
export class ReconcileRateCounter {
  private pending = new Map<string, number>();
  private bucket = -1;
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly options: RateCounterOptions) {
    this.now = options.now ?? Date.now;
    this.timer = setInterval(() => void this.flush(), options.flushMs ?? RATE_FLUSH_MS);
    this.timer.unref();
  }

  record(e: { readonly cluster: string; readonly outcome: Outcome }): void {
    const bucket = bucketStart(this.now());
    // Counts land in the bucket of the flush; a bucket change flushes first so a window sees them in order.
    if (this.bucket !== bucket && this.pending.size > 0) void this.flush();
    this.bucket = bucket;
    const field = `${e.cluster}|${e.outcome}`;
    this.pending.set(field, (this.pending.get(field) ?? 0) + 1);
  }

  /** Adds what was counted since the last flush; failed adds are kept for the next one. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const counts = this.pending;
      this.pending = new Map();
      const key = rateBucketKey(this.options.queuePrefix, bucketStart(this.now()));
      const pipeline = this.options.redis.pipeline();
      for (const [field, n] of counts) pipeline.hincrby(key, field, n);
      pipeline.expire(key, BUCKET_TTL_S);
      try {
        const replies = (await pipeline.exec()) ?? [];
        if (replies.some(([err]) => err)) throw replies.find(([err]) => err)?.[0];
      } catch (err) {
        for (const [field, n] of counts) this.pending.set(field, (this.pending.get(field) ?? 0) + n);
        this.options.onError?.(err);
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    if (this.options.ownsClient) this.options.redis.disconnect();
  }
}

function bucketStart(ms: number): number {
  return Math.floor(ms / RATE_BUCKET_MS) * RATE_BUCKET_MS;
}

export type ClusterRates = {
  /** Reconciles per second over the window, every outcome. */
  readonly reconcilesPerSec: number;
  /** Errors per second (ERROR_OUTCOMES). */
  readonly errorsPerSec: number;
  readonly byOutcome: Readonly<Record<string, number>>;
};

/** Per-cluster rates over the last windowMs (whole buckets: the span runs from the first bucket's start). */
export async function readReconcileRates(
  redis: RedisClient,
  queuePrefix: string,
  now: number,
  windowMs = 60_000,
): Promise<{ readonly spanMs: number; readonly clusters: Map<string, ClusterRates> }> {
  const first = bucketStart(now - windowMs);
  const starts: number[] = [];
  for (let b = first; b <= now; b += RATE_BUCKET_MS) starts.push(b);
  const pipeline = redis.pipeline();
  for (const b of starts) pipeline.hgetall(rateBucketKey(queuePrefix, b));
  const replies = (await pipeline.exec()) ?? [];
  const totals = new Map<string, Record<string, number>>();
  for (const [err, hash] of replies) {
    if (err) throw err;
    for (const [field, value] of Object.entries((hash ?? {}) as Record<string, string>)) {
      const cut = field.lastIndexOf('|');
      if (cut < 0) continue;
      const cluster = field.slice(0, cut);
      const outcome = field.slice(cut + 1);
      const t = totals.get(cluster) ?? {};
      t[outcome] = (t[outcome] ?? 0) + Number(value);
      totals.set(cluster, t);
    }
  }
  const spanMs = Math.max(1, now - first);
  const clusters = new Map<string, ClusterRates>();
  for (const [cluster, byOutcome] of totals) {
    let all = 0;
    let errors = 0;
    for (const [outcome, n] of Object.entries(byOutcome)) {
      all += n;
      if (ERROR_OUTCOMES.has(outcome as Outcome)) errors += n;
    }
    clusters.set(cluster, {
      reconcilesPerSec: all / (spanMs / 1000),
      errorsPerSec: errors / (spanMs / 1000),
      byOutcome,
    });
  }
  return { spanMs, clusters };
}

/**
 * The counter a reconciling process feeds (makeDeps): on the redis and sqs drivers, in the queue's Redis
 * (REDIS_URL, where the sqs driver keeps its API budget and checkpoints too); none on the memory driver, whose
 * one process has nobody to share counts with.
 */
export function reconcileRateCounter(
  config: Pick<
    FleetqConfig,
    'FLEETQ_DRIVER' | 'REDIS_URL' | 'FLEETQ_REDIS_TLS_CA' | 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX'
  >,
): ReconcileRateCounter | undefined {
  if (config.FLEETQ_DRIVER === 'memory') return undefined;
  const redis = connectRedis(config.REDIS_URL, { tlsCaFile: config.FLEETQ_REDIS_TLS_CA }, { lazyConnect: true });
  // Never what keeps a process alive; a failed flush keeps its counts for the next one.
  unrefSockets(redis);
  redis.on('error', () => undefined);
  return new ReconcileRateCounter({
    redis,
    ownsClient: true,
    queuePrefix: redisKeyPrefix(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX),
  });
}
