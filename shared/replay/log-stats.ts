// `fleetq log stats`: records per resource and type, streamed.
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

export function formatStats(stats: LogStats): string {
  const types = ['LISTED', 'ADDED', 'MODIFIED', 'DELETED'] as const;
  const rows = Object.keys(stats.counts)
    .sort()
    .map((resource) => [resource, ...types.map((t) => String(stats.counts[resource]?.[t] ?? 0))]);
  const header = ['RESOURCE', ...types];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const span =
    stats.firstAt === undefined || stats.lastAt === undefined
      ? ''
      : `, ${new Date(stats.firstAt).toISOString()} .. ${new Date(stats.lastAt).toISOString()}`;
  return [line(header), ...rows.map(line), `${stats.records} record(s)${span}`].join('\n');
}
