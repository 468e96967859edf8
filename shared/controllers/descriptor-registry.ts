// The tables the forwarder and the runtime used to keep by hand, derived from a list of watch descriptors and
// the API resource table: which resources a cluster's forwarder watches for the kinds it owns, which owned
// kinds a relist of a resource must wake, which kinds control or adopt objects of a kind, which resources
// feed the workload index or keep a previous version, and the controller of each kind.
import { RESOURCES, type ResourceInfo } from '../kube/resources.js';
import type { ClusterRegistry } from '../kube/registry.js';
import type { KubeObject } from '../kube/meta/object.js';
import type { Controller } from './controller.js';
import type { Mapping, WatchDescriptor } from './descriptor.js';

/** A mapping of events of one kind to keys of the descriptor's kind. */
export type KindMapping = { readonly descriptor: WatchDescriptor; readonly mapping: Mapping };

export class DescriptorRegistry {
  readonly descriptors: readonly WatchDescriptor[];
  private readonly byKind = new Map<string, WatchDescriptor>();
  private readonly byPlural = new Map<string, ResourceInfo>();
  private readonly resources: ReadonlyMap<string, ResourceInfo>;
  /** Every resource the table knows, in its order (workloads before their dependents). */
  private readonly order: readonly string[];

  constructor(descriptors: readonly WatchDescriptor[], resources: Readonly<Record<string, ResourceInfo>> = RESOURCES) {
    this.descriptors = descriptors;
    for (const info of Object.values(resources)) this.byPlural.set(info.plural, info);
    this.order = Object.values(resources).map((r) => r.plural);
    const known = new Map(Object.values(resources).map((r) => [r.kind, r]));
    for (const d of descriptors) {
      if (this.byKind.has(d.kind)) throw new Error(`two watch descriptors for kind ${d.kind}`);
      this.byKind.set(d.kind, d);
      for (const kind of kindsOf(d)) {
        if (!known.has(kind)) throw new Error(`${d.kind}'s descriptor names ${kind}, which the resource table lacks`);
      }
    }
    this.resources = known;
  }

  get kinds(): string[] {
    return [...this.byKind.keys()];
  }

  descriptor(kind: string): WatchDescriptor | undefined {
    return this.byKind.get(kind);
  }

  resourceOf(kind: string): ResourceInfo {
    const info = this.resources.get(kind);
    if (!info) throw new Error(`no API resource for kind ${kind}`);
    return info;
  }

  /** The kind of the objects a resource (plural) holds. */
  kindOf(resource: string): string {
    const info = this.byPlural.get(resource);
    if (!info) throw new Error(`no kind for resource ${resource}`);
    return info.kind;
  }

  /** The resource holding a kind's own objects (what a resync lists). */
  primaryResource(kind: string): string {
    return this.resourceOf(this.require(kind).for.kind).plural;
  }

  /** What a controller of `kind` reacts to: its primary, what it owns, what it watches (upstream's informers). */
  watchesOf(kind: string): string[] {
    return kindsOf(this.require(kind)).map((k) => this.resourceOf(k).plural);
  }

  /** The resources to watch for a cluster owning `owns`, each once, in the table's order. */
  watchedResources(owns: Iterable<string>): string[] {
    const wanted = new Set<string>();
    for (const kind of owns) for (const r of this.watchesOf(kind)) wanted.add(r);
    return this.order.filter((r) => wanted.has(r));
  }

  /** Owned kinds that watch `resource` without it being their own (a relist of it must wake them all). */
  dependentKinds(resource: string, owns: Iterable<string>): string[] {
    return [...owns].filter((k) => this.primaryResource(k) !== resource && this.watchesOf(k).includes(resource));
  }

  /** The descriptors that reconcile objects of `kind` (For). */
  reconcilersOf(kind: string): WatchDescriptor[] {
    return this.descriptors.filter((d) => d.for.kind === kind);
  }

  /** The descriptors owning objects of `kind` (their controller references name them). */
  controllersOf(kind: string): WatchDescriptor[] {
    return this.descriptors.filter((d) => d.owns.some((o) => o.kind === kind));
  }

  /** The kinds that adopt orphans of `kind` by selector. */
  adoptersOf(kind: string): string[] {
    return this.descriptors.filter((d) => d.owns.some((o) => o.kind === kind && o.adopts)).map((d) => d.kind);
  }

  /** The Watches mappings of events of `kind`. */
  mappingsOf(kind: string): KindMapping[] {
    return this.descriptors.flatMap((descriptor) =>
      descriptor.watches.filter((m) => m.kind === kind).map((mapping) => ({ descriptor, mapping })),
    );
  }

  /**
   * The workload kind a resource holds when the forwarder indexes it: the primary of a descriptor that owns
   * something (its selector adopts, its controller reference is followed); undefined for any other resource.
   */
  indexedKind(resource: string): string | undefined {
    const kind = this.byPlural.get(resource)?.kind;
    return kind !== undefined && this.descriptors.some((d) => d.for.kind === kind && d.owns.length > 0)
      ? kind
      : undefined;
  }

  /** The descriptor of `kind` says this object of it is handed to fleetq one by one (registry `handOver`). */
  isHandedOver(kind: string, object: KubeObject): boolean {
    const d = this.descriptors.find((x) => x.kind === kind);
    return d?.for.handedOver?.(object) ?? false;
  }

  /** What the descriptor of `kind` keeps of this object in the workload index (`for.facts`); undefined: nothing. */
  factsOf(kind: string, object: KubeObject): unknown {
    const facts = this.byKind.get(kind)?.for.facts;
    if (facts === undefined) return undefined;
    try {
      return facts(object);
    } catch {
      return undefined;
    }
  }

  /** The trimmed view the forwarder keeps of an object of `resource` for its next event; undefined: none. */
  remember(resource: string, object: KubeObject): KubeObject | undefined {
    for (const fn of this.rememberers(resource)) {
      const view = fn(object);
      if (view !== undefined) return view;
    }
    return undefined;
  }

  /** Some mapping of this resource's kind compares an event with the object's previous version. */
  isRemembered(resource: string): boolean {
    return this.rememberers(resource).length > 0;
  }

  /** The controller of each kind that has one, bound to the registry (none: the mirror writes nowhere). */
  controllers(registry?: Pick<ClusterRegistry, 'get'>): Map<string, Controller> {
    const out = new Map<string, Controller>();
    for (const d of this.descriptors) if (d.controller) out.set(d.kind, d.controller(registry));
    return out;
  }

  private rememberers(resource: string): Array<(object: KubeObject) => KubeObject | undefined> {
    const kind = this.byPlural.get(resource)?.kind;
    if (kind === undefined) return [];
    const own = this.reconcilersOf(kind).flatMap((d) => (d.for.remember ? [d.for.remember] : []));
    const watched = this.mappingsOf(kind).flatMap(({ mapping }) => (mapping.remember ? [mapping.remember] : []));
    return [...own, ...watched];
  }

  private require(kind: string): WatchDescriptor {
    const d = this.byKind.get(kind);
    if (!d) throw new Error(`no watch descriptor for kind ${kind}`);
    return d;
  }
}

function kindsOf(d: WatchDescriptor): string[] {
  return [d.for.kind, ...d.owns.map((o) => o.kind), ...d.watches.map((w) => w.kind)];
}
