// The command line before functions/cli.ts moved to commander: each command group's module replaces its part
// here and removes it; the wrappers in functions/cli/*.ts call main() for what is not ported yet.
//   fleetq dead-letters | redrive      inspect or redrive the dead-letter list of the configured queue
//   fleetq dlq list|show|redrive [--cluster C] [--kind K] [--older-than D] [--key K] [--json] [--driver D]
//                        [--resign-unverified]   redrive re-signs with the current secret; a "bad signature" letter
//                        that no known secret (current, previous) signed is refused unless --resign-unverified
//   fleetq log export --cluster C [--since T] [--until T2] [--out FILE] [--store redis|jsonl:DIR]
//   fleetq log import --file FILE [--into NAME|live] [--skip-bad] [--store redis|jsonl:DIR]
//                        every record is checked first (cluster, resource, kind, namespace/name, not dated more than
//                        5 min ahead); a bad one refuses the whole file (line numbers said) unless --skip-bad. Goes
//                        into the named log NAME (default `imported`; read it back with --store redis:NAME or
//                        jsonl:DIR/_imports/NAME), the live log only with --into live
//   fleetq log stats (--cluster C [--store S] | --file FILE) [--since T] [--until T2] [--json]
//   fleetq replay requeue --cluster C --since T [--until T2] [--kind K] [--dry-run] [--store S] [--registry F]
//   fleetq replay shadow (--log FILE | --cluster C [--since T] [--until T2] [--store S]) --a current|PATH --b PATH
//                        [--owns K,K] [--json]          exit status 1 when the two builds decide differently
//   fleetq status [--registry F] [--driver redis|sqs] [--queue Q] [--watch [--interval 5s]] [--json] [--window 60s]
//                        per cluster: forwarder, last event, depth, in flight, backoff, dead letters, rates
// Times (--since, --until): ISO 8601, a Unix time (10 digits: seconds, 13 digits: milliseconds), or a duration ago
// (15m); durations: 30s 15m 2h 7d. README "Replay".
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createQueue } from '../../shared/queue/index.js';
import { loadConfig, signingOptions, type FleetqConfig } from '../../shared/runtime/config.js';
import { verifyingSecrets } from '../../shared/queue/message-signing.js';
import { queueConfig, registryFrom } from '../../shared/runtime/deps.js';
import { keyString } from '../../shared/kube/key.js';
import {
  formatDeadLetters,
  formatDeadLettersJson,
  listDeadLetters,
  redriveDeadLetters,
  refusedMessage,
  type DeadLetterFilter,
} from '../../shared/replay/dead-letters.js';
import { readLogFile, writeLogFile, type ReadPosition } from '../../shared/replay/log-file.js';
import { Progress } from '../../shared/replay/progress.js';
import type { OnMalformed } from '../../shared/queue/history/log-record.js';
import { badRecordLines, importLogFile } from '../../shared/replay/log-import.js';
import { formatStats, logStats } from '../../shared/replay/log-stats.js';
import { importStoreSpec, LIVE_LOG, openLogStore, type LogStore } from '../../shared/replay/log-store.js';
import { requeue, windowKeys } from '../../shared/replay/requeue.js';
import { formatShadow, loadControllers, shadow } from '../../shared/replay/shadow.js';
import { parseDuration, timeWindow } from '../../shared/replay/time-window.js';
import { collectStatus, formatStatus } from '../../shared/ops/status.js';
import { registryDigest as digestOf } from '../../shared/runtime/registry-reload.js';

/** Where `fleetq log import` writes without --into: a named log, never the live one. */
const DEFAULT_IMPORT_LOG = 'imported';

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

