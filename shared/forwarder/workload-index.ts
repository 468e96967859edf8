// What the forwarder remembers of the workloads it watches, to map events it cannot map from the object alone:
// the selectors of each namespace's workloads (orphan adoption), the cluster's DaemonSets with their descriptor's
// facts (placement, for Node events) and each
// ReplicaSet's controlling Deployment (Pod deletions). Filled from the forwarder's own workload watches.
import { DESCRIPTORS } from '../controllers/index.js';
import type { DescriptorRegistry } from '../controllers/descriptor-registry.js';
import type { IndexedWorkload as WorkloadRef, WorkloadLookup } from '../controllers/descriptor.js';
import { controllerRefOf } from '../kube/meta/controller-ref.js';
import { selectorOrNothing, type Labels, type Selector } from '../kube/meta/label-selector.js';
import type { KubeObject, Resource } from './resources.js';

export type IndexedWorkload = WorkloadRef & {
  /** Its spec.selector; one that is missing or invalid selects nothing (upstream's listers skip it). */
  readonly selector: Selector;
};

/** The read side the pure mapping uses. */
export type WorkloadIndexView = WorkloadLookup;

/** Does the index hold the objects of `resource` (the primaries of descriptors that own something)? */
export function isIndexedResource(resource: Resource, descriptors: DescriptorRegistry = DESCRIPTORS): boolean {
  return descriptors.indexedKind(resource) !== undefined;
}

export class WorkloadIndex implements WorkloadIndexView {
  /** namespace → `kind/name` → workload */
  private readonly byNamespace = new Map<string, Map<string, IndexedWorkload>>();

  constructor(private readonly descriptors: DescriptorRegistry = DESCRIPTORS) {}

  apply(resource: Resource, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    const kind = this.descriptors.indexedKind(resource);
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
    const facts = this.descriptors.factsOf(kind, object);
    ns.set(id, toIndexed(kind, namespace, name, object, this.descriptors.isHandedOver(kind, object), facts));
  }

  /** A full list of `resource`: forget its kind's entries, then index the list. */
  replace(resource: Resource, objects: readonly KubeObject[]): void {
    const kind = this.descriptors.indexedKind(resource);
    if (kind === undefined) return;
    for (const [namespace, ns] of this.byNamespace) {
      for (const [id, w] of ns) if (w.kind === kind) ns.delete(id);
      if (ns.size === 0) this.byNamespace.delete(namespace);
    }
    for (const object of objects) this.apply(resource, 'ADDED', object);
  }

  /** The end of a list applied page by page: forget `resource`'s entries it did not see (`namespace/name`). */
  sweep(resource: Resource, seen: ReadonlySet<string>): void {
    const kind = this.descriptors.indexedKind(resource);
    if (kind === undefined) return;
    for (const [namespace, ns] of this.byNamespace) {
      for (const [id, w] of ns) if (w.kind === kind && !seen.has(`${namespace}/${w.name}`)) ns.delete(id);
      if (ns.size === 0) this.byNamespace.delete(namespace);
    }
  }

  matching(namespace: string, labels: Labels, kinds: ReadonlySet<string>): IndexedWorkload[] {
    const out: IndexedWorkload[] = [];
    for (const w of this.byNamespace.get(namespace)?.values() ?? []) {
      // An empty selector would adopt every orphan: upstream's listers skip it ("it should match nothing").
      if (!kinds.has(w.kind) || w.selector.isEmpty) continue;
      if (w.selector.matches(labels)) out.push(w);
    }
    return out;
  }

  all(kinds: ReadonlySet<string>): IndexedWorkload[] {
    const out: IndexedWorkload[] = [];
    for (const ns of this.byNamespace.values()) for (const w of ns.values()) if (kinds.has(w.kind)) out.push(w);
    return out;
  }

  get(kind: string, namespace: string, name: string): IndexedWorkload | undefined {
    return this.byNamespace.get(namespace)?.get(`${kind}/${name}`);
  }

  get size(): number {
    let n = 0;
    for (const ns of this.byNamespace.values()) n += ns.size;
    return n;
  }
}

function toIndexed(
  kind: string,
  namespace: string,
  name: string,
  object: KubeObject,
  handedOver: boolean,
  facts: unknown,
): IndexedWorkload {
  const selector = selectorOrNothing((object.spec as { selector?: unknown } | null | undefined)?.selector);
  const ref = controllerRefOf(object);
  return {
    kind,
    namespace,
    name,
    selector,
    ...(ref === undefined ? {} : { controller: { kind: ref.kind, name: ref.name } }),
    ...(handedOver && { handedOver }),
    ...(facts !== undefined && { facts }),
  };
}
