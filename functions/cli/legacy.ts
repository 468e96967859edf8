// The command line before functions/cli.ts moved to commander: each command group's module replaces its part
// here and removes it; the wrappers in functions/cli/*.ts call main() for what is not ported yet.
//   fleetq dead-letters | redrive      inspect or redrive the dead-letter list of the configured queue
//   fleetq dlq list|show|redrive [--cluster C] [--kind K] [--older-than D] [--key K] [--json] [--driver D]
//                        [--resign-unverified]   redrive re-signs with the current secret; a "bad signature" letter
//                        that no known secret (current, previous) signed is refused unless --resign-unverified
//   fleetq status [--registry F] [--driver redis|sqs] [--queue Q] [--watch [--interval 5s]] [--json] [--window 60s]
//                        per cluster: forwarder, last event, depth, in flight, backoff, dead letters, rates
// Times (--since, --until): ISO 8601, a Unix time (10 digits: seconds, 13 digits: milliseconds), or a duration ago
// (15m); durations: 30s 15m 2h 7d. README "Replay".
import { parseArgs } from 'node:util';
import { createQueue } from '../../shared/queue/index.js';
import { loadConfig, signingOptions, type FleetqConfig } from '../../shared/runtime/config.js';
import { verifyingSecrets } from '../../shared/queue/message-signing.js';
import { queueConfig, registryFrom } from '../../shared/runtime/deps.js';
import {
  formatDeadLetters,
  formatDeadLettersJson,
  listDeadLetters,
  redriveDeadLetters,
  refusedMessage,
  type DeadLetterFilter,
} from '../../shared/replay/dead-letters.js';
import { parseDuration } from '../../shared/replay/time-window.js';
import { collectStatus, formatStatus } from '../../shared/ops/status.js';
import { registryDigest as digestOf } from '../../shared/runtime/registry-reload.js';


function configFrom(values: Record<string, string | boolean | undefined>): FleetqConfig {
  const str = (k: string): string | undefined => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  return loadConfig(process.env, {
    ...(str('registry') && { FLEETQ_REGISTRY: str('registry') }),
    ...(str('driver') && { FLEETQ_DRIVER: str('driver') }),
    ...(str('concurrency') && { FLEETQ_CONCURRENCY: str('concurrency') }),
    ...(str('metrics-port') && { FLEETQ_METRICS_PORT: str('metrics-port') }),
    ...(str('reads') && { FLEETQ_READS: str('reads') }),
  });
}

async function deadLetters(args: string[], redrive: boolean): Promise<void> {
  const { values } = parseArgs({ args, options: { driver: { type: 'string' } } });
  const config = configFrom(values);
  const queue = await createQueue(queueConfig(config));
  try {
    if (redrive) {
      await redriveAndReport(queue, {}, config, false);
    } else {
      for (const line of formatDeadLettersJson(await queue.deadLetters(), 'list')) console.log(line);
    }
  } finally {
    await queue.close();
  }
}

/** Redrives (re-signing with the current secret); refused bad-signature letters are said and fail the command. */
async function redriveAndReport(
  queue: Awaited<ReturnType<typeof createQueue>>,
  filter: DeadLetterFilter,
  config: FleetqConfig,
  resignUnverified: boolean,
): Promise<void> {
  const secrets = verifyingSecrets(signingOptions(config));
  const { moved, refused } = await redriveDeadLetters(queue, filter, Date.now(), { secrets, resignUnverified });
  console.log(`redrove ${moved} key(s)`);
  if (refused.length > 0) throw new Error(refusedMessage(refused));
}

