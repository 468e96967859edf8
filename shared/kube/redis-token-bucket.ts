// A cluster's API budget (registry `limits.qps`, `limits.burst`) held for every worker and Lambda together: a
// token bucket stored in Redis and taken from by one Lua script. The script refills the bucket by Redis `TIME`
// (one clock for the whole fleet) and reserves the next token for the caller: it answers 0 when one was saved
// up, or how many ms until the reserved one comes (the bucket goes below zero by the tokens promised). The
// caller waits that long and sends without asking again. So takers are served in the order they asked, across
// every process, as client-go's one limiter per client serves its callers: a controller's deletes asked for
// before another worker's creates go first (when callers slept and asked again, whoever asked just after a
// refill won, and one ReplicaSet's creates overtook another's deletes past the surge bound). Callers of one
// process ask one script call at a time, in order.
//
// Redis data loss: a missing bucket is a full one (the key expires once it would be full anyway), so a
// FLUSHALL, a restart without persistence or an eviction costs at most one extra burst. A key of another type
// or with unreadable fields is replaced the same way, so no bad value can wedge a cluster's requests.
//
// Redis outage: requests do not stop. When a call fails or takes longer than `timeoutMs`, the process falls
// back to an in-process TokenBucket holding its share of the budget: qps/N and burst/N (at least 1), N being
// the number of processes that took from this bucket in the last `takersWindowMs`, as the script counted them
// at this process's last take. A process that does not know N (it has not reached Redis since it started, or
// its count is older than the window: a thawed Lambda container) assumes `fallbackTakers` (default 10) or its
// old count if larger: the processes that start during an outage are the ones that never reached Redis, and
// each taking the whole budget multiplied it by their number. The share starts empty, and only once the
// tokens Redis already reserved for this process have come: those are the fleet's budget too, and a full
// share on top of them granted about twice the budget in the outage's first second. So the fleet keeps
// reconciling at about the budget, not N times it. Redis is asked again every `retryMs`, beside the waiting
// takes; its first answer ends the fallback. Failing the requests instead would turn a Redis outage into a
// controller outage for the SQS/Lambda stack, whose queue does not need Redis, and leave every key in long
// backoff after Redis is back.
import type { Cluster, Redis } from 'ioredis';
import { loadLuaScripts } from '../lua/lua-loader.js';
import { ScriptRunner } from '../lua/script-runner.js';
import type { RateLimiter } from './rest.js';
import { TokenBucket } from './token-bucket.js';

/** lua/take-token.lua: KEYS bucket, takers; ARGV qps, burst, taker id, takers window (ms). */
const BUCKET_SCRIPTS = loadLuaScripts('shared/kube/lua', ['takeToken']);

/** Why and how a process falls back to its own share. */
export type ApiBudgetFallback = {
  readonly error: unknown;
  /** The processes the share is counted for: as Redis last said, else fallbackTakers (see `known`). */
  readonly takers: number;
  /** Whether `takers` is Redis's count from within the takers window (false: assumed). */
  readonly known: boolean;
  readonly qps: number;
  readonly burst: number;
};

export type RedisTokenBucketOptions = {
  readonly redis: Redis | Cluster;
  /** The bucket's HASH and its takers ZSET: redisKeys(prefix).apiBucket(cluster), .apiBucketTakers(cluster). */
  readonly keys: { readonly bucket: string; readonly takers: string };
  readonly qps: number;
  readonly burst: number;
  /** This process among the bucket's takers (unique per process). */
  readonly takerId: string;
  /** A script call that has not answered by then counts as Redis unavailable. Default 500. */
  readonly timeoutMs?: number;
  /** While falling back, Redis is asked again at most this often. Default 1 000. */
  readonly retryMs?: number;
  /** A process counts among the takers this long after its last take. Default 60 000. */
  readonly takersWindowMs?: number;
  /**
   * The takers assumed while Redis is out by a process that does not know their number (it never reached Redis,
   * or its count is older than takersWindowMs): its share is at most 1/fallbackTakers of the budget. Default 10.
   */
  readonly fallbackTakers?: number;
  readonly onFallback?: (e: ApiBudgetFallback) => void;
  readonly onRestored?: (e: { readonly fallbackMs: number }) => void;
};

type Fallback = { readonly bucket: TokenBucket; readonly since: number; retryAt: number; probing: boolean };

