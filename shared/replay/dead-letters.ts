// `fleetq dlq list|show|redrive`: the dead-letter list of any driver (WorkQueue.deadLetters / redrive), filtered
// by cluster, kind and age. On the memory driver the list lives in the process that runs the queue: these
// functions work there (in-process), while a separate `fleetq dlq` process sees an empty list of its own.
import { keyString } from '../kube/key.js';
import type { DeadLetter, WorkQueue } from '../queue/work-queue.js';
import { capText, displayText, terminalSafeJson } from '../ops/terminal-text.js';

export type DeadLetterFilter = {
  readonly cluster?: string;
  readonly kind?: string;
  /** Only letters parked at least this long ago. */
  readonly olderThanMs?: number;
  /** Only the letter of this key (`cluster/kind/namespace/name`). */
  readonly key?: string;
};

/** True when the letter passes the filter; a letter without a key passes only filters on age. */
export function matches(d: DeadLetter, f: DeadLetterFilter, now: number): boolean {
  if (f.olderThanMs !== undefined && d.at > now - f.olderThanMs) return false;
  if (f.cluster === undefined && f.kind === undefined && f.key === undefined) return true;
  if (d.key === null) return false;
  if (f.cluster !== undefined && d.key.cluster !== f.cluster) return false;
  if (f.kind !== undefined && d.key.kind !== f.kind) return false;
  return f.key === undefined || keyString(d.key) === f.key;
}

export async function listDeadLetters(queue: WorkQueue, f: DeadLetterFilter, now: number): Promise<DeadLetter[]> {
  return (await queue.deadLetters()).filter((d) => matches(d, f, now));
}

/** Moves the matching keyed letters back to ready (backoff reset); returns how many. */
export function redriveDeadLetters(queue: WorkQueue, f: DeadLetterFilter, now: number): Promise<number> {
  return queue.redrive((d) => matches(d, f, now));
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

/**
 * One row per letter: key, failures, when parked (and how long ago), last error. Reasons carry apiserver text and
 * raw letters queue text (untrusted): every cell is one line, control characters escaped visibly, capped.
 */
export function formatDeadLetters(letters: readonly DeadLetter[], now: number): string {
  const rows = letters.map((d) => [
    d.key === null ? `(not a key) ${displayText(JSON.stringify(d.raw ?? ''), 80)}` : displayText(keyString(d.key), 320),
    String(d.failures),
    `${new Date(d.at).toISOString()} (${ago(now - d.at)} ago)`,
    displayText(d.reason, 200),
  ]);
  const header = ['KEY', 'FAILURES', 'PARKED', 'LAST ERROR'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line), `${letters.length} dead letter(s)`].join('\n');
}

/** Longest reason or raw text in `dlq list --json` lines (`dlq show` prints them whole). */
export const LIST_JSON_MAX_TEXT = 4096;

/**
 * `dlq list --json` (one compact line per letter, reason and raw capped) and `dlq show` (indented, whole): JSON
 * with every character a terminal could act on escaped (\uXXXX: the same value for a JSON reader).
 */
export function formatDeadLettersJson(letters: readonly DeadLetter[], mode: 'list' | 'show'): string[] {
  return letters.map((d) =>
    mode === 'show'
      ? terminalSafeJson(d, 2)
      : terminalSafeJson({
          ...d,
          reason: capText(d.reason, LIST_JSON_MAX_TEXT),
          ...(d.raw !== undefined && { raw: capText(d.raw, LIST_JSON_MAX_TEXT) }),
        }),
  );
}
