// `fleetq dlq list|show|redrive`, and the older `fleetq dead-letters` and `fleetq redrive`: the dead-letter list of
// the configured queue (shared/replay/dead-letters.ts), filtered by cluster, kind, age and key. Letters carry
// apiserver and queue text: every format prints it inert (table cells escaped, JSON \u-escaped, YAML strings
// with control characters shown as escapes).
import { ALL_KINDS } from '../../shared/kube/kinds.js';
import { keyString, MalformedKeyError, parseKey } from '../../shared/kube/key.js';
import { displayText } from '../../shared/ops/terminal-text.js';
import { textStyleFor } from '../../shared/ops/text-table.js';
import type { DeadLetter } from '../../shared/queue/work-queue.js';
import { verifyingSecrets } from '../../shared/queue/message-signing.js';
import {
  filterText,
  formatDeadLetters,
  formatDeadLettersJson,
  isFiltered,
  listDeadLetters,
  previewRedrive,
  redriveDeadLetters,
  refusedMessage,
  type DeadLetterFilter,
} from '../../shared/replay/dead-letters.js';
import { signingOptions, type FleetqConfig } from '../../shared/runtime/config.js';
import { oneOf, UsageError, type OutputFormat } from './common.js';
import { durationFlag } from './common.js';
import { inertYaml, openQueue, queueCommandConfig, type QueueFlags } from './queue-open.js';

export type FilterFlags = QueueFlags & {
  readonly cluster?: string;
  readonly kind?: string;
  readonly olderThan?: string;
  readonly key?: string;
};

type OutputFlags = { readonly output?: OutputFormat; readonly json?: boolean };

/** A key argument or --key: cluster/kind/namespace/name, else bad usage saying the form. */
export function keyArgument(text: string, what = 'KEY'): string {
  try {
    return keyString(parseKey(text));
  } catch (err) {
    if (!(err instanceof MalformedKeyError)) throw err;
    throw new UsageError(
      `${what} ${JSON.stringify(text.slice(0, 200))}: not a reconcile key; the form is cluster/kind/namespace/name ` +
        '(namespace empty for a cluster-scoped kind: eu-1/Kind//name)',
    );
  }
}

/** The filter the flags give; --kind must be a kind fleetq queues (did-you-mean otherwise). */
export function filterFromFlags(flags: FilterFlags): DeadLetterFilter {
  return {
    ...(flags.cluster !== undefined && { cluster: flags.cluster }),
    ...(flags.kind !== undefined && { kind: oneOf('--kind', flags.kind, ALL_KINDS, 'kind') }),
    ...(flags.olderThan !== undefined && { olderThanMs: durationFlag(flags.olderThan, '--older-than') }),
    ...(flags.key !== undefined && { key: keyArgument(flags.key, '--key') }),
  };
}

async function withQueue<T>(
  flags: QueueFlags,
  run: (q: Awaited<ReturnType<typeof openQueue>>['queue'], config: FleetqConfig) => Promise<T>,
): Promise<T> {
  const config = await queueCommandConfig(flags);
  if (config.FLEETQ_DRIVER === 'memory')
    console.error('fleetq: the memory driver keeps its dead letters in the process that runs it; this one has none');
  const open = await openQueue(config);
  try {
    return await run(open.queue, config);
  } finally {
    await open.close();
  }
}

export async function list(flags: FilterFlags & OutputFlags): Promise<void> {
  const filter = filterFromFlags(flags);
  const format = flags.json ? 'json' : (flags.output ?? 'table');
  const now = Date.now();
  const letters = await withQueue(flags, (queue) => listDeadLetters(queue, filter, now));
  switch (format) {
    case 'json':
      for (const line of formatDeadLettersJson(letters, 'list')) console.log(line);
      return;
    case 'yaml':
      process.stdout.write(await inertYaml(letters));
      return;
    case 'table':
    case 'wide':
      console.log(formatDeadLetters(letters, now, { style: textStyleFor(process.stdout) }));
      if (letters.length === 0 && isFiltered(filter)) console.log(`(none matches ${filterText(filter)})`);
  }
}

export async function show(keyText: string, flags: QueueFlags & OutputFlags): Promise<void> {
  const key = keyArgument(keyText);
  const format = flags.json ? 'json' : (flags.output ?? 'table');
  const letters = await withQueue(flags, (queue) => listDeadLetters(queue, { key }, Date.now()));
  const letter = letters[0];
  if (letter === undefined) throw new Error(`no dead letter for ${key} (fleetq dlq list shows the parked keys)`);
  switch (format) {
    case 'json':
      for (const line of formatDeadLettersJson(letters, 'show')) console.log(line);
      return;
    case 'yaml':
      process.stdout.write(await inertYaml(letter));
      return;
    case 'table':
    case 'wide':
      console.log(formatLetter(letter));
  }
}

/** One letter, field by field, its reason whole (on one line, control characters escaped). */
function formatLetter(d: DeadLetter): string {
  return [
    `Key:       ${d.key === null ? `(not a key) ${displayText(JSON.stringify(d.raw ?? ''), 600)}` : keyString(d.key)}`,
    `Failures:  ${d.failures}`,
    `Parked:    ${new Date(d.at).toISOString()}`,
    `Reason:    ${displayText(d.reason, 64 * 1024)}`,
  ].join('\n');
}

export type RedriveFlags = FilterFlags & { readonly dryRun?: boolean; readonly resignUnverified?: boolean };

/** Redrives (re-signing with the current secret); refused bad-signature letters are said and fail the command. */
export async function redrive(flags: RedriveFlags): Promise<void> {
  const filter = filterFromFlags(flags);
  const now = Date.now();
  await withQueue(flags, async (queue, config) => {
    const signing = {
      secrets: verifyingSecrets(signingOptions(config)),
      resignUnverified: flags.resignUnverified === true,
    };
    const matching = await listDeadLetters(queue, filter, now);
    if (matching.length === 0) {
      const all = isFiltered(filter) ? (await queue.deadLetters()).length : 0;
      const done = flags.dryRun ? 'would redrive 0 key(s) (dry run)' : 'redrove 0 key(s)';
      console.log(
        all === 0
          ? `${done}: the dead-letter list is empty`
          : `${done}: no dead letter matches ${filterText(filter)} (${all} other(s) parked: fleetq dlq list)`,
      );
      return;
    }
    if (flags.dryRun) {
      const { wouldMove, refused } = await previewRedrive(queue, filter, now, signing);
      console.log(formatDeadLetters(wouldMove, now, { style: textStyleFor(process.stdout) }));
      console.log(`would redrive ${wouldMove.length} key(s) (dry run: nothing moved)`);
      if (refused.length > 0) console.log(`would refuse: ${refusedMessage(refused)}`);
      return;
    }
    const { moved, refused } = await redriveDeadLetters(queue, filter, now, signing);
    console.log(`redrove ${moved} key(s)`);
    if (refused.length > 0) throw new Error(refusedMessage(refused));
  });
}
