// fleetq's per-phase reconcile times in a bench step (shared/runtime/reconcile-phases.ts, the histogram
// fleetq_reconcile_phase_seconds): a snapshot before and after, and one line of the difference, per kind.
import { PHASES } from '../../../shared/runtime/reconcile-phases.js';
import type { AllInOne } from '../../../functions/all-in-one.js';

/** kind → phase → { sum (s), count }. */
export type PhaseTotals = ReadonlyMap<string, ReadonlyMap<string, { sum: number; count: number }>>;

/** The bench's fleetq serves the fleetq side's cluster only, so its histogram (per kind and phase) is that side's. */
export async function phaseTotals(side: {
  readonly fleetq?: { readonly app: AllInOne };
}): Promise<PhaseTotals | undefined> {
  const m = side.fleetq?.app.deps.metrics.registry.getSingleMetric('fleetq_reconcile_phase_seconds');
  if (!m) return undefined;
  const { values } = await m.get();
  const out = new Map<string, Map<string, { sum: number; count: number }>>();
  for (const v of values) {
    const name = (v as { metricName?: string }).metricName ?? '';
    const field = name.endsWith('_sum') ? 'sum' : name.endsWith('_count') ? 'count' : undefined;
    if (field === undefined) continue;
    const kind = String(v.labels.kind);
    const byPhase = out.get(kind) ?? new Map<string, { sum: number; count: number }>();
    const t = byPhase.get(String(v.labels.phase)) ?? { sum: 0, count: 0 };
    t[field] += v.value;
    byPhase.set(String(v.labels.phase), t);
    out.set(kind, byPhase);
  }
  return out;
}

/**
 * Per kind: reconciles, then each phase's mean over the runs that had it (ms) and how many had it; a phase's
 * share of a run is its sum over the runs' total.
 */
export function phaseLines(before: PhaseTotals | undefined, after: PhaseTotals | undefined): string[] {
  if (!before || !after) return [];
  const lines: string[] = [];
  for (const [kind, byPhase] of after) {
    const delta = (phase: string): { sum: number; count: number } => {
      const a = byPhase.get(phase);
      const b = before.get(kind)?.get(phase);
      return { sum: (a?.sum ?? 0) - (b?.sum ?? 0), count: (a?.count ?? 0) - (b?.count ?? 0) };
    };
    const total = delta('total');
    if (total.count <= 0) continue;
    const parts = PHASES.filter((p) => p !== 'total').flatMap((p) => {
      const d = delta(p);
      if (d.count <= 0) return [];
      return [`${p} ${((d.sum / d.count) * 1000).toFixed(1)} ms ×${d.count}`];
    });
    lines.push(
      `fleetq ${kind}: ${total.count} reconciles, total mean ${((total.sum / total.count) * 1000).toFixed(1)} ms; ` +
        parts.join(', '),
    );
  }
  return lines;
}