function need(value: string | boolean | undefined, flag: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${flag} is required`);
  return value;
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

function logStore(values: { store?: string | undefined }): LogStore {
  const spec = values.store ?? (process.env.FLEETQ_EVENT_LOG || 'redis');
  return openLogStore(spec, configFrom({}));
}

async function log(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      cluster: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      out: { type: 'string', default: '-' },
      file: { type: 'string' },
      store: { type: 'string' },
      json: { type: 'boolean', default: false },
      into: { type: 'string' },
      'skip-bad': { type: 'boolean', default: false },
    },
  });
  const { fromMs, toMs } = timeWindow(values.since, values.until, Date.now());
  switch (sub) {
    case 'export': {
      const store = logStore(values);
      try {
        const n = await writeLogFile(values.out, store.read(need(values.cluster, '--cluster'), fromMs, toMs));
        console.error(`fleetq: exported ${n} record(s) from ${store.spec}`);
      } finally {
        await store.close();
      }
      return;
    }
    case 'import': {
      // Into a named log (default `imported`), never the live one unless --into live (log-import.ts).
      const file = need(values.file, '--file');
      const into = values.into ?? DEFAULT_IMPORT_LOG;
      const spec = importStoreSpec(values.store ?? (process.env.FLEETQ_EVENT_LOG || 'redis'), into);
      const store = openLogStore(spec, configFrom({}));
      try {
        const { imported, check } = await importLogFile(file, store, {
          now: Date.now(),
          skipBad: values['skip-bad'],
        });
        if (check.bad > 0) {
          console.error(
            [`fleetq: ${file}: skipped ${check.bad} bad record(s) (--skip-bad):`, ...badRecordLines(check)].join('\n'),
          );
        }
        for (const [cluster, n] of imported) console.log(`imported ${n} record(s) of ${cluster} into ${store.spec}`);
        if (into !== LIVE_LOG) console.log(`read it with --store ${store.spec} (the live log is untouched)`);
      } finally {
        await store.close();
      }
      return;
    }
    case 'stats': {
      const store = values.file === undefined ? logStore(values) : undefined;
      try {
        const malformed = malformedReporter();
        const records = store
          ? store.read(need(values.cluster, '--cluster (or --file)'), fromMs, toMs, malformed.on)
          : inWindow(readLogFile(values.file ?? '', undefined, malformed.on), fromMs, toMs);
        const stats = await logStats(records);
        malformed.summary();
        console.log(values.json ? JSON.stringify(stats) : formatStats(stats));
      } finally {
        await store?.close();
      }
      return;
    }
    default:
      throw new Error('usage: fleetq log export|import|stats (see the header of functions/cli.ts)');
  }
}

async function* inWindow<T extends { observedAt: number }>(records: AsyncIterable<T>, from: number, to: number) {
  for await (const r of records) if (r.observedAt >= from && r.observedAt <= to) yield r;
}

/** Malformed records (not JSON, fields missing) are skipped and said on stderr: the first 5, then a count. */
function malformedReporter(): { on: OnMalformed; summary: () => void } {
  let n = 0;
  return {
    on: (err) => {
      if (++n <= 5) console.error(`fleetq: skipped a malformed record: ${err.message}`);
    },
    summary: () => {
      if (n > 0) console.error(`fleetq: skipped ${n} malformed record(s)`);
    },
  };
}

async function replayShadow(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      log: { type: 'string' },
      cluster: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      store: { type: 'string' },
      a: { type: 'string', default: 'current' },
      b: { type: 'string' },
      owns: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [a, b] = [await loadControllers(values.a), await loadControllers(need(values.b, '--b'))];
  const { fromMs, toMs } = timeWindow(values.since, values.until, Date.now());
  const store = values.log === undefined ? logStore(values) : undefined;
  const progress = new Progress({ tty: process.stderr.isTTY === true, write: (t) => process.stderr.write(t) });
  const size = values.log === undefined ? 0 : statSync(values.log).size;
  const position: ReadPosition = { bytes: 0 };
  const malformed = malformedReporter();
  let first: number | undefined;
  try {
    const records = store
      ? store.read(need(values.cluster, '--cluster (or --log)'), fromMs, toMs, malformed.on)
      : inWindow(readLogFile(values.log ?? '', position, malformed.on), fromMs, toMs);
    // How far along: bytes of the file, or the record's time within the window (the store's end is now).
    const fraction = (r: { observedAt: number }): number | undefined => {
      if (store === undefined) return size > 0 ? position.bytes / size : undefined;
      if (first === undefined) return undefined;
      const end = Math.min(toMs, Date.now());
      return end > first ? (r.observedAt - first) / (end - first) : undefined;
    };
    const report = await shadow(records, {
      ...(values.cluster && { cluster: values.cluster }),
      owns: new Set(values.owns ? values.owns.split(',') : a.keys()),
      a,
      b,
      onProgress: (n, r) => {
        first ??= r.observedAt;
        progress.tick(n, () => fraction(r));
      },
    });
    progress.done();
    malformed.summary();
    console.log(values.json ? JSON.stringify(report) : formatShadow(report));
    if (report.differing > 0) throw new Error(`${report.differing} decision(s) differ`);
  } finally {
    await store?.close();
  }
}

async function replay(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'shadow') return replayShadow(rest);
  if (sub !== 'requeue') throw new Error('usage: fleetq replay requeue|shadow (see the header of functions/cli.ts)');
  const { values } = parseArgs({
    args: rest,
    options: {
      cluster: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      kind: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      store: { type: 'string' },
      registry: { type: 'string' },
      driver: { type: 'string' },
    },
  });
  const cluster = need(values.cluster, '--cluster');
  const { fromMs, toMs } = timeWindow(need(values.since, '--since'), values.until, Date.now());
  const config = configFrom(values);
  const entry = registryFrom(config).get(cluster);
  if (!entry) throw new Error(`cluster ${cluster} is not in the registry ${config.FLEETQ_REGISTRY}`);
  const store = logStore(values);
  const malformed = malformedReporter();
  let found;
  try {
    found = await windowKeys(store.read(cluster, 0, toMs, malformed.on), {
      cluster,
      fromMs,
      toMs,
      ...(values.kind && { kind: values.kind }),
      owns: new Set(entry.owns),
      ...(entry.handOver && { handOver: new Set(entry.handOver) }),
    });
  } finally {
    await store.close();
  }
  malformed.summary();
  const window = `${new Date(fromMs).toISOString()} .. ${new Date(toMs).toISOString()}`;
  if (values['dry-run']) {
    for (const key of found.keys) console.log(keyString(key));
    console.error(`fleetq: would requeue ${found.keys.length} key(s) from ${found.events} event(s) in ${window}`);
    return;
  }
  const queue = await createQueue(queueConfig(config));
  try {
    const n = await requeue(queue, found.keys);
    console.log(`requeued ${n} key(s) from ${found.events} event(s) in ${window}`);
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
  fleetq log export --cluster C [--since T] [--until T2] [--out FILE] [--store redis|redis:NAME|jsonl:DIR]
  fleetq log import --file FILE [--into NAME|live] [--skip-bad] [--store redis|jsonl:DIR]
  fleetq log stats (--cluster C [--store S] | --file FILE) [--since T] [--until T2] [--json]
  fleetq replay requeue --cluster C --since T [--until T2] [--kind K] [--dry-run] [--store S] [--registry F]
  fleetq replay shadow (--log FILE | --cluster C [--since T] [--until T2] [--store S]) --a current|PATH --b PATH
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
    case 'log':
      return log(rest);
    case 'replay':
      return replay(rest);
    case 'status':
      return status(rest);
    default:
      throw new Error(
        'usage: fleetq dead-letters | redrive | dlq | log | replay | status (fleetq --help)',
      );
  }
}
