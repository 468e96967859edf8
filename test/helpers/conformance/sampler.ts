// Polls one side for the whole scenario: every sample feeds the invariant tracker, and waits read the
// samples as they come. The only timers here are the poll interval and the deadlines of the waits.
import { TimeoutError, waitFor } from '../../../infra/sandbox/process.js';
import type { Side } from './client.js';
import { InvariantTracker } from './invariants.js';
import type { Check, Invariant, Snapshot } from './types.js';

export const POLL_MS = Number(process.env.CONFORMANCE_POLL_MS ?? 250);

export class Sampler {
  readonly tracker: InvariantTracker;
  private latest: Snapshot | null = null;
  private waiting: Array<(s: Snapshot) => void> = [];
  private stopped = false;
  private loopDone: Promise<void> = Promise.resolve();
  samples = 0;
  lastError: unknown;

  constructor(
    readonly side: Side,
    invariants: readonly Invariant[],
  ) {
    this.tracker = new InvariantTracker(invariants);
  }

  start(): void {
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const s = await this.side.snapshot();
        this.latest = s;
        this.samples++;
        this.tracker.observe(s);
        const w = this.waiting;
        this.waiting = [];
        for (const resolve of w) resolve(s);
      } catch (err) {
        this.lastError = err;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** The first sample taken after this call (rejects when none comes within maxWaitMs). */
  next(maxWaitMs = 15_000): Promise<Snapshot> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const why = this.lastError instanceof Error ? this.lastError.message : 'sampler stopped';
        reject(new Error(`${this.side.label}: no sample for ${maxWaitMs} ms (${why})`));
      }, maxWaitMs);
      this.waiting.push((s) => {
        clearTimeout(timer);
        resolve(s);
      });
    });
  }

  get last(): Snapshot | null {
    return this.latest;
  }

  /** Waits until `check` holds on a sample; on timeout the error says what was still missing. */
  async waitUntil(what: string, check: (s: Snapshot) => Check, timeoutMs: number): Promise<Snapshot> {
    let missing: Check = false;
    let hit: Snapshot | undefined;
    try {
      await waitFor(
        async () => {
          const s = await this.next();
          missing = check(s);
          if (missing === true) hit = s;
          return missing === true;
        },
        timeoutMs,
        0,
        what,
      );
    } catch (err) {
      if (err instanceof TimeoutError)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${String(missing) || 'not yet'}`);
      throw err;
    }
    if (!hit) throw new Error(`no sample for ${what}`);
    return hit;
  }
}
