// A reconcile key names one object in one cluster. Messages carry keys, never objects:
// handlers are level-triggered and always read current state.

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
// cluster and kind are ours to choose; namespace and name follow Kubernetes (DNS-1123), which never contain '/'.
const SEGMENT = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** `cluster/kind/namespace/name`; the namespace is empty for cluster-scoped objects. */
export function keyString(key: ReconcileKey): string {
  return [key.cluster, key.kind, key.namespace, key.name].join(SEPARATOR);
}

export function parseKey(raw: string): ReconcileKey {
  if (typeof raw !== 'string') throw new MalformedKeyError(String(raw), 'not a string');
  const parts = raw.split(SEPARATOR);
  if (parts.length !== 4) throw new MalformedKeyError(raw, `want 4 '/'-separated parts, got ${parts.length}`);
  const [cluster, kind, namespace, name] = parts as [string, string, string, string];
  for (const [field, value] of [
    ['cluster', cluster],
    ['kind', kind],
    ['name', name],
  ] as const) {
    if (!SEGMENT.test(value)) throw new MalformedKeyError(raw, `${field} ${JSON.stringify(value)} is not a valid name`);
  }
  if (namespace !== '' && !SEGMENT.test(namespace)) {
    throw new MalformedKeyError(raw, `namespace ${JSON.stringify(namespace)} is not a valid name`);
  }
  return { cluster, kind, namespace, name };
}
