// `fleetq dlq list|show|redrive`: the dead-letter list of any driver (WorkQueue.deadLetters / redrive), filtered
// by cluster, kind and age. On the memory driver the list lives in the process that runs the queue: these
// functions work there (in-process), while a separate `fleetq dlq` process sees an empty list of its own.
//
// Redrive re-signs: every requeued key is signed with the queue's current secret. A raw letter parked as "bad
// signature" whose text is a key (signed by a secret the workers did not know, e.g. across a rotation) is
// requeued when the signature it carried was made by a secret this process knows (current or previous);
// one that no known secret signed is refused and reported, unless resignUnverified says to re-sign it anyway.
import { keyString, type ReconcileKey, parseKey } from '../kube/key.js';
import { BAD_SIGNATURE, signatureKeyId, verifySignature } from '../queue/message-signing.js';
import { rawKeyId } from '../queue/queue-options.js';
import type { DeadLetter, WorkQueue } from '../queue/work-queue.js';
import { capText, displayText, terminalSafeJson } from '../ops/terminal-text.js';
import { textTable, type TextStyle } from '../ops/text-table.js';

export type DeadLetterFilter = {
  readonly cluster?: string;
  readonly kind?: string;
  /** Only letters parked at least this long ago. */
  readonly olderThanMs?: number;
  /** Only the letter of this key (`cluster/kind/namespace/name`). */
  readonly key?: string;
};

/** The key a bad-signature raw letter carries (its text is a valid key); null for any other raw letter. */
export function unsignedKey(d: DeadLetter): ReconcileKey | null {
  if (d.key !== null || d.reason !== BAD_SIGNATURE) return null;
  const id = rawKeyId(d.raw);
  return id === undefined ? null : parseKey(id);
}

/**
 * True when the letter passes the filter; a bad-signature raw letter is filtered by the key it carries, any other
 * letter without a key passes only filters on age.
 */
export function matches(d: DeadLetter, f: DeadLetterFilter, now: number): boolean {
  if (f.olderThanMs !== undefined && d.at > now - f.olderThanMs) return false;
  if (f.cluster === undefined && f.kind === undefined && f.key === undefined) return true;
  const key = d.key ?? unsignedKey(d);
  if (key === null) return false;
  if (f.cluster !== undefined && key.cluster !== f.cluster) return false;
  if (f.kind !== undefined && key.kind !== f.kind) return false;
  return f.key === undefined || keyString(key) === f.key;
}

export async function listDeadLetters(queue: WorkQueue, f: DeadLetterFilter, now: number): Promise<DeadLetter[]> {
  return (await queue.deadLetters()).filter((d) => matches(d, f, now));
}

export type RedriveSigning = {
  /** The secrets the queue verifies with (current, then previous); empty when messages are not signed. */
  readonly secrets: readonly string[];
  /** Re-sign bad-signature letters that no known secret signed too (only for letters you know the origin of). */
  readonly resignUnverified?: boolean;
};

export type RedriveResult = {
  /** Letters moved back to ready (keyed letters and re-signed bad-signature letters). */
  readonly moved: number;
  /** Bad-signature letters that matched but that no known secret signed: left parked. */
  readonly refused: readonly DeadLetter[];
};

/**
 * Moves the matching keyed letters back to ready (backoff reset), and the matching bad-signature letters whose
 * signature a known secret made (all of them with resignUnverified), re-signed with the current secret.
 */
export async function redriveDeadLetters(
  queue: WorkQueue,
  f: DeadLetterFilter,
  now: number,
  signing: RedriveSigning = { secrets: [] },
): Promise<RedriveResult> {
  const refused: DeadLetter[] = [];
  const moved = await queue.redrive(
    (d) => {
      if (!matches(d, f, now)) return false;
      if (d.key !== null) return true;
      const key = unsignedKey(d);
      if (key === null) return false;
      if (signing.resignUnverified || verifySignature(signing.secrets, keyString(key), d.signature)) return true;
      refused.push(d);
      return false;
    },
    { raw: true },
  );
  return { moved, refused };
}

/**
 * What redriveDeadLetters would do, moving nothing (`dlq redrive --dry-run`): the letters it would move and the
 * bad-signature letters it would refuse. A letter without a key (never a key, not a re-signable one) is in neither.
 */
export async function previewRedrive(
  queue: WorkQueue,
  f: DeadLetterFilter,
  now: number,
  signing: RedriveSigning = { secrets: [] },
): Promise<{ readonly wouldMove: DeadLetter[]; readonly refused: DeadLetter[] }> {
  const wouldMove: DeadLetter[] = [];
  const refused: DeadLetter[] = [];
  for (const d of await listDeadLetters(queue, f, now)) {
    if (d.key !== null) wouldMove.push(d);
    else {
      const key = unsignedKey(d);
      if (key === null) continue;
      if (signing.resignUnverified || verifySignature(signing.secrets, keyString(key), d.signature)) wouldMove.push(d);
      else refused.push(d);
    }
  }
  return { wouldMove, refused };
}

/** The filter in words, for "no dead letter matches": `--cluster c1 --kind Job --older-than 3600000ms`. */
export function filterText(f: DeadLetterFilter): string {
  return [
    f.cluster !== undefined && `--cluster ${f.cluster}`,
    f.kind !== undefined && `--kind ${f.kind}`,
    f.olderThanMs !== undefined && `--older-than ${f.olderThanMs}ms`,
    f.key !== undefined && `--key ${f.key}`,
  ]
    .filter((t): t is string => t !== false)
    .join(' ');
}

/** True when the filter narrows the list at all. */
export function isFiltered(f: DeadLetterFilter): boolean {
  return filterText(f) !== '';
}

/** What to tell an operator about refused letters: how many, which key ids signed them, what to do. */
export function refusedMessage(refused: readonly DeadLetter[]): string {
  const ids = [...new Set(refused.map((d) => signatureKeyId(d.signature) ?? (d.signature ? 'no key id' : 'unsigned')))];
  return (
    `${refused.length} dead letter(s) with a bad signature were signed by no secret this process knows ` +
    `(signed by: ${ids.join(', ')}) and stay parked. If a secret was rotated out, set it as ` +
    'FLEETQ_SIGNING_SECRET_PREVIOUS and run the redrive again; if you know where these keys came from, ' +
    're-sign them anyway with --resign-unverified (a key is only a name: the worker re-reads the object)'
  );
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
 * raw letters queue text (untrusted): every cell is one line, control characters escaped visibly, capped. `style`
 * makes the heading bold on a terminal.
 */
export function formatDeadLetters(
  letters: readonly DeadLetter[],
  now: number,
  o: { readonly style?: TextStyle } = {},
): string {
  const rows = letters.map((d) => [
    d.key === null ? `(not a key) ${displayText(JSON.stringify(d.raw ?? ''), 80)}` : displayText(keyString(d.key), 320),
    String(d.failures),
    `${new Date(d.at).toISOString()} (${ago(now - d.at)} ago)`,
    displayText(d.reason, 200),
  ]);
  const table = textTable(['KEY', 'FAILURES', 'PARKED', 'LAST ERROR'], rows, o.style ? { style: o.style } : {});
  return [table, `${letters.length} dead letter(s)`].join('\n');
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
