// EventSourceObjectSpamFilter: a token bucket per source + object (any reason): a burst of 25, then one event
// every 5 minutes (defaultSpamBurst = 25, defaultSpamQPS = 1/300). The bucket starts full and refills
// continuously (golang.org/x/time/rate, which flowcontrol's token bucket wraps); an event that finds no token
// is skipped. Time is an input.
import { spamKey } from './keys.js';
import { Lru } from './lru.js';
import type { CoreEvent } from './types.js';

export const SPAM_BURST = 25;
export const SPAM_QPS = 1 / 300;

type Bucket = { tokens: number; at: bigint };

export class SpamFilter {
  private readonly buckets: Lru<Bucket>;

  constructor(
    cacheSize: number,
    private readonly burst = SPAM_BURST,
    private readonly qps = SPAM_QPS,
  ) {
    this.buckets = new Lru(cacheSize);
  }

  /** True when the event is to be skipped (its source + object has no token left at `now`). */
  filter(e: CoreEvent, now: bigint): boolean {
    const key = spamKey(e);
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    const elapsedSeconds = now > bucket.at ? Number(now - bucket.at) / 1e9 : 0;
    const tokens = Math.min(this.burst, bucket.tokens + elapsedSeconds * this.qps);
    const allowed = tokens >= 1;
    this.buckets.add(key, { tokens: allowed ? tokens - 1 : tokens, at: now > bucket.at ? now : bucket.at });
    return !allowed;
  }
}
