// `fleetq replay shadow`: a log (a file, or a cluster's records in a store) replayed through two builds of the
// planners (shared/replay/shadow.ts); prints where their decisions differ (shadow-format.ts) and exits 1 when
// any does. A log with no record is an error, never "0 differences".
import { stat } from 'node:fs/promises';
import { readLogFile, type ReadPosition } from '../../shared/replay/log-file.js';
import { checkLogInput, noRecordsMessage } from '../../shared/replay/log-input.js';
import { startProgress } from '../../shared/replay/progress.js';
import { BuildSpecError, loadControllers, type Controllers } from '../../shared/replay/shadow-build.js';
import { DEFAULT_MAX_DIFFS, formatShadow } from '../../shared/replay/shadow-format.js';
import { shadow } from '../../shared/replay/shadow.js';
import { listOf, printResult, UsageError, type OutputFormat } from './common.js';
import { inWindow, malformedReporter, openStoreFlag, requireCluster, windowFlags } from './replay-common.js';

export type ReplayShadowFlags = {
  readonly log?: string;
  readonly cluster?: string;
  readonly since?: string;
  readonly until?: string;
  readonly store?: string;
  readonly a: string;
  readonly b: string;
  readonly owns?: string;
  readonly maxDiffs: string;
  readonly output: OutputFormat;
  readonly json?: boolean;
};

async function build(flag: string, spec: string): Promise<Controllers> {
  try {
    return await loadControllers(spec, (note) => console.error(`fleetq: ${flag}: ${note}`));
  } catch (err) {
    if (err instanceof BuildSpecError) throw new UsageError(`${flag} ${err.message}`);
    throw new Error(`${flag} ${spec}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

export async function replayShadow(flags: ReplayShadowFlags): Promise<void> {
  if ((flags.log === undefined) === (flags.cluster === undefined)) {
    throw new UsageError('give --log FILE (a log file) or --cluster NAME (a cluster in the store), one of them');
  }
  if (flags.log !== undefined && flags.store !== undefined) {
    throw new UsageError('--store reads a cluster of a store: give it with --cluster, not with --log');
  }
  const maxDiffs = Number(flags.maxDiffs);
  if (!Number.isSafeInteger(maxDiffs) || maxDiffs < 0) {
    throw new UsageError(
      `--max-diffs ${JSON.stringify(flags.maxDiffs)}: a whole number, 0 or more (default ${DEFAULT_MAX_DIFFS})`,
    );
  }
  const { fromMs, toMs } = await windowFlags(flags.since, flags.until);
  if (flags.log !== undefined) await checkLogInput(flags.log);
  const a = await build('--a', flags.a);
  const b = await build('--b', flags.b);
  const owns = flags.owns === undefined ? [...a.keys()] : listOf('--owns', flags.owns, [...a.keys()], 'kind');
  const store = flags.cluster === undefined ? undefined : await openStoreFlag(flags.store);
  const size = flags.log === undefined ? 0 : (await stat(flags.log)).size;
  const position: ReadPosition = { bytes: 0 };
  const malformed = malformedReporter();
  const progress = startProgress(process.stderr, 'shadow');
  let first: number | undefined;
  try {
    if (store && flags.cluster !== undefined) await requireCluster(store, flags.cluster);
    const records =
      store && flags.cluster !== undefined
        ? store.read(flags.cluster, fromMs, toMs, malformed.on)
        : inWindow(readLogFile(flags.log ?? '', position, malformed.on), fromMs, toMs);
    // How far along: bytes of the file, or the record's time within the window (the store's end is now).
    const fraction = (observedAt: number): number | undefined => {
      if (store === undefined) return size > 0 ? position.bytes / size : undefined;
      if (first === undefined) return undefined;
      const end = Math.min(toMs, Date.now());
      return end > first ? (observedAt - first) / (end - first) : undefined;
    };
    const report = await shadow(records, {
      ...(flags.cluster && { cluster: flags.cluster }),
      owns: new Set(owns),
      a,
      b,
      onProgress: (n, r) => {
        first ??= r.observedAt;
        progress.tick(n, () => fraction(r.observedAt));
      },
    });
    progress.done();
    malformed.summary();
    if (report.events === 0) {
      const window = `between ${new Date(fromMs).toISOString()} and ${new Date(toMs).toISOString()}`;
      const windowed = flags.since !== undefined || flags.until !== undefined;
      throw new Error(
        flags.log === undefined
          ? `${store?.spec ?? 'the store'}: no record of ${flags.cluster} ${window}`
          : windowed && malformed.count() === 0
            ? `${flags.log}: no log record ${window} (--since, --until)`
            : noRecordsMessage(flags.log, malformed.count(), malformed.first()),
      );
    }
    await printResult(flags.json ? 'json' : flags.output, {
      data: report,
      table: () => formatShadow(report, { maxDiffs }),
    });
    if (report.differing > 0)
      throw new Error(`${report.differing} decision(s) differ between --a ${flags.a} and --b ${flags.b}`);
  } finally {
    progress.done();
    await store?.close();
  }
}
