// `fleetq log import`: records from a file into a store, in batches per cluster, streamed.
//
// A log file is untrusted input. Every record is checked before anything is written (checkImportFile): the
// cluster as the registry names clusters, the resource and kind, the object's namespace and name as Kubernetes
// allows them, and its time (never more than MAX_FUTURE_SKEW_MS ahead of now: a record dated years ahead would
// push a stream's ids past every live entry). A file with a bad record is refused whole, each bad record named by
// its line, unless the caller asks to skip bad records (then only the good ones are imported). Records go into a
// named log (log-store.ts importLogName), never the live one unless it is asked for by name.
//
// An import is all or nothing: a file that is not a log (missing, empty, binary, no record in it) is refused
// before anything is read into the store; a store that already holds records of one of the file's clusters is
// refused before anything is written (unless replace); the records go in through an ImportTransaction
// (import-transaction.ts), put in place together at the end.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { isDnsLabel, isDnsSubdomain } from '../kube/names.js';
import { decodeRecord, LogFormatError, type LogRecord } from '../queue/history/log-record.js';
import { ImportConflictError } from './import-transaction.js';
import { checkLogInput, noRecordsMessage } from './log-input.js';
import type { LogStore } from './log-store.js';

const BATCH = 500;
/** How far ahead of this machine's clock a record may be dated (clock skew between machines). */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;
/** Before this, no Kubernetes event was ever observed (the project's first commit was in 2014). */
const EARLIEST_MS = Date.UTC(2014, 0, 1);
/** A registry cluster name (shared/kube/registry.ts), at most 63 characters: also a path segment and a key part. */
const CLUSTER = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
/** An API resource, plural and lowercase (`pods`, `deployments`, `controllerrevisions`). */
const RESOURCE = /^[a-z][a-z0-9]*$/;
/** An object's kind (`Deployment`). */
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const MAX_RESOURCE_VERSION = 128;
/** Bad records named one by one in a refusal; the rest are counted. */
const MAX_LISTED = 20;

/** Why `r` may not be imported, or null when it may. `now` is this machine's clock (epoch ms). */
export function importProblem(r: LogRecord, now: number): string | null {
  if (typeof r.cluster !== 'string' || r.cluster.length > 63 || !CLUSTER.test(r.cluster)) {
    return `cluster ${JSON.stringify(String(r.cluster).slice(0, 80))} is not a cluster name (lowercase letters, digits, '-' and '.', at most 63)`;
  }
  if (r.resource.length > 63 || !RESOURCE.test(r.resource)) {
    return `resource ${JSON.stringify(r.resource.slice(0, 80))} is not an API resource (lowercase plural, e.g. deployments)`;
  }
  if (!Number.isSafeInteger(r.observedAt))
    return `observedAt ${JSON.stringify(r.observedAt)} is not epoch milliseconds`;
  if (r.observedAt < EARLIEST_MS) {
    return `observedAt ${r.observedAt} (${new Date(r.observedAt).toISOString()}) is before 2014: not epoch milliseconds?`;
  }
  if (r.observedAt > now + MAX_FUTURE_SKEW_MS) {
    return `observedAt ${new Date(r.observedAt).toISOString()} is in the future (more than ${MAX_FUTURE_SKEW_MS / 60_000} min ahead of this machine's clock)`;
  }
  if (r.resourceVersion.length > MAX_RESOURCE_VERSION || /[^\x21-\x7e]/.test(r.resourceVersion)) {
    return 'resourceVersion is not a resource version (printable, at most 128 characters)';
  }
  return objectProblem(r.object);
}

function objectProblem(object: unknown): string | null {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return 'object is not an object';
  const o = object as { kind?: unknown; metadata?: unknown };
  if (o.kind !== undefined && (typeof o.kind !== 'string' || o.kind.length > 63 || !KIND.test(o.kind))) {
    return `kind ${JSON.stringify(String(o.kind).slice(0, 80))} is not a kind (e.g. Deployment)`;
  }
  const m = o.metadata;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return 'object has no metadata';
  const { name, namespace, uid } = m as { name?: unknown; namespace?: unknown; uid?: unknown };
  if (!isDnsSubdomain(name)) {
    return `metadata.name ${JSON.stringify(String(name).slice(0, 80))} is not a Kubernetes name (DNS-1123 subdomain, at most 253)`;
  }
  if (namespace !== undefined && namespace !== '' && !isDnsLabel(namespace)) {
    return `metadata.namespace ${JSON.stringify(String(namespace).slice(0, 80))} is not a namespace name (DNS-1123 label, at most 63)`;
  }
  if (uid !== undefined && (typeof uid !== 'string' || uid.length > 128)) return 'metadata.uid is not a uid';
  return null;
}

/** One line of an import file: its record, or why it cannot be imported. */
export type ImportLine =
  | { readonly line: number; readonly record: LogRecord; readonly problem?: undefined }
  | { readonly line: number; readonly problem: string };