export class RedisTokenBucket implements RateLimiter {
  private queue: Promise<void> = Promise.resolve();
  /** Processes sharing the bucket, as Redis last said, and when (Date.now()). */
  private takers: { readonly count: number; readonly at: number } | undefined;
  /** When (Date.now()) the last token Redis reserved for this process comes. */
  private reservedUntil = 0;
  private fallback: Fallback | undefined;
  private readonly scripts: ScriptRunner<'takeToken'>;

  constructor(private readonly o: RedisTokenBucketOptions) {
    if (!(o.qps > 0) || !(o.burst >= 1)) throw new RangeError(`qps must be > 0 and burst ≥ 1 (${o.qps}, ${o.burst})`);
    if (o.fallbackTakers !== undefined && !(o.fallbackTakers >= 1))
      throw new RangeError(`fallbackTakers must be ≥ 1 (${o.fallbackTakers})`);
    this.scripts = new ScriptRunner(o.redis, [o.keys.bucket, o.keys.takers], [], BUCKET_SCRIPTS);
  }

  /**
   * Resolves when the token the fleet-wide bucket reserved for this call comes (or, while Redis is out, when
   * this process's share grants one). The next caller asks as soon as this one has its reservation.
   */
  async take(): Promise<void> {
    const reserved = this.queue.then(() => this.reserve());
    this.queue = reserved.then(
      () => undefined,
      () => undefined,
    );
    const wait = await reserved;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** Whether takes currently go to this process's share (Redis did not answer). */
  get fallingBack(): boolean {
    return this.fallback !== undefined;
  }

  /** The ms until this call's token: Redis's reservation, or 0 once the fallback share granted one. */
  private async reserve(): Promise<number> {
    if (!this.fallback) {
      try {
        return await this.ask();
      } catch (error) {
        this.fallBack(error);
      }
    }
    this.probe();
    await this.fallback?.bucket.take();
    return 0;
  }

  /** One script call: 0 when a saved-up token was taken, else the ms until the token it reserved. */
  private async ask(): Promise<number> {
    const { qps, burst, takerId } = this.o;
    const call = this.scripts.run('takeToken', qps, burst, takerId, this.o.takersWindowMs ?? 60_000);
    const [wait, takers] = (await withTimeout(call, this.o.timeoutMs ?? 500)) as [unknown, unknown];
    const now = Date.now();
    // Read back from Redis: a count that is not a whole number ≥ 1 is not believed.
    if (typeof takers === 'number' && Number.isSafeInteger(takers) && takers >= 1)
      this.takers = { count: takers, at: now };
    const ms = typeof wait === 'number' && Number.isFinite(wait) && wait > 0 ? wait : 0;
    this.reservedUntil = Math.max(this.reservedUntil, now + ms);
    return ms;
  }

  private fallBack(error: unknown): void {
    const now = Date.now();
    const known = this.takers !== undefined && now - this.takers.at <= (this.o.takersWindowMs ?? 60_000);
    const assumed = Math.max(this.o.fallbackTakers ?? 10, this.takers?.count ?? 1);
    const takers = known && this.takers ? this.takers.count : assumed;
    const qps = this.o.qps / takers;
    const burst = Math.max(1, Math.floor(this.o.burst / takers));
    const retryAt = now + (this.o.retryMs ?? 1_000);
    // Empty, from when the last token Redis reserved for this process comes.
    const start = { tokens: 0, at: Math.max(now, this.reservedUntil) };
    this.fallback = { bucket: new TokenBucket(qps, burst, Date.now, start), since: now, retryAt, probing: false };
    this.o.onFallback?.({ error, takers, known, qps, burst });
  }

  /**
   * While falling back, asks Redis again once `retryMs` has passed, beside the line (a Redis that does not
   * answer must not stall the takes for its timeout); its first answer ends the fallback. A token it was
   * granted goes unused.
   */
  private probe(): void {
    const f = this.fallback;
    if (!f || f.probing || Date.now() < f.retryAt) return;
    f.probing = true;
    this.ask().then(
      () => {
        if (this.fallback !== f) return;
        this.fallback = undefined;
        this.o.onRestored?.({ fallbackMs: Date.now() - f.since });
      },
      () => {
        f.probing = false;
        f.retryAt = Date.now() + (this.o.retryMs ?? 1_000);
      },
    );
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
