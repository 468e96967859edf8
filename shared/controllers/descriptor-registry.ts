// The tables the forwarder and the runtime used to keep by hand, derived from a list of watch descriptors and
// the API resources they declare (plus the dependents' table): which resources a cluster's forwarder watches for
// the kinds it owns, which owned kinds a relist of a resource must wake, which kinds control or adopt objects of
// a kind, which resources feed the workload index or keep a previous version, the controller of each kind; and
// what the lower layers and infra/ learn by registration: the kinds (catalog), their resources, the upstream
// controllers fleetq replaces, and the CRDs to install.
import { DEPENDENT_RESOURCES, type ResourceInfo } from '../kube/resources.js';
import type { ClusterRegistry } from '../kube/registry.js';
import type { KubeObject } from '../kube/meta/object.js';
import type { Controller } from './controller.js';
import type { CrdSource, Mapping, UpstreamController, WatchDescriptor } from './descriptor.js';

/** The kinds, as the cluster registry reads them (kube/kinds.ts, from kube/kinds-generated.ts). */
export type KindCatalog = {
  /** Every registered kind, in registration order. */
  readonly all: readonly string[];
  /** Owned by a cluster whose registry entry does not say. */
  readonly defaultOwned: readonly string[];
  /** Kinds kube-controller-manager also runs as a resource of their own: owning one needs its controller off. */
  readonly workloads: readonly string[];
  /** Kinds a cluster can hand over one object at a time (registry `handOver`), through the object's own field. */
  readonly handOver: readonly string[];
  /** Groups of kinds a cluster owns all of or none of (descriptors' `ownedWith`), each in registration order. */
  readonly ownedTogether: readonly (readonly string[])[];
};

/** A mapping of events of one kind to keys of the descriptor's kind. */
export type KindMapping = { readonly descriptor: WatchDescriptor; readonly mapping: Mapping };

export class DescriptorRegistry {
  readonly descriptors: readonly WatchDescriptor[];
  private readonly byKind = new Map<string, WatchDescriptor>();
  private readonly byPlural = new Map<string, ResourceInfo>();
  private readonly resources: ReadonlyMap<string, ResourceInfo>;
  /** Every resource known, in watch order: the descriptors' own (workloads) before their dependents. */
  private readonly order: readonly string[];

  /** `dependents`: the built-in resources the descriptors read besides their own (kube/resources.ts). */
  constructor(descriptors: readonly WatchDescriptor[], dependents: readonly ResourceInfo[] = DEPENDENT_RESOURCES) {
    this.descriptors = descriptors;
    const table = [...descriptors.flatMap((d) => (d.resource ? [d.resource] : [])), ...dependents];
    for (const d of descriptors) {
      if (this.byKind.has(d.kind)) throw new Error(`two watch descriptors for kind ${d.kind}`);
      this.byKind.set(d.kind, d);
    }
    const known = new Map<string, ResourceInfo>();
    for (const info of table) {
      if (known.has(info.kind)) throw new Error(`two API resources for kind ${info.kind}`);
      if (this.byPlural.has(info.plural)) throw new Error(`two kinds of resource ${info.plural}`);
      known.set(info.kind, info);
      this.byPlural.set(info.plural, info);
    }
    this.order = table.map((r) => r.plural);
    for (const d of descriptors) {
      if (d.resource !== undefined && d.resource.kind !== d.kind)
        throw new Error(`${d.kind}'s descriptor declares the resource of kind ${d.resource.kind}`);
      for (const kind of kindsOf(d)) {
        if (!known.has(kind)) throw new Error(`${d.kind}'s descriptor names ${kind}, which the resource table lacks`);
      }
      for (const kind of d.ownedWith ?? []) {
        if (!this.byKind.has(kind))
          throw new Error(`${d.kind}'s descriptor is owned with ${kind}, which no registered descriptor is keyed by`);
      }
    }
    this.resources = known;
  }

  /** The resources the descriptors declare for their own kinds, in registration order (kube/resources.ts). */
  get ownResources(): ResourceInfo[] {
    return this.descriptors.flatMap((d) => (d.resource ? [d.resource] : []));
  }

  /** Every resource known, by kind, in watch order. */
  get resourceTable(): ResourceInfo[] {
    return this.order.map((plural) => this.byPlural.get(plural) as ResourceInfo);
  }

  /** The kinds for the cluster registry (kube/kinds.ts): all, owned by default, workloads, handed over. */
  get catalog(): KindCatalog {
    const kinds = (pick: (d: WatchDescriptor) => boolean): string[] => this.descriptors.filter(pick).map((d) => d.kind);
    return {
      all: kinds(() => true),
      defaultOwned: kinds((d) => d.ownedByDefault === true),
      workloads: kinds((d) => d.resource !== undefined && d.upstream?.runs === 'kube-controller-manager'),
      handOver: kinds((d) => d.for.handedOver !== undefined),
      ownedTogether: this.ownedTogether(),
    };
  }

  /** What reconciles each kind where fleetq does not (the sandbox turns these off, or starts them), by kind. */
  get upstreamControllers(): Array<{ readonly kind: string } & UpstreamController> {
    return this.descriptors.flatMap((d) => (d.upstream ? [{ kind: d.kind, ...d.upstream }] : []));
  }

  /** The CustomResourceDefinitions of the kinds Kubernetes does not serve built in. */
  get crds(): Array<{ readonly kind: string; readonly file: CrdSource }> {
    return this.descriptors.flatMap((d) => (d.crd ? [{ kind: d.kind, file: d.crd }] : []));
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
   * something (its selector adopts, its controller reference is followed) and whose key kind is that resource's
   * own kind; undefined for any other resource. A descriptor keyed apart from the objects it is for (the
   * LeaderWorkerSetPod key, for Pod) makes no workloads of them: every pod would be indexed, under a kind no key has.
   */
  indexedKind(resource: string): string | undefined {
    const kind = this.byPlural.get(resource)?.kind;
    if (kind === undefined) return undefined;
    const d = this.byKind.get(kind);
    return d !== undefined && d.for.kind === kind && d.owns.length > 0 ? kind : undefined;
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

  /** The descriptors' `ownedWith`, joined into groups (a kind owned with another is in the other's group too). */
  private ownedTogether(): string[][] {
    const groupOf = new Map<string, Set<string>>();
    for (const d of this.descriptors) {
      for (const other of d.ownedWith ?? []) {
        const group = new Set([...(groupOf.get(d.kind) ?? [d.kind]), ...(groupOf.get(other) ?? [other])]);
        for (const k of group) groupOf.set(k, group);
      }
    }
    const order = this.kinds;
    const groups = [...new Set(groupOf.values())].map((g) => order.filter((k) => g.has(k)));
    return groups.sort((a, b) => order.indexOf(a[0] ?? '') - order.indexOf(b[0] ?? ''));
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
