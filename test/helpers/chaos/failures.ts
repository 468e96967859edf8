// What a chaos test reads from its workers' logs beyond the run log: every failed run with its error and backoff,
// and how many runs of some keys were in progress at once (worker slots they held).
import type { Pipeline } from './harness.js';
import { jsonLines } from '../processes.js';

export type FailureLine = {
  readonly at: number;
  readonly proc: string;
  readonly key: string;
  readonly message: string;
  readonly code?: string;
  readonly error?: string;
  readonly failures?: number;
  readonly delayMs?: number;
};

const FAILURES = new Set([
  'Reconcile failed; retrying',
  'Conflict; re-reading after backoff',
  'Conflict; re-reading',
  'Guard refused the plan',
  'Key dead-lettered',
  'Key dead-lettered after repeated failures',
]);

/** Every failed run the workers logged (retries, conflicts, guard refusals, dead letters), in time order. */
export function failureLines(p: Pipeline, o: { cluster?: string; from?: number } = {}): FailureLine[] {
  const out: FailureLine[] = [];
  for (const [proc, wp] of p.workers) {
    for (const l of jsonLines(wp)) {
      if (!FAILURES.has(String(l.message))) continue;
      if (o.cluster !== undefined && l.cluster !== o.cluster) continue;
      const at = Date.parse(String(l.time));
      if (o.from !== undefined && at < o.from) continue;
      const error = l.error as { message?: unknown } | undefined;
      out.push({
        at,
        proc,
        key: [l.cluster, l.kind, l.namespace, l.name].join('/'),
        message: String(l.message),
        ...(typeof l.code === 'string' && { code: l.code }),
        ...(typeof error?.message === 'string' && { error: error.message.slice(0, 300) }),
        ...(typeof l.failures === 'number' && { failures: l.failures }),
        ...(typeof l.delayMs === 'number' && { delayMs: l.delayMs }),
      });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** How many runs of keys matching `match` were in progress, sampled every `stepMs` over [from, to]. */
export function concurrentRuns(
  p: Pipeline,
  match: (id: string) => boolean,
  from: number,
  to: number,
  stepMs = 500,
): { max: number; mean: number } {
  const runs = p.runs().filter((r) => match(r.id));
  let max = 0;
  let sum = 0;
  let n = 0;
  for (let t = from; t <= to; t += stepMs, n++) {
    const c = runs.filter((r) => r.start <= t && (r.end ?? Date.now()) > t).length;
    max = Math.max(max, c);
    sum += c;
  }
  return { max, mean: n === 0 ? 0 : Math.round((sum / n) * 10) / 10 };
}
