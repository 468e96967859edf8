// `fleetq log stats`: records per resource and event type, of a cluster in a store or of a file.
import { readLogFile } from '../../shared/replay/log-file.js';
import { checkLogInput, noRecordsMessage } from '../../shared/replay/log-input.js';
import { formatStats, logStats } from '../../shared/replay/log-stats.js';
import { printResult, UsageError, type OutputFormat } from './common.js';
import { inWindow, malformedReporter, openStoreFlag, requireCluster, windowFlags } from './replay-common.js';

export type LogStatsFlags = {
  readonly cluster?: string;
  readonly file?: string;
  readonly since?: string;
  readonly until?: string;
  readonly store?: string;
  readonly output: OutputFormat;
  readonly json?: boolean;
};

export async function logStatsCommand(flags: LogStatsFlags): Promise<void> {
  if ((flags.cluster === undefined) === (flags.file === undefined)) {
    throw new UsageError('give --cluster NAME (a cluster in the store) or --file FILE (a log file), one of them');
  }
  if (flags.file !== undefined && flags.store !== undefined) {
    throw new UsageError('--store reads a cluster of a store: give it with --cluster, not with --file');
  }
  const { fromMs, toMs } = await windowFlags(flags.since, flags.until);
  const malformed = malformedReporter();
  if (flags.file !== undefined) await checkLogInput(flags.file);
  const store = flags.cluster === undefined ? undefined : await openStoreFlag(flags.store);
  try {
    if (store && flags.cluster !== undefined) await requireCluster(store, flags.cluster);
    const records =
      store && flags.cluster !== undefined
        ? store.read(flags.cluster, fromMs, toMs, malformed.on)
        : inWindow(readLogFile(flags.file ?? '', undefined, malformed.on), fromMs, toMs);
    const stats = await logStats(records);
    malformed.summary();
    if (flags.file !== undefined && stats.records === 0 && malformed.count() > 0) {
      throw new Error(noRecordsMessage(flags.file, malformed.count(), malformed.first()));
    }
    await printResult(flags.json ? 'json' : flags.output, { data: stats, table: () => formatStats(stats) });
  } finally {
    await store?.close();
  }
}
