// Read-your-writes, part 1: what a reconcile wrote. KubeRest reports every successful write to the write
// observer of the reconcile it runs in (kube/write-observer.ts: AsyncLocalStorage, so concurrent reconciles of
// one process never mix), which is this tracker for the length of trackWrites; at the end of the run the record
// is stored per reconcile key, and the key's next run waits until the cache has passed it (cached-cluster-view.ts).
import { RESOURCES } from '../kube/resources.js';
import { observeWrites, type WriteObserver } from '../kube/write-observer.js';
import type { WriteRecord } from './cache-store.js';
import { maxResourceVersion } from './resource-version.js';

type Written = { kind?: unknown; metadata?: { resourceVersion?: unknown; uid?: unknown } };

export class WriteTracker implements WriteObserver {
  private readonly resourceVersions: Record<string, string> = {};
  private readonly deleted: Array<{ kind: string; namespace: string; name: string; uid: string }> = [];

  /** A write the apiserver accepted: `response` is its body (the object written, or a Status). */
  noteWrite(method: string, path: string, requestBody: unknown, response: unknown): void {
    const written = (typeof response === 'object' && response !== null ? response : {}) as Written;
    const target = parsePath(path);
    const kind = typeof written.kind === 'string' && written.kind !== 'Status' ? written.kind : target?.kind;
    const rv = written.metadata?.resourceVersion;
    if (kind !== undefined && typeof rv === 'string' && rv !== '') {
      this.resourceVersions[kind] = maxResourceVersion(this.resourceVersions[kind], rv) ?? rv;
    }
    if (method === 'DELETE' && target?.name !== undefined) {
      const uid = (requestBody as { preconditions?: { uid?: unknown } } | undefined)?.preconditions?.uid;
      if (typeof uid === 'string' && uid !== '') {
        this.deleted.push({ kind: target.kind, namespace: target.namespace, name: target.name, uid });
      }
    }
  }

  record(): WriteRecord | null {
    if (Object.keys(this.resourceVersions).length === 0 && this.deleted.length === 0) return null;
    return { resourceVersions: { ...this.resourceVersions }, deleted: [...this.deleted] };
  }
}

/** Runs fn with `tracker` receiving every write made inside it. */
export function trackWrites<T>(tracker: WriteTracker, fn: () => Promise<T>): Promise<T> {
  return observeWrites(tracker, fn);
}

const BY_PLURAL = new Map(Object.values(RESOURCES).map((r) => [`${r.group}/${r.plural}`, r.kind]));

/** /api/v1/namespaces/ns/pods/name[/status] or /apis/apps/v1/namespaces/ns/replicasets/name → its parts. */
function parsePath(path: string): { kind: string; namespace: string; name?: string } | undefined {
  const parts = path.split('?')[0]?.split('/').filter(Boolean) ?? [];
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : undefined;
  if (rest === undefined) return undefined;
  const group = parts[0] === 'api' ? '' : (parts[1] ?? '');
  let namespace = '';
  let i = 0;
  if (rest[0] === 'namespaces' && rest.length > 2) {
    namespace = decodeURIComponent(rest[1] ?? '');
    i = 2;
  }
  const kind = BY_PLURAL.get(`${group}/${rest[i] ?? ''}`);
  if (kind === undefined) return undefined;
  const name = rest[i + 1] === undefined ? undefined : decodeURIComponent(rest[i + 1] as string);
  return { kind, namespace, ...(name !== undefined && { name }) };
}
