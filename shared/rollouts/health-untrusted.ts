// Reading the objects of a cluster as untrusted data, for the health reading (health.ts): any field may be missing
// or of another type, a list may be anything, a label may be a number or a megabyte of text. Nothing here throws;
// a field of the wrong type reads as absent.

export type Json = Record<string, unknown>;

/** The longest text taken from an object into a reason or a message: a DNS subdomain name's limit. */
export const MAX_NAME = 253;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function recordOf(value: unknown): Json {
  return isRecord(value) ? value : {};
}

/** The objects of a list (anything else in it is dropped; a list that is not one is empty). */
export function recordsOf(value: unknown): Json[] {
  return Array.isArray(value) ? (value as unknown[]).filter(isRecord) : [];
}

/** A string field, cut to `max` characters; '' when it is not a string. */
export function text(value: unknown, max = MAX_NAME): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/** A whole-number field (int32/int64 counts and generations); 0 when it is not a finite number. */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0;
}

/** spec.replicas: the API default (1) when absent, null when it is not a whole number from 0 to MaxInt32. */
export function replicasOf(spec: Json): number | null {
  const v = spec.replicas;
  if (v === undefined || v === null) return 1;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 2147483647 ? v : null;
}

/** A label's value, uncut (a longer one can match nothing a controller writes); '' when absent or not a string. */
export function labelOf(object: unknown, key: string): string {
  const labels = recordOf(recordOf(recordOf(object).metadata).labels);
  const v = labels[key];
  return typeof v === 'string' ? v : '';
}

/**
 * A label that names a revision (pod-template-hash, controller-revision-hash): '' when absent; a value longer than
 * a label value may be (63) throws, so that the reading guard reports the object as malformed rather than gating
 * on a cut name.
 */
export function revisionLabelOf(object: unknown, key: string): string {
  const v = labelOf(object, key);
  if (v.length > 63) throw new Error(`label ${key} is longer than 63 characters`);
  return v;
}

/** One line, at most `max` characters: a message from a cluster made safe to put into a reason. */
export function oneLine(value: unknown, max = 200): string {
  return [...text(value, max)].map((c) => (isControl(c) ? ' ' : c)).join('');
}

/**
 * An object with metadata, spec and status made objects (the rest as given): what the controllers' helpers may
 * read without a type check at every step. Nested fields stay as they came; the callers guard what they read.
 */
export function withSections<T>(object: Json): T {
  return {
    ...object,
    metadata: recordOf(object.metadata),
    spec: recordOf(object.spec),
    status: recordOf(object.status),
  } as T;
}

function isControl(c: string): boolean {
  const code = c.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}

export function errorText(err: unknown): string {
  return oneLine(err instanceof Error ? err.message : String(err));
}