/** The file's records with their line numbers, each checked (not JSON, an unknown version or a bad field: problem). */
export async function* importLines(path: string, now: number): AsyncIterable<ImportLine> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let record: LogRecord;
    try {
      record = decodeRecord(text, `${path}:${line}`);
    } catch (err) {
      if (!(err instanceof LogFormatError)) throw err;
      yield { line, problem: err.message.replace(`${path}:${line}: `, '') };
      continue;
    }
    const problem = importProblem(record, now);
    yield problem === null ? { line, record } : { line, problem };
  }
}

export type ImportCheck = {
  readonly records: number;
  readonly bad: number;
  /** The clusters of the good records, sorted. */
  readonly clusters: readonly string[];
  /** The first MAX_LISTED bad records: `line N: why`. */
  readonly listed: readonly string[];
};

/** Reads the whole file once and counts its good and bad records; writes nothing. */
export async function checkImportFile(path: string, now: number): Promise<ImportCheck> {
  let records = 0;
  let bad = 0;
  const listed: string[] = [];
  const clusters = new Set<string>();
  for await (const l of importLines(path, now)) {
    if (l.problem === undefined) {
      records++;
      clusters.add(l.record.cluster);
      continue;
    }
    bad++;
    if (listed.length < MAX_LISTED) listed.push(`line ${l.line}: ${l.problem}`);
  }
  return { records, bad, clusters: [...clusters].sort(), listed };
}

export class ImportRefusedError extends Error {
  override name = 'ImportRefusedError';
}

/** The bad records of a check, one line each (the first MAX_LISTED, then how many more). */
export function badRecordLines(check: ImportCheck): string[] {
  const more = check.bad - check.listed.length;
  return [...check.listed.map((l) => `  ${l}`), ...(more > 0 ? [`  … and ${more} more`] : [])];
}

/** What an operator reads when a file is refused: where each bad record is, and what to do. */
export function refusal(path: string, check: ImportCheck): string {
  return [
    `${path}: ${check.bad} bad record(s), nothing imported:`,
    ...badRecordLines(check),
    'Fix or remove those lines, or run again with --skip-bad to import only the good records.',
  ].join('\n');
}

/**
 * Imports the file's records into `store`: first the whole file is checked; a file that is not a log (empty,
 * binary, no good record) is refused (LogInputError or ImportRefusedError), and with any bad record the import is
 * refused unless skipBad, which imports only the good ones. A store holding records of one of the file's
 * clusters refuses it (ImportConflictError) unless replace. Nothing is written when refused. Returns the records
 * imported per cluster and the check.
 */
export async function importLogFile(
  path: string,
  store: LogStore,
  o: { readonly now: number; readonly skipBad?: boolean; readonly replace?: boolean },
): Promise<{ imported: Map<string, number>; check: ImportCheck }> {
  await checkLogInput(path);
  const check = await checkImportFile(path, o.now);
  if (check.records === 0) {
    throw new ImportRefusedError(`${noRecordsMessage(path, check.bad, check.listed[0])}; nothing imported`);
  }
  if (check.bad > 0 && !o.skipBad) throw new ImportRefusedError(refusal(path, check));
  if (!o.replace) {
    const held = new Set(await store.clusters());
    const conflicts = check.clusters.filter((c) => held.has(c));
    if (conflicts.length > 0) throw new ImportConflictError(store.spec, conflicts);
  }
  const imported = await importLog(goodRecords(path, o.now), store, { replace: o.replace ?? false });
  return { imported, check };
}

async function* goodRecords(path: string, now: number): AsyncIterable<LogRecord> {
  for await (const l of importLines(path, now)) if (l.problem === undefined) yield l.record;
}

/**
 * Imports every record as given (checked by the caller), all or none: a failure, or a store already holding
 * records of one of the clusters (ImportConflictError, unless replace), leaves the store as it was. Returns how
 * many per cluster.
 */
export async function importLog(
  records: AsyncIterable<LogRecord>,
  store: LogStore,
  o: { readonly replace: boolean } = { replace: false },
): Promise<Map<string, number>> {
  const txn = store.beginImport(o);
  const pending = new Map<string, LogRecord[]>();
  const imported = new Map<string, number>();
  const flush = async (cluster: string): Promise<void> => {
    const batch = pending.get(cluster) ?? [];
    if (batch.length === 0) return;
    pending.set(cluster, []);
    imported.set(cluster, (imported.get(cluster) ?? 0) + (await txn.write(cluster, batch)));
  };
  try {
    for await (const r of records) {
      let batch = pending.get(r.cluster);
      if (!batch) pending.set(r.cluster, (batch = []));
      batch.push(r);
      if (batch.length >= BATCH) await flush(r.cluster);
    }
    for (const cluster of pending.keys()) await flush(cluster);
    await txn.commit();
  } catch (err) {
    await txn.abort();
    throw err;
  }
  return imported;
}
