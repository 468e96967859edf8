// `fleetq log stats`: records per resource and type, streamed.
import Table from 'cli-table3';
import { displayText } from '../ops/terminal-text.js';
import type { LogRecord } from '../queue/history/log-record.js';

export type LogStats = {
  readonly records: number;
  readonly firstAt?: number;
  readonly lastAt?: number;
  /** resource → type → count */
  readonly counts: Record<string, Record<string, number>>;
};

export async function logStats(records: AsyncIterable<LogRecord>): Promise<LogStats> {
  const counts: Record<string, Record<string, number>> = {};
  let n = 0;
  let firstAt: number | undefined;
  let lastAt: number | undefined;
  for await (const r of records) {
    n++;
    firstAt = Math.min(firstAt ?? r.observedAt, r.observedAt);
    lastAt = Math.max(lastAt ?? r.observedAt, r.observedAt);
    const byType = (counts[r.resource] ??= {});
    byType[r.type] = (byType[r.type] ?? 0) + 1;
  }
  return { records: n, ...(firstAt !== undefined && { firstAt }), ...(lastAt !== undefined && { lastAt }), counts };
}

/** The stats as a table (cli-table3): a row per resource, a column per record type, then the totals and span. */
export function formatStats(stats: LogStats): string {
  const types = ['LISTED', 'ADDED', 'MODIFIED', 'DELETED'] as const;
  const table = new Table({ head: ['RESOURCE', ...types, 'TOTAL'], style: { head: [], border: [] } });
  for (const resource of Object.keys(stats.counts).sort()) {
    const byType = stats.counts[resource] ?? {};
    const total = Object.values(byType).reduce((a, b) => a + b, 0);
    table.push([displayText(resource), ...types.map((t) => byType[t] ?? 0), total]);
  }
  const span =
    stats.firstAt === undefined || stats.lastAt === undefined
      ? ''
      : `, ${new Date(stats.firstAt).toISOString()} .. ${new Date(stats.lastAt).toISOString()}`;
  return `${table.toString()}\n${stats.records} record(s)${span}`;
}
