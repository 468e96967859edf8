// A reconcile key names one object in one cluster. Messages carry keys, never objects:
// handlers are level-triggered and always read current state.
//
// Keys are validated where they are made (the forwarder, from untrusted cluster data) and where they are read
// back (parseKey, from queue messages), by one function, validateKey. The limits fit every queue driver:
//   cluster   our own name (the registry's): [A-Za-z0-9] with '.', '_', '-' inside, at most 63 characters
//   kind      the same rule, at most 63
//   namespace empty (cluster-scoped) or a DNS-1123 label: at most 63
//   name      a DNS-1123 subdomain (what Kubernetes allows for every kind fleetq keys): at most 253
//   the whole `cluster/kind/namespace/name` string: at most MAX_KEY_LENGTH (512) characters
// Drivers with tighter limits of their own (an SQS MessageGroupId is at most 128) map the key themselves.

export type ReconcileKey = {
  readonly cluster: string;
  readonly kind: string;
  /** Empty for cluster-scoped kinds. */
  readonly namespace: string;
  readonly name: string;
};

export class MalformedKeyError extends Error {
  constructor(
    readonly raw: string,
    reason: string,
  ) {
    super(`malformed reconcile key ${JSON.stringify(raw.slice(0, 200))}: ${reason}`);
    this.name = 'MalformedKeyError';
  }
}

const SEPARATOR = '/';
/** The longest key string any driver is given. */
export const MAX_KEY_LENGTH = 512;
const MAX_SEGMENT = 63;
const MAX_NAME = 253;
// cluster and kind are ours to choose.
const SEGMENT = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;
// Kubernetes: namespace is a DNS-1123 label, an object name a DNS-1123 subdomain (labels joined by '.').
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** `cluster/kind/namespace/name`; the namespace is empty for cluster-scoped objects. */
export function keyString(key: ReconcileKey): string {
  return [key.cluster, key.kind, key.namespace, key.name].join(SEPARATOR);
}

/** Why `key` is not a valid reconcile key, or null when it is. Never throws, whatever it is given. */
export function validateKey(key: ReconcileKey): string | null {
  if (typeof key !== 'object' || key === null) return 'not a key object';
  const fields = [
    ['cluster', key.cluster, SEGMENT, MAX_SEGMENT, false],
    ['kind', key.kind, SEGMENT, MAX_SEGMENT, false],
    ['namespace', key.namespace, DNS_LABEL, MAX_SEGMENT, true],
    ['name', key.name, DNS_SUBDOMAIN, MAX_NAME, false],
  ] as const;
  for (const [field, value, pattern, max, mayBeEmpty] of fields) {
    if (typeof value !== 'string') return `${field} is not a string`;
    if (value === '' && mayBeEmpty) continue;
    if (value.length > max) return `${field} is ${value.length} characters long (at most ${max})`;
    if (!pattern.test(value)) return `${field} ${JSON.stringify(value)} is not a valid name`;
  }
  const length = keyString(key).length;
  if (length > MAX_KEY_LENGTH) return `key is ${length} characters long (at most ${MAX_KEY_LENGTH})`;
  return null;
}

export function parseKey(raw: string): ReconcileKey {
  if (typeof raw !== 'string') throw new MalformedKeyError(String(raw), 'not a string');
  if (raw.length > MAX_KEY_LENGTH) {
    throw new MalformedKeyError(raw, `key is ${raw.length} characters long (at most ${MAX_KEY_LENGTH})`);
  }
  const parts = raw.split(SEPARATOR);
  if (parts.length !== 4) throw new MalformedKeyError(raw, `want 4 '/'-separated parts, got ${parts.length}`);
  const [cluster, kind, namespace, name] = parts as [string, string, string, string];
  const key = { cluster, kind, namespace, name };
  const reason = validateKey(key);
  if (reason !== null) throw new MalformedKeyError(raw, reason);
  return key;
}
