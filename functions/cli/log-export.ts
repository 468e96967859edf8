// `fleetq log export`: a cluster's records in a window, from a store to a JSON-lines file (or stdout).
import { writeLogFile } from '../../shared/replay/log-file.js';
import { openStoreFlag, requireCluster, windowFlags } from './replay-common.js';

export type LogExportFlags = {
  readonly cluster: string;
  readonly since?: string;
  readonly until?: string;
  readonly out: string;
  readonly store?: string;
};

export async function logExport(flags: LogExportFlags): Promise<void> {
  const { fromMs, toMs } = await windowFlags(flags.since, flags.until);
  const store = await openStoreFlag(flags.store);
  try {
    await requireCluster(store, flags.cluster);
    const n = await writeLogFile(flags.out, store.read(flags.cluster, fromMs, toMs));
    const to = flags.out === '-' ? '' : ` to ${flags.out}`;
    console.error(`fleetq: exported ${n} record(s) of ${flags.cluster} from ${store.spec}${to}`);
  } finally {
    await store.close();
  }
}
