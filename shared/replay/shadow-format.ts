// `replay shadow`'s report for a reader: per differing key, a unified diff of the two builds' decisions by field
// path (`- actions[0].object.spec.replicas: 3` / `+ …: 4`), at most maxDiffs of them; a table of the differing
// decisions by kind and action (all of them, however many were printed); what was skipped or failed; the totals.
import Table from 'cli-table3';
import type { ShadowReport } from './shadow.js';
import { changeLines } from './shadow-diff.js';

export const DEFAULT_MAX_DIFFS = 20;

export function formatShadow(report: ShadowReport, o: { readonly maxDiffs?: number } = {}): string {
  const maxDiffs = o.maxDiffs ?? DEFAULT_MAX_DIFFS;
  const shown = report.differences.slice(0, maxDiffs);
  const out: string[] = [];
  for (const d of shown) {
    const e = d.event;
    out.push(
      `@@ ${d.key}  after event #${e.index} ${e.type} ${e.resource} ${e.name} (rv ${e.resourceVersion}, ${new Date(e.observedAt).toISOString()})`,
      '--- a',
      '+++ b',
      ...d.changes.flatMap(changeLines),
      ...(d.changed > d.changes.length ? [`  … and ${d.changed - d.changes.length} more field(s) (-o json)`] : []),
      '',
    );
  }
  const unshown = report.differing - shown.length;
  if (unshown > 0) {
    out.push(
      `… ${unshown} more differing decision(s) not printed (--max-diffs ${maxDiffs}; -o json has the first ${report.differences.length})`,
      '',
    );
  }
  if (report.byKindAction.length > 0) {
    const table = new Table({ head: ['KIND', 'DIFFERS IN', 'DECISIONS'], style: { head: [], border: [] } });
    for (const r of report.byKindAction) table.push([r.kind, r.action, r.differing]);
    out.push(table.toString());
  }
  out.push(
    ...report.skipped.map((f) => `skipped ${f.count}×: ${f.reason}`),
    ...report.failures.map((f) => `failed ${f.count}×: ${f.error}`),
    `${report.events} event(s), ${report.decisions} decision(s) compared (${report.acting} with actions or a requeue, ${report.failed} failed), ${report.differing} difference(s)`,
  );
  return out.join('\n');
}
