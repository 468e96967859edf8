// client-go's client-side rate limiter, in process: `qps` tokens a second, at most `burst` saved up. It limits
// one process only, so it is the API budget of the memory driver (one process), and the share a process falls
// back to while the fleet-wide bucket in Redis does not answer (redis-token-bucket.ts), which starts it empty
// at a time of its choosing (after the tokens Redis already promised this process).
import type { RateLimiter } from './rest.js';

export class TokenBucket implements RateLimiter {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
    /** The bucket's state at a point in time (default: full, now); `at` may be in the future. */
    start?: { readonly tokens: number; readonly at: number },
  ) {
    this.tokens = start?.tokens ?? burst;
    this.last = start?.at ?? now();
  }

  /** Resolves when a token is available; callers are served in order. */
  take(): Promise<void> {
    const next = this.queue.then(() => this.takeOne());
    this.queue = next;
    return next;
  }

  private async takeOne(): Promise<void> {
    for (;;) {
      const t = this.now();
      this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
      this.last = t;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      const waitMs = Math.ceil(((1 - this.tokens) / this.qps) * 1000);
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}