async function dlq(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      driver: { type: 'string' },
      cluster: { type: 'string' },
      kind: { type: 'string' },
      'older-than': { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean', default: false },
      'resign-unverified': { type: 'boolean', default: false },
    },
  });
  const key = values.key ?? positionals[0];
  if (sub === 'show' && key === undefined) throw new Error('dlq show needs a key: cluster/kind/namespace/name');
  const filter: DeadLetterFilter = {
    ...(values.cluster && { cluster: values.cluster }),
    ...(values.kind && { kind: values.kind }),
    ...(values['older-than'] && { olderThanMs: parseDuration(values['older-than'], '--older-than') }),
    ...(key !== undefined && { key }),
  };
  const config = configFrom(values);
  if (config.FLEETQ_DRIVER === 'memory') {
    console.error('fleetq: the memory driver keeps its dead letters in the process that runs it; this one has none');
  }
  const queue = await createQueue(queueConfig(config));
  const now = Date.now();
  try {
    switch (sub) {
      case 'list':
      case 'show': {
        const letters = await listDeadLetters(queue, filter, now);
        if (values.json || sub === 'show')
          for (const line of formatDeadLettersJson(letters, sub === 'show' ? 'show' : 'list')) console.log(line);
        else console.log(formatDeadLetters(letters, now));
        if (sub === 'show' && letters.length === 0) throw new Error(`no dead letter for ${key}`);
        return;
      }
      case 'redrive':
        await redriveAndReport(queue, filter, config, values['resign-unverified']);
        return;
      default:
        throw new Error(
          'usage: fleetq dlq list|show|redrive [--cluster C] [--kind K] [--older-than D] [--key K] [--resign-unverified]',
        );
    }
  } finally {
    await queue.close();
  }
}

// `fleetq status`: shared/ops/status.ts reads the shared stores; --watch prints again every --interval until
// Ctrl-C (a TTY's screen is cleared first; with --json one JSON object per line).
async function status(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      registry: { type: 'string' },
      driver: { type: 'string' },
      queue: { type: 'string' },
      watch: { type: 'boolean', default: false },
      interval: { type: 'string', default: '5s' },
      window: { type: 'string', default: '60s' },
      json: { type: 'boolean', default: false },
    },
  });
  const config = loadConfig(process.env, {
    ...(values.registry && { FLEETQ_REGISTRY: values.registry }),
    ...(values.driver && { FLEETQ_DRIVER: values.driver }),
    ...(values.queue && { FLEETQ_QUEUE: values.queue }),
  });
  if (config.FLEETQ_DRIVER === 'memory')
    throw new Error(
      'status needs a shared store: the memory driver keeps its queue inside the process that runs it (fleetq run); ' +
        'set FLEETQ_DRIVER=redis or sqs',
    );
  const registry = config.FLEETQ_REGISTRY ? registryFrom(config) : undefined;
  const clusters = registry?.clusters.map((c) => c.name) ?? [];
  // Pool members on another registry than this one are marked old.
  const registryDigest = registry && digestOf(registry.clusters);
  const intervalMs = parseDuration(values.interval, '--interval');
  const rateWindowMs = parseDuration(values.window, '--window');
  const tty = process.stdout.isTTY === true;
  let stop: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', () => stop?.());
  process.once('SIGTERM', () => stop?.());
  for (;;) {
    const s = await collectStatus(config, { clusters, rateWindowMs, ...(registryDigest && { registryDigest }) });
    const text = values.json ? JSON.stringify(s) : formatStatus(s);
    if (values.watch && tty && !values.json) process.stdout.write('\x1b[2J\x1b[H');
    console.log(text);
    if (!values.watch) return;
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      stopped.then(() => 'stop'),
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve('next'), intervalMs))),
    ]);
    clearTimeout(timer);
    if (next === 'stop') return;
  }
}

const HELP = `fleetq: Kubernetes workload controllers for a fleet of clusters, fed by a shared queue.
  fleetq dlq list|show|redrive [--cluster C] [--kind K] [--older-than D] [--key K] [--json] [--resign-unverified]
  fleetq status [--registry F] [--driver redis|sqs] [--queue Q] [--watch [--interval 5s]] [--json]
Times (--since, --until): an ISO 8601 time (2025-12-03T12:00:00Z); a Unix time, 10 digits in seconds
  (1764763200) or 13 digits in milliseconds (1764763200000); or a duration ago (90m, 2h, 7d).
Durations: 500ms 30s 15m 2h 7d. More in the header of functions/cli.ts and README.md.`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'help':
    case '--help':
    case '-h':
      console.log(HELP);
      return;
    case 'dead-letters':
      return deadLetters(rest, false);
    case 'redrive':
      return deadLetters(rest, true);
    case 'dlq':
      return dlq(rest);
    case 'status':
      return status(rest);
    default:
      throw new Error(
        'usage: fleetq dead-letters | redrive | dlq | status (fleetq --help)',
      );
  }
}
