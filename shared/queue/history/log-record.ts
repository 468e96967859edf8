// The event log's record format, version 1: one JSON object per record, the same text in a Redis stream entry
// (field `e`) and on a line of a JSON-lines file, so a JSON-lines export of a stream is a valid file log.
//
//   {"v":1,"cluster":"fleetq-2","resource":"pods","type":"MODIFIED","resourceVersion":"4711",
//    "observedAt":1764763200000,"object":{...}}
//
//   v                the format version; a reader refuses any other value (LogFormatError)
//   cluster          the registry name of the cluster the event came from
//   resource         the API resource, plural (`pods`, `deployments`, …)
//   type             ADDED | MODIFIED | DELETED, or LISTED: one record per object of a relist, the baseline a
//                    replay starts from (all records of one relist share their observedAt)
//   resourceVersion  the object's metadata.resourceVersion ('' when it has none)
//   observedAt       epoch ms when the forwarder saw the event
//   object           the object, trimmed of metadata.managedFields; redacted (below); a stub with a
//                    `fleetqTruncated` marker when larger than the entry cap (event-log.ts boundedEventJson)
//
// Redaction, on by default: a Secret is never written (its record is dropped whole); a ConfigMap loses data,
// binaryData and the kubectl last-applied-configuration annotation (which repeats them), and carries
// `fleetqRedacted: ["data", …]` instead, unless its cluster opts in with the registry's
// `eventLog: { configMapData: true }`.
import { boundedEventJson, isLoggedEvent, type LoggedEvent, type LoggedEventType } from './event-log.js';

export const LOG_FORMAT_VERSION = 1;

/** A record as stored: a LoggedEvent with its format version and the object's resourceVersion. */
export type LogRecord = LoggedEvent & { readonly v: typeof LOG_FORMAT_VERSION; readonly resourceVersion: string };

/** A record the reader cannot take: an unknown format version, or not a record at all. */
export class LogFormatError extends Error {
  override name = 'LogFormatError';
  /** True for a record that is not one at all (not JSON, fields missing); false for a version this reader refuses. */
  constructor(
    message: string,
    readonly malformed = false,
  ) {
    super(message);
  }
}

/**
 * What a reader does with a malformed record (a line that is not JSON, a record without its fields): by default it
 * throws; given this, it reports the error and goes on. A record of an unknown format version always throws.
 */
export type OnMalformed = (err: LogFormatError) => void;

/** decodeRecord, except that a malformed record goes to `onMalformed` (when given) and gives undefined. */
export function decodeOrSkip(json: string, where: string, onMalformed?: OnMalformed): LogRecord | undefined {
  try {
    return decodeRecord(json, where);
  } catch (err) {
    if (onMalformed && err instanceof LogFormatError && err.malformed) {
      onMalformed(err);
      return undefined;
    }
    throw err;
  }
}

export type RedactionPolicy = {
  /** Clusters whose ConfigMap data is logged (registry `eventLog.configMapData: true`); default none. */
  readonly keepConfigMapData?: (cluster: string) => boolean;
};

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const EVENT_TYPES: ReadonlySet<LoggedEventType> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'LISTED']);

function kindOf(event: LoggedEvent): string | undefined {
  const kind = (event.object as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' ? kind : undefined;
}

export function isSecret(event: LoggedEvent): boolean {
  return event.resource === 'secrets' || kindOf(event) === 'Secret';
}

function isConfigMap(event: LoggedEvent): boolean {
  return event.resource === 'configmaps' || kindOf(event) === 'ConfigMap';
}

/** The event as it may be logged: null for a Secret; a ConfigMap without its data unless the cluster opts in. */
export function redact(event: LoggedEvent, policy: RedactionPolicy = {}): LoggedEvent | null {
  if (isSecret(event)) return null;
  if (!isConfigMap(event) || policy.keepConfigMapData?.(event.cluster) === true) return event;
  if (typeof event.object !== 'object' || event.object === null) return event;
  const { data, binaryData, ...rest } = event.object as Record<string, unknown>;
  const dropped = [...(data === undefined ? [] : ['data']), ...(binaryData === undefined ? [] : ['binaryData'])];
  const metadata = (rest.metadata ?? {}) as Record<string, unknown>;
  const annotations = metadata.annotations as Record<string, unknown> | undefined;
  let object: Record<string, unknown> = rest;
  if (annotations !== undefined && typeof annotations === 'object' && LAST_APPLIED in annotations) {
    const { [LAST_APPLIED]: _dropped, ...kept } = annotations;
    object = { ...rest, metadata: { ...metadata, annotations: kept } };
    dropped.push(`metadata.annotations.${LAST_APPLIED}`);
  }
  return { ...event, object: dropped.length === 0 ? object : { ...object, fleetqRedacted: dropped } };
}

function resourceVersionOf(object: unknown): string {
  const rv = (object as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
  return typeof rv === 'string' ? rv : '';
}

/** The record's JSON (redacted, capped at maxBytes), or null when the event is not logged (a Secret). */
export function encodeRecord(event: LoggedEvent, maxBytes: number, policy: RedactionPolicy = {}): string | null {
  const redacted = redact(event, policy);
  if (redacted === null) return null;
  const record: LogRecord = {
    v: LOG_FORMAT_VERSION,
    cluster: redacted.cluster,
    resource: redacted.resource,
    type: redacted.type,
    resourceVersion: resourceVersionOf(redacted.object),
    observedAt: redacted.observedAt,
    object: redacted.object,
  };
  return boundedEventJson(record, maxBytes);
}

/** Parses one record, refusing an unknown format version or a malformed record; `where` names it in errors. */
export function decodeRecord(json: string, where: string): LogRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new LogFormatError(`${where}: not JSON (${err instanceof Error ? err.message : String(err)})`, true);
  }
  const v = (parsed as { v?: unknown } | null)?.v;
  if (v !== LOG_FORMAT_VERSION) {
    throw new LogFormatError(
      v === undefined
        ? `${where}: record has no format version "v" (written before log format v1, or not an event log); this reader knows v${LOG_FORMAT_VERSION}`
        : `${where}: log format version ${JSON.stringify(v)} is unknown; this reader knows v${LOG_FORMAT_VERSION} (a newer fleetq wrote it?)`,
    );
  }
  if (!isLoggedEvent(parsed) || !EVENT_TYPES.has(parsed.type)) {
    throw new LogFormatError(`${where}: not a v1 record (needs cluster, resource, type, observedAt, object)`, true);
  }
  const record = parsed as LoggedEvent & { resourceVersion?: unknown };
  return { ...record, v: LOG_FORMAT_VERSION, resourceVersion: String(record.resourceVersion ?? '') } as LogRecord;
}
