// Where one reconcile's time goes, phase by phase: so an operator (and a bench) can tell a slow API from a slow
// queue, cache or fence. The run's phases are kept in an AsyncLocalStorage, so code deep in a run (the writer's
// fence check, the API budget, the cache's wait for the key's own writes, each request) adds to its own
// reconcile's clock without passing it along, and concurrent reconciles of one process never mix.
//
// Phases (ms; a phase that did not happen is absent):
//   queued     the key's ready time → its lease was granted (the queue's own wait, workqueue_queue_duration)
//   ownWrites  waiting for the cache to pass the key's previous writes (read-your-writes), inside observe
//   observe    the controller's observe, ownWrites included
//   plan       the pure planner
//   preflight  the controller's guard (a live count)
//   fence      the writer's fence round trips (a lease renewal before each batch of writes)
//   budget     waiting for the cluster's API budget (Redis token bucket or in-process), summed over requests
//   request    the API requests' own time (send → answer), summed over requests (writes in a batch overlap)
//   apply      the writer's wall time (fence + budget + request, overlapped)
//   settle     recording this run's writes for the key's next run
//   release    the queue's done/retry call
//   total      grant → released
import { AsyncLocalStorage } from 'node:async_hooks';

export const PHASES = [
  'queued',
  'ownWrites',
  'observe',
  'plan',
  'preflight',
  'fence',
  'budget',
  'request',
  'apply',
  'settle',
  'release',
  'total',
] as const;
export type Phase = (typeof PHASES)[number];

export class PhaseClock {
  private readonly ms: Partial<Record<Phase, number>> = {};
  /** Requests made in the run (the count behind `request` and `budget`). */
  requests = 0;

  add(phase: Phase, ms: number): void {
    this.ms[phase] = (this.ms[phase] ?? 0) + Math.max(0, ms);
  }

  /** Runs fn and adds its wall time to `phase` (also when it throws). */
  async time<T>(phase: Phase, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.add(phase, performance.now() - t0);
    }
  }

  /** The phases that happened, rounded to 0.1 ms, in PHASES order. */
  fields(): Partial<Record<Phase, number>> {
    const out: Partial<Record<Phase, number>> = {};
    for (const p of PHASES) {
      const v = this.ms[p];
      if (v !== undefined) out[p] = Math.round(v * 10) / 10;
    }
    return out;
  }
}

const storage = new AsyncLocalStorage<PhaseClock>();

/** Runs fn with `clock` receiving the phases of the code inside it. */
export function withPhaseClock<T>(clock: PhaseClock, fn: () => Promise<T>): Promise<T> {
  return storage.run(clock, fn);
}

/** The clock of the reconcile this code runs in, if any. */
export function currentPhaseClock(): PhaseClock | undefined {
  return storage.getStore();
}

/** Times fn into the current reconcile's `phase`; outside a reconcile, just runs it. */
export function timedPhase<T>(phase: Phase, fn: () => Promise<T>): Promise<T> {
  const clock = storage.getStore();
  return clock ? clock.time(phase, fn) : fn();
}
