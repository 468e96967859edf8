// `fleetq log import`: a JSON-lines log file into a named log (default `imported`), all records or none
// (shared/replay/log-import.ts).
import { badRecordLines, importLogFile } from '../../shared/replay/log-import.js';
import { importStoreSpec, LIVE_LOG } from '../../shared/replay/log-store.js';
import { UsageError } from './common.js';
import { openStoreSpec } from './replay-common.js';

export type LogImportFlags = {
  readonly file: string;
  readonly into: string;
  readonly skipBad: boolean;
  readonly replace: boolean;
  readonly store?: string;
};

export async function logImport(flags: LogImportFlags): Promise<void> {
  if (flags.replace && flags.into === LIVE_LOG) {
    throw new UsageError('--replace with --into live: the live log is never replaced; import into a named log');
  }
  const base = flags.store ?? (process.env.FLEETQ_EVENT_LOG || 'redis');
  let spec: string;
  try {
    spec = importStoreSpec(base, flags.into);
  } catch (err) {
    const flag = /log name/.test(String(err))
      ? `--into ${JSON.stringify(flags.into)}`
      : `--store ${JSON.stringify(base)}`;
    throw new UsageError(`${flag}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const store = await openStoreSpec(spec, '--store');
  try {
    const { imported, check } = await importLogFile(flags.file, store, {
      now: Date.now(),
      skipBad: flags.skipBad,
      replace: flags.replace,
    });
    if (check.bad > 0) {
      console.error(
        [`fleetq: ${flags.file}: skipped ${check.bad} bad record(s) (--skip-bad):`, ...badRecordLines(check)].join(
          '\n',
        ),
      );
    }
    for (const [cluster, n] of imported) console.log(`imported ${n} record(s) of ${cluster} into ${store.spec}`);
    if (flags.into !== LIVE_LOG) console.log(`read it with --store ${store.spec} (the live log is untouched)`);
  } finally {
    await store.close();
  }
}
