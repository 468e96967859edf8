// Exponential backoff with full jitter for reconnects, and a sleep that a stop signal cuts short.
import { setTimeout as delay } from 'node:timers/promises';

export type BackoffOptions = { readonly initialMs?: number; readonly maxMs?: number };

export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;

  constructor(
    options: BackoffOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 500;
    this.maxMs = options.maxMs ?? 30_000;
  }

  /** The next delay: a random point in [cap/2, cap], cap doubling from initialMs to maxMs. */
  next(): number {
    const cap = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.round(cap / 2 + (this.random() * cap) / 2);
  }

  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}

/** Resolves after ms, or as soon as `signal` aborts (never rejects). */
export async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  await delay(ms, undefined, { signal }).catch(() => undefined);
}
