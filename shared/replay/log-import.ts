// `fleetq log import`: records from a file into a store, in batches per cluster, streamed.
import type { LogRecord } from '../queue/history/log-record.js';
import type { LogStore } from './log-store.js';

const BATCH = 500;

/** Imports every record; returns how many per cluster. */
export async function importLog(records: AsyncIterable<LogRecord>, store: LogStore): Promise<Map<string, number>> {
  const pending = new Map<string, LogRecord[]>();
  const imported = new Map<string, number>();
  const flush = async (cluster: string): Promise<void> => {
    const batch = pending.get(cluster) ?? [];
    if (batch.length === 0) return;
    pending.set(cluster, []);
    imported.set(cluster, (imported.get(cluster) ?? 0) + (await store.importRecords(cluster, batch)));
  };
  for await (const r of records) {
    let batch = pending.get(r.cluster);
    if (!batch) pending.set(r.cluster, (batch = []));
    batch.push(r);
    if (batch.length >= BATCH) await flush(r.cluster);
  }
  for (const cluster of pending.keys()) await flush(cluster);
  return imported;
}
