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
// Redaction, on by default (redact below); what was taken is listed in the object's `fleetqRedacted`:
// - a Secret is never written (its record is dropped whole);
// - a ConfigMap loses data and binaryData, unless its cluster opts in with the registry's
//   `eventLog: { configMapData: true }`;
// - every object loses the kubectl last-applied-configuration annotation (it repeats the object: ConfigMap data,
//   env values), except the ConfigMap of a cluster that opted in;
// - every pod spec, wherever it sits in the object (a Pod's spec; a workload's template, a CronJob's job template,
//   a ControllerRevision's data; a custom resource's templates, e.g. each of a JobSet's replicated Jobs), has each
//   env `value` of its containers, initContainers and ephemeralContainers replaced by
//   `fleetq-redacted:<digest>`; `name` and `valueFrom` are kept. A pod spec is found by its shape (an object with
//   one of those container lists), not by the object's kind, so a kind fleetq has never heard of is redacted too;
//   the walk stops at a nesting depth no API object reaches (MAX_WALK_DEPTH), so a hostile, deeply nested object
//   cannot exhaust the stack.
// The digest (HMAC-SHA256 of cluster and value, 16 hex digits) keeps replay deciding as live did: the planners
// compare templates (a Deployment's with its ReplicaSets', EqualIgnoreHash; a DaemonSet's or StatefulSet's with
// its ControllerRevisions' data), and the same value gives the same marker in every object of a cluster, a
// changed value a changed one. What replay cannot reproduce is a hash computed from a redacted template
// (pod-template-hash, a revision's name): it differs from the live one, which only names an object replay
// plans to create; both builds of a shadow run compute the same one, and existing objects are found by
// template, never by a recomputed hash. The digest is keyed (RedactionPolicy.envDigestKey; forwarders derive
// the key from FLEETQ_SIGNING_SECRET) so that a log reader cannot test guesses of a value; without a key it is a
// plain digest, open to guessing of short values.
import { createHmac } from 'node:crypto';
import { boundedEventJson, isLoggedEvent, type LoggedEvent, type LoggedEventType } from './logged-event.js';

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
  /** The key of env value digests; default none (a plain digest). Change it and digests change with it. */
  readonly envDigestKey?: string;
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

/** The event as it may be logged: null for a Secret; otherwise the object redacted (see the header). */
export function redact(event: LoggedEvent, policy: RedactionPolicy = {}): LoggedEvent | null {
  if (isSecret(event)) return null;
  if (typeof event.object !== 'object' || event.object === null || Array.isArray(event.object)) return event;
  const keepData = isConfigMap(event) && policy.keepConfigMapData?.(event.cluster) === true;
  if (keepData) return event;
  let object = event.object as Record<string, unknown>;
  const dropped: string[] = [];
  if (isConfigMap(event)) {
    const { data, binaryData, ...rest } = object;
    if (data !== undefined) dropped.push('data');
    if (binaryData !== undefined) dropped.push('binaryData');
    object = rest;
  }
  const metadata = object.metadata;
  const annotations = isRecord(metadata) ? metadata.annotations : undefined;
  if (isRecord(metadata) && isRecord(annotations) && LAST_APPLIED in annotations) {
    const { [LAST_APPLIED]: _dropped, ...kept } = annotations;
    object = { ...object, metadata: { ...metadata, annotations: kept } };
    dropped.push(`metadata.annotations.${LAST_APPLIED}`);
  }
  const digest = envDigest(event.cluster, policy.envDigestKey);
  const walked = redactEnvWithin(object, digest, 0);
  if (walked !== object) {
    object = walked as Record<string, unknown>;
    dropped.push(ENV_VALUES);
  }
  if (dropped.length === 0) return event;
  const already = Array.isArray(object.fleetqRedacted) ? (object.fleetqRedacted as unknown[]) : [];
  return { ...event, object: { ...object, fleetqRedacted: [...already, ...dropped] } };
}

/** What `fleetqRedacted` says of env values replaced by digests. */
export const ENV_VALUES = 'env.value';
/** How an env value's replacement starts. */
export const ENV_VALUE_MARKER = 'fleetq-redacted:';

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deeper than any pod spec of an API object (a JobSet's is 6 levels down); a walk does not go past it. */
export const MAX_WALK_DEPTH = 32;

/**
 * `value` with the env values of every pod spec within it replaced by digests; the same value (by reference) when
 * nothing changed. A record holding a container list is a pod spec; the walk goes on into every record and array.
 */
function redactEnvWithin(value: unknown, digest: (value: string) => string, depth: number): unknown {
  if (depth > MAX_WALK_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const next = redactEnvWithin(item, digest, depth + 1);
      if (next !== item) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  let out: Record<string, unknown> = CONTAINER_LISTS.some((list) => Array.isArray(value[list]))
    ? redactPodSpecEnv(value, digest)
    : value;
  for (const [key, child] of Object.entries(out)) {
    if ((CONTAINER_LISTS as readonly string[]).includes(key)) continue;
    const next = redactEnvWithin(child, digest, depth + 1);
    if (next !== child) out = { ...out, [key]: next };
  }
  return out;
}

/** The pod spec with every container's env values replaced by digests; the same spec when none has a value. */
function redactPodSpecEnv(spec: Record<string, unknown>, digest: (value: string) => string): Record<string, unknown> {
  let out = spec;
  for (const list of CONTAINER_LISTS) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    let changed = false;
    const next = containers.map((c: unknown) => {
      if (!isRecord(c) || !Array.isArray(c.env)) return c;
      let envChanged = false;
      const env = c.env.map((e: unknown) => {
        if (!isRecord(e) || typeof e.value !== 'string' || e.value === '') return e;
        envChanged = true;
        return { ...e, value: digest(e.value) };
      });
      if (!envChanged) return c;
      changed = true;
      return { ...c, env };
    });
    if (changed) out = { ...out, [list]: next };
  }
  return out;
}

/** The marker of an env value: the same value of one cluster always gives the same marker. */
function envDigest(cluster: string, key: string | undefined): (value: string) => string {
  return (value) =>
    ENV_VALUE_MARKER +
    createHmac('sha256', key ?? 'fleetq event log')
      .update(`${cluster}\0${value}`)
      .digest('hex')
      .slice(0, 16);
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
