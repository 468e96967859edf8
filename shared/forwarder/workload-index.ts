// What the forwarder remembers of the workloads it watches, to map events it cannot map from the object alone:
// the selectors of each namespace's workloads (orphan adoption), the cluster's DaemonSets (Node events) and each
// ReplicaSet's controlling Deployment (Pod deletions). Filled from the forwarder's own workload watches.
import type { Kind } from '../kube/kinds.js';
import { isSelectorEmpty, isSelectorMatch, specSelector, type LabelSelector, type Labels } from './label-selector.js';
import { WORKLOAD_KIND, type KubeObject, type Resource } from './resources.js';

export type IndexedWorkload = {
  readonly kind: Kind;
  readonly namespace: string;
  readonly name: string;
  readonly selector?: LabelSelector;
  /** The controlling owner (ownerReferences with controller=true), when there is one. */
  readonly controller?: { readonly kind: string; readonly name: string };
};

/** The read side the pure mapping uses. */
export interface WorkloadIndexView {
  /** Workloads of `kinds` in `namespace` whose non-empty selector matches `labels`. */
  matching(namespace: string, labels: Labels, kinds: ReadonlySet<Kind>): IndexedWorkload[];
  /** Every indexed workload of `kinds`, in any namespace. */
  all(kinds: ReadonlySet<Kind>): IndexedWorkload[];
  get(kind: Kind, namespace: string, name: string): IndexedWorkload | undefined;
}

export function isIndexedResource(resource: Resource): boolean {
  return WORKLOAD_KIND[resource] !== undefined;
}

export class WorkloadIndex implements WorkloadIndexView {
  /** namespace → `kind/name` → workload */
  private readonly byNamespace = new Map<string, Map<string, IndexedWorkload>>();

  apply(resource: Resource, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    const kind = WORKLOAD_KIND[resource];
    const namespace: unknown = object.metadata?.namespace;
    const name: unknown = object.metadata?.name;
    if (kind === undefined || typeof namespace !== 'string' || typeof name !== 'string') return;
    const id = `${kind}/${name}`;
    if (type === 'DELETED') {
      const ns = this.byNamespace.get(namespace);
      ns?.delete(id);
      if (ns?.size === 0) this.byNamespace.delete(namespace);
      return;
    }
    let ns = this.byNamespace.get(namespace);
    if (!ns) this.byNamespace.set(namespace, (ns = new Map()));
    ns.set(id, toIndexed(kind, namespace, name, object));
  }

  /** A full list of `resource`: forget its kind's entries, then index the list. */
  replace(resource: Resource, objects: readonly KubeObject[]): void {
    const kind = WORKLOAD_KIND[resource];
    if (kind === undefined) return;
    for (const [namespace, ns] of this.byNamespace) {
      for (const [id, w] of ns) if (w.kind === kind) ns.delete(id);
      if (ns.size === 0) this.byNamespace.delete(namespace);
    }
    for (const object of objects) this.apply(resource, 'ADDED', object);
  }

  matching(namespace: string, labels: Labels, kinds: ReadonlySet<Kind>): IndexedWorkload[] {
    const out: IndexedWorkload[] = [];
    for (const w of this.byNamespace.get(namespace)?.values() ?? []) {
      if (!kinds.has(w.kind) || w.selector === undefined || isSelectorEmpty(w.selector)) continue;
      if (isSelectorMatch(w.selector, labels)) out.push(w);
    }
    return out;
  }

  all(kinds: ReadonlySet<Kind>): IndexedWorkload[] {
    const out: IndexedWorkload[] = [];
    for (const ns of this.byNamespace.values()) for (const w of ns.values()) if (kinds.has(w.kind)) out.push(w);
    return out;
  }

  get(kind: Kind, namespace: string, name: string): IndexedWorkload | undefined {
    return this.byNamespace.get(namespace)?.get(`${kind}/${name}`);
  }

  get size(): number {
    let n = 0;
    for (const ns of this.byNamespace.values()) n += ns.size;
    return n;
  }
}

function toIndexed(kind: Kind, namespace: string, name: string, object: KubeObject): IndexedWorkload {
  const selector = specSelector(object.spec);
  const refs: unknown = object.metadata?.ownerReferences;
  const ref = Array.isArray(refs)
    ? (refs as unknown[]).find((r): r is { kind: string; name: string } => {
        const o = r as { controller?: unknown; kind?: unknown; name?: unknown } | null;
        return (
          typeof o === 'object' &&
          o !== null &&
          o.controller === true &&
          typeof o.kind === 'string' &&
          typeof o.name === 'string'
        );
      })
    : undefined;
  return {
    kind,
    namespace,
    name,
    ...(selector === undefined ? {} : { selector }),
    ...(ref === undefined ? {} : { controller: { kind: ref.kind, name: ref.name } }),
  };
}
