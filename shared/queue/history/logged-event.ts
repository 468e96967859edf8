// One entry of the event log (event-log.ts): a watch event as the forwarder saw it, its object trimmed of
// metadata.managedFields (trimObject), and its JSON line bounded in size when stored (boundedEventJson). The
// record format the drivers store is built on it (log-record.ts).
export type LoggedEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'LISTED';

export type LoggedEvent = {
  readonly type: LoggedEventType;
  readonly cluster: string;
  /** The API resource, e.g. `pods`. */
  readonly resource: string;
  /** Epoch ms when the forwarder observed it. */
  readonly observedAt: number;
  readonly object: unknown;
};

/** A copy of `object` without metadata.managedFields (the bulk of most objects, and useless for replay). */
export function trimObject<T>(object: T): T {
  if (typeof object !== 'object' || object === null) return object;
  const metadata = (object as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null || !('managedFields' in metadata)) return object;
  const { managedFields: _dropped, ...rest } = metadata as Record<string, unknown>;
  return { ...object, metadata: rest };
}

export function isLoggedEvent(value: unknown): value is LoggedEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.type === 'string' &&
    typeof v.cluster === 'string' &&
    typeof v.resource === 'string' &&
    typeof v.observedAt === 'number'
  );
}

/** Default cap on one logged entry (JSON bytes): larger objects are logged as a truncated stub. */
export const DEFAULT_MAX_ENTRY_BYTES = 16 * 1024;

/** What replaces an object too large to log: its identity, and how large it was. */
export type TruncatedObject = {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly fleetqTruncated: { readonly bytes: number; readonly maxBytes: number };
};

const KEPT_METADATA = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'deletionTimestamp'] as const;

/**
 * The event's JSON line, at most about maxBytes: an entry whose JSON is larger keeps its type, cluster,
 * resource and time, and its object is replaced by a stub (apiVersion, kind, identity metadata and a
 * `fleetqTruncated: { bytes, maxBytes }` marker). So a log of N entries holds at most ~N × maxBytes however
 * large the objects are. maxBytes 0 disables the cap.
 */
export function boundedEventJson(event: LoggedEvent, maxBytes: number): string {
  const json = JSON.stringify(event);
  if (maxBytes <= 0 || Buffer.byteLength(json, 'utf8') <= maxBytes) return json;
  const o = (typeof event.object === 'object' && event.object !== null ? event.object : {}) as Record<string, unknown>;
  const metadata = (typeof o.metadata === 'object' && o.metadata !== null ? o.metadata : {}) as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const k of KEPT_METADATA) if (metadata[k] !== undefined) kept[k] = metadata[k];
  const stub: TruncatedObject = {
    ...(o.apiVersion === undefined ? {} : { apiVersion: o.apiVersion }),
    ...(o.kind === undefined ? {} : { kind: o.kind }),
    metadata: kept,
    fleetqTruncated: { bytes: Buffer.byteLength(json, 'utf8'), maxBytes },
  };
  const line = JSON.stringify({ ...event, object: stub });
  // Names are bounded (253 bytes each), so the stub is small; guard against a pathological one anyway.
  return Buffer.byteLength(line, 'utf8') <= maxBytes
    ? line
    : JSON.stringify({ ...event, object: { fleetqTruncated: stub.fleetqTruncated } });
}

/** True when a logged object is a stub left by boundedEventJson. */
export function isTruncatedObject(object: unknown): object is TruncatedObject {
  return typeof object === 'object' && object !== null && 'fleetqTruncated' in object;
}
