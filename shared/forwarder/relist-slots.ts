// How many lists (initial, expired, warm) one process runs at once: a list is the forwarder's costliest moment
// in memory, and every cluster of a process may relist together (a Redis flush, a restart). A list takes a slot
// once its first page came back (a cluster that does not answer holds none) and gives it back when done; the
// others wait their turn, first come first served. Process-wide: FLEETQ_MAX_CONCURRENT_RELISTS (default 2).

export const DEFAULT_MAX_CONCURRENT_RELISTS = 2;

export class RelistSlots {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`relist slots must be a positive integer, not ${max}`);
  }

  /** Lists waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  get active(): number {
    return this.running;
  }

  /** Resolves with the slot's release once one is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new Error('stopped'));
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.running++;
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const i = this.queue.indexOf(grant);
        if (i >= 0) this.queue.splice(i, 1);
        reject(new Error('stopped'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.queue.shift()?.();
    };
  }
}

/** FLEETQ_MAX_CONCURRENT_RELISTS: a positive integer, else the default (a bad value is refused loudly). */
export function relistSlotsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FLEETQ_MAX_CONCURRENT_RELISTS;
  if (raw === undefined || raw === '') return DEFAULT_MAX_CONCURRENT_RELISTS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`FLEETQ_MAX_CONCURRENT_RELISTS must be a positive integer (got ${JSON.stringify(raw)})`);
  }
  return n;
}

let shared: RelistSlots | undefined;

/** The process's slots (created on first use from the environment). */
export function processRelistSlots(): RelistSlots {
  shared ??= new RelistSlots(relistSlotsFromEnv());
  return shared;
}
