// Instants and durations on the command line: `--since 2025-12-03T12:00:00Z`, a Unix time (`--since 1764763200`,
// 10 digits: seconds; `--since 1764763200000`, 13 digits: milliseconds; any other count of digits is refused as
// ambiguous) or `--since 90m` (that long before now); durations are a number with a unit, ms s m h d
// (`--older-than 2h`).
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

export class TimeArgumentError extends Error {
  override name = 'TimeArgumentError';
}

/** Milliseconds in `text` (`500ms`, `30s`, `15m`, `2h`, `7d`). */
export function parseDuration(text: string, flag: string): number {
  const m = DURATION.exec(text.trim());
  if (!m?.[1] || !m[2])
    throw new TimeArgumentError(`${flag} ${JSON.stringify(text)}: a duration like 30s, 15m, 2h or 7d`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/**
 * Epoch ms of `text`: an ISO 8601 time, a Unix time (10 digits: seconds, 13 digits: milliseconds), or a duration
 * meaning that long before `now`.
 */
export function parseInstant(text: string, flag: string, now: number): number {
  const t = text.trim();
  if (/^\d{10}$/.test(t)) return Number(t) * 1000;
  if (/^\d{13}$/.test(t)) return Number(t);
  if (/^\d+$/.test(t)) {
    throw new TimeArgumentError(
      `${flag} ${JSON.stringify(text)}: a Unix time is 10 digits (seconds, e.g. 1764763200) or 13 digits ` +
        `(milliseconds, e.g. 1764763200000); this one has ${t.length}`,
    );
  }
  if (DURATION.test(t)) return now - parseDuration(t, flag);
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) {
    throw new TimeArgumentError(
      `${flag} ${JSON.stringify(text)}: an ISO time (2025-12-03T12:00:00Z), a Unix time in seconds (10 digits) or ` +
        'milliseconds (13 digits), or a duration ago (15m, 2h)',
    );
  }
  return ms;
}

export type TimeWindow = { readonly fromMs: number; readonly toMs: number };

/** [since, until]: since defaults to the beginning of the log, until to now. */
export function timeWindow(since: string | undefined, until: string | undefined, now: number): TimeWindow {
  const fromMs = since === undefined ? 0 : parseInstant(since, '--since', now);
  const toMs = until === undefined ? now : parseInstant(until, '--until', now);
  if (toMs < fromMs) throw new TimeArgumentError(`--until (${new Date(toMs).toISOString()}) is before --since`);
  return { fromMs, toMs };
}
