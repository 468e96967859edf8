// What the cache keeps of one object, and the index entries it is filed under: derived by pure functions,
// so the in-process store, the Redis store and replay (which runs applyEvent over the event log) file every
// object the same way.
//
// Kept per kind: every object as the apiserver sent it, less metadata.managedFields and the
// kubectl.kubernetes.io/last-applied-configuration annotation (neither is read by any controller). Pod specs
// are kept whole for now: adoption and release still write pods by full PUT of the observed object, so a
// trimmed spec would be written back (and refused: a pod's spec is immutable). Once adopt/release go by
// patch, a pod's spec can be trimmed to what the planners read (nodeName, sidecar restartPolicy, affinity).
//
// Indexes: by namespace (kind + namespace), by controller owner uid (kind + owner uid: the owner's
// dependents), orphans (kind + namespace: objects with no controller reference, which a selector may adopt)
// by node (Pods: spec.nodeName) and terminating (kind + namespace: objects with metadata.deletionTimestamp, which a
// finalizer may still hold; the Job controller removes its tracking finalizer from a terminating pod whose controller
// reference names a Job of that name and another uid, as upstream's orphan-pod worker does).
//
// Kept states: a few states that a controller must act on even when a later event has replaced them before its
// key is read are kept a while after, as the id's kept state (keepsState). Upstream sees each state in its informer
// within microseconds of the event; a queued key is read later, from a cache that holds only the newest state.
//  - A pod of a LeaderWorkerSet (its set-name label) deleted while it was being deleted (the DELETED event's object
//    has a deletionTimestamp): the LWS restart policy recreates a group when one of its pods is being deleted, and a
//    pod whose deletion completes at once (a kubelet's short grace period, or kwok's) can be gone from the cache
//    first.
//  - A JobSet with spec.suspend true (an ADDED or MODIFIED event): a suspend followed at once by a resume (what Kueue
//    does to move a JobSet to other nodes: suspend, change the pod template, resume) must still suspend the running
//    Jobs, or they would never take the new template. The JobSet's pass drops the kept state once it has seen its
//    effect (jobset/observe.ts).
// Only these: every other kind reads current state alone, and a kept state costs memory for its TTL.
import type { KubernetesObject } from '../kube/api/objects.js';
import { controllerUidOf } from '../kube/meta/controller-ref.js';
import { withDroppedAnnotations } from '../kube/meta/dropped-annotations.js';

export type CachedObject = KubernetesObject & { spec?: unknown; status?: unknown };

export type CacheEntry = {
  /** kind/namespace/name ('' namespace for cluster-scoped objects). */
  readonly id: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  /** Uid of the controller owner reference, or null for an orphan. */
  readonly owner: string | null;
  /** spec.nodeName of a Pod, else null. */
  readonly node: string | null;
  /** metadata.deletionTimestamp is set. */
  readonly terminating: boolean;
  readonly object: CachedObject;
};

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export function entryId(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** The trimmed copy the cache keeps (see the header), with apiVersion and kind set (list items lack them). */
export function trimForCache(kind: string, apiVersion: string, object: CachedObject): CachedObject {
  const metadata = { ...(object.metadata ?? {}) } as Record<string, unknown>;
  delete metadata.managedFields;
  const annotations = metadata.annotations as Record<string, string> | undefined;
  if (annotations && LAST_APPLIED in annotations) {
    const { [LAST_APPLIED]: _dropped, ...rest } = annotations;
    return {
      ...object,
      apiVersion,
      kind,
      metadata: withDroppedAnnotations({ ...metadata, annotations: rest }, [LAST_APPLIED]) as CachedObject['metadata'],
    };
  }
  return { ...object, apiVersion, kind, metadata: metadata as CachedObject['metadata'] };
}

/** The entry of an object of `kind`; throws on an object without a name (it cannot be addressed). */
export function cacheEntry(kind: string, apiVersion: string, object: CachedObject): CacheEntry {
  const meta = object.metadata ?? {};
  const name = typeof meta.name === 'string' ? meta.name : '';
  if (name === '') throw new TypeError(`a ${kind} without metadata.name cannot be cached`);
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const nodeName = kind === 'Pod' ? (object.spec as { nodeName?: unknown } | undefined)?.nodeName : undefined;
  return {
    id: entryId(kind, namespace, name),
    kind,
    namespace,
    name,
    uid: typeof meta.uid === 'string' ? meta.uid : '',
    resourceVersion: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '',
    owner: controllerUidOf(object) ?? null,
    node: typeof nodeName === 'string' && nodeName !== '' ? nodeName : null,
    terminating: typeof meta.deletionTimestamp === 'string' && meta.deletionTimestamp !== '',
    object: trimForCache(kind, apiVersion, object),
  };
}

const LWS_SET_NAME_LABEL = 'leaderworkerset.sigs.k8s.io/name';

/** An event's object of `kind` is kept as its id's kept state (see the header). */
export function keepsState(type: 'ADDED' | 'MODIFIED' | 'DELETED', kind: string, object: CachedObject): boolean {
  const meta = object.metadata;
  if (type === 'DELETED') {
    if (kind !== 'Pod' || typeof meta?.deletionTimestamp !== 'string' || meta.deletionTimestamp === '') return false;
    const labels = meta.labels;
    return typeof labels === 'object' && labels !== null && LWS_SET_NAME_LABEL in labels;
  }
  return kind === 'JobSet' && (object.spec as { suspend?: unknown } | undefined)?.suspend === true;
}

/** Index names an entry is filed under (the stores keep one set of entry ids per index name). */
export function indexNames(e: Pick<CacheEntry, 'kind' | 'namespace' | 'owner' | 'node' | 'terminating'>): string[] {
  const names = [index.namespace(e.kind, e.namespace), index.all(e.kind)];
  names.push(e.owner === null ? index.orphans(e.kind, e.namespace) : index.owner(e.kind, e.owner));
  if (e.node !== null) names.push(index.node(e.kind, e.node));
  if (e.terminating) names.push(index.terminating(e.kind, e.namespace));
  return names;
}

export const index = {
  namespace: (kind: string, namespace: string) => `ns:${kind}/${namespace}`,
  all: (kind: string) => `all:${kind}`,
  owner: (kind: string, ownerUid: string) => `owner:${kind}/${ownerUid}`,
  orphans: (kind: string, namespace: string) => `orphan:${kind}/${namespace}`,
  node: (kind: string, node: string) => `node:${kind}/${node}`,
  terminating: (kind: string, namespace: string) => `terminating:${kind}/${namespace}`,
} as const;
