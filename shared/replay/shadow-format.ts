// `replay shadow`'s report for a reader: per differing key, a unified diff of the two builds' decisions by field
// path (`- actions[0].object.spec.replicas: 3` / `+ …: 4`), at most maxDiffs of them; a table of the differing
// decisions by kind and action (all of them, however many were printed); what was skipped or failed; the totals.
// Everything from the log (names, values, error messages) goes through displayText: inert on a terminal.
import Table from 'cli-table3';
import { displayText } from '../ops/terminal-text.js';
import type { ShadowReport } from './shadow.js';
import { changeLines } from './shadow-diff.js';

export const DEFAULT_MAX_DIFFS = 20;
/** A printed line's length at most (a changed string field can be a whole script); -o json has it whole. */
const MAX_LINE = 2000;

export function formatShadow(report: ShadowReport, o: { readonly maxDiffs?: number } = {}): string {
  const maxDiffs = o.maxDiffs ?? DEFAULT_MAX_DIFFS;
  const shown = report.differences.slice(0, maxDiffs);
  const out: string[] = [];
  for (const d of shown) {
    const e = d.event;
    out.push(
      `@@ ${displayText(d.key)}  after event #${e.index} ${e.type} ${displayText(e.resource)} ${displayText(e.name)} ` +
        `(rv ${displayText(e.resourceVersion)}, ${new Date(e.observedAt).toISOString()})`,
      '--- a',
      '+++ b',
      ...d.changes.flatMap(changeLines).map((line) => displayText(line, MAX_LINE)),
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
    for (const r of report.byKindAction) table.push([displayText(r.kind), displayText(r.action), r.differing]);
    out.push(table.toString());
  }
  out.push(
    ...report.skipped.map((f) => `skipped ${f.count}×: ${displayText(f.reason, MAX_LINE)}`),
    ...report.failures.map((f) => `failed ${f.count}×: ${displayText(f.error, MAX_LINE)}`),
    `${report.events} event(s), ${report.decisions} decision(s) compared (${report.acting} with actions or a requeue, ${report.failed} failed), ${report.differing} difference(s)`,
  );
  return out.join('\n');
}
