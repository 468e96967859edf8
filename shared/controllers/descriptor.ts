// A controller's watch descriptor, in the spirit of controller-runtime's builder (For / Owns / Watches): what
// it reconciles, what it owns, what else maps to its keys and how, what it reads and writes, the API resource of
// its kind (a CRD kind's too, with the CRD that serves it) and what reconciles the kind where fleetq does not.
// Registered in controllers/index.ts, the descriptors are the one source of: the forwarder's watches, its
// event → key mapping, its index of workloads and the controller map (descriptor-registry.ts); the kinds a cluster
// registry accepts in owns:/handOver: and the kinds' API resources (rendered into kube/kinds-generated.ts, which
// kube/kinds.ts and kube/resources.ts read); fleetq's RBAC roles (controllers/roles.ts, rendered into infra/k8s/);
// the sandbox's kube-controller-manager flags, CRDs and add-on upstream controllers (infra/sandbox/modes.ts,
// kind-options.ts). So a new kind is its folder (descriptor.ts, planner, crd.yaml for a CRD kind) plus one
// registration line in controllers/index.ts, then `npm run rbac:render` to write the generated files. What else it
// brings is optional: a start command for an add-on upstream controller in infra/sandbox/kind-options.ts (to run
// its upstream side in the sandbox), and a conformance plug-in (test/helpers/conformance/plugins.ts).
//
// Mapping functions are pure and take untrusted objects: nothing here may throw on bad data; a key made of
// bad data is validated and set apart by the forwarder, never here.
import type { ClusterRegistry } from '../kube/registry.js';
import { controllerRefOf } from '../kube/meta/controller-ref.js';
import { labelsOf, type Labels } from '../kube/meta/label-selector.js';
import type { KubeObject } from '../kube/meta/object.js';
import type { ResourceInfo } from '../kube/resources.js';
import type { Controller } from './controller.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One watch event of a resource some descriptor names; `previous` only where a mapping `remember`s one. */
export type WatchEvent = {
  readonly type: EventType;
  readonly object: KubeObject;
  readonly previous?: KubeObject;
};

/** A workload the forwarder has indexed: the primary objects of the descriptors that own something. */
export type IndexedWorkload = {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** Its controller owner reference, when it has one. */
  readonly controller?: { readonly kind: string; readonly name: string };
  /** Its descriptor's `for.handedOver` said yes (handed to fleetq one object at a time). */
  readonly handedOver?: boolean;
  /** What its descriptor's `for.facts` keeps of it for the descriptor's Watches mappings; absent: nothing. */
  readonly facts?: unknown;
};

/** What a mapping may look up: the forwarder's index of the workloads it watches. */
export interface WorkloadLookup {
  /** Workloads of `kinds` in `namespace` whose valid, non-empty selector matches `labels`. */
  matching(namespace: string, labels: Labels, kinds: ReadonlySet<string>): IndexedWorkload[];
  /** Every indexed workload of `kinds`, in any namespace. */
  all(kinds: ReadonlySet<string>): IndexedWorkload[];
  get(kind: string, namespace: string, name: string): IndexedWorkload | undefined;
}

/** A key of the descriptor's own kind (the forwarder adds the cluster and the kind). */
export type KeyName = { readonly namespace: string; readonly name: string };

export type Mapping = {
  /** The kind of the objects whose events this maps. */
  readonly kind: string;
  /** Why the controller watches them (the forwarder's RBAC rule says it: kube/rbac.ts). */
  readonly why: string;
  /** The keys of the descriptor's kind an event yields. */
  readonly keys: (event: WatchEvent, index: WorkloadLookup) => readonly KeyName[];
  /** The trimmed view of an object the forwarder keeps to hand the next event of it as `previous`. */
  readonly remember?: (object: KubeObject) => KubeObject | undefined;
};

export type Owned = {
  readonly kind: string;
  /** An orphan (no controller reference) wakes every one of these whose selector matches it (adoption). */
  readonly adopts: boolean;
  /**
   * Batching: the key an event of this kind yields (its controller owner's, or an orphan's adopters') is enqueued
   * this many ms later (the queue's addAfter: events within the window share one reconcile), as upstream's
   * controller does with AddAfter (Job: syncJobBatchPeriod for pod events). Absent: enqueued at once. A key an
   * event also yields at once (its own object's, or another mapping's) is enqueued at once.
   */
  readonly batchMs?: number;
};

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/**
 * Access to one API resource (by kind, as the resource table names it): the handler's RBAC rules are made from
 * these (kube/rbac.ts), each rule saying `why` (where in the controller's code the request is made).
 */
export type Access = {
  readonly kind: string;
  readonly subresource?: string;
  readonly verbs: readonly Verb[];
  readonly why: string;
};

/** A file inside a Go module at an exact version (resolved through the module cache: `go mod download -json`). */
export type GoModuleFile = {
  readonly module: string;
  /** The exact version (`v0.12.0`); a proxy may serve no version list, so never a query like `latest`. */
  readonly version: string;
  /** Slash-separated, relative to the module's root. */
  readonly path: string;
};

/** Where a CRD's YAML lives: a file of this repository, or one of a Go module. */
export type CrdSource = URL | GoModuleFile;

/** What reconciles a kind where fleetq does not. */
export type UpstreamController = {
  /** Its name: kube-controller-manager's canonical one (`deployment-controller`), or the add-on's. */
  readonly name: string;
  /**
   * 'kube-controller-manager': built in (owning the kind needs it turned off: the sandbox's fleetq mode runs
   * kube-controller-manager without it); 'add-on': a controller of its own, installed with its CRD (JobSet's),
   * which the sandbox starts on its upstream clusters only (infra/sandbox/kind-options.ts says how).
   */
  readonly runs: 'kube-controller-manager' | 'add-on';
};

export type WatchDescriptor = {
  /** The kind of its reconcile keys. */
  readonly kind: string;
  /**
   * The API resource of its key kind, when that kind is a resource of its own: group, version, plural, scope and
   * status subresource. Registered into the resource table (kube/resources.ts) by controllers/index.ts, so the
   * forwarder lists and watches it, the cache and writer address it, and RBAC grants it, like any built-in one.
   * Absent: TTLAfterFinished (Jobs under keys of its own) and the ConfigMap mirror (ConfigMaps, a dependent
   * resource the table has anyway).
   */
  readonly resource?: ResourceInfo;
  /**
   * The CustomResourceDefinition that serves `resource`, for a kind Kubernetes does not serve built in: a YAML
   * file, either of this repository (`new URL('./crd.yaml', import.meta.url)`, a kind fleetq defines) or of the
   * Go module that defines the kind upstream, at a pinned version (`{ module: 'sigs.k8s.io/jobset', version:
   * 'v0.12.0', path: 'config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml' }`), read from the local module
   * cache, so upstream's own file is installed and never copied here. The sandbox applies it to every cluster
   * at start, in both modes.
   */
  readonly crd?: CrdSource;
  /** What reconciles the kind where fleetq does not; absent: nothing does (the ConfigMap mirror is fleetq's). */
  readonly upstream?: UpstreamController;
  /** Owned by a cluster whose registry entry says nothing (registry `owns` default): Deployment, ReplicaSet. */
  readonly ownedByDefault?: boolean;
  /**
   * Key kinds a cluster owns together with this one or not at all: the other keys of one upstream controller
   * (LeaderWorkerSet and LeaderWorkerSetPod, lws's two reconcilers), where one without the other would leave half
   * of the controller's work undone on a cluster whose upstream controller is gone. The cluster registry refuses
   * an entry owning some of a group only.
   */
  readonly ownedWith?: readonly string[];
  /**
   * For: the kind it reconciles. By default each event of such an object yields the object's own key;
   * `keys` replaces that (the ConfigMap mirror reconciles only annotated sources and wakes from copies).
   */
  readonly for: {
    readonly kind: string;
    readonly keys?: Mapping['keys'];
    readonly remember?: Mapping['remember'];
    /**
     * A MODIFIED event whose object's metadata.generation equals its previous version's (kept by `remember`) yields
     * the object's own key this much later (ms), as upstream's Job controller batches a Job update that leaves the
     * generation unchanged (updateJob: enqueueSyncJobBatched). Without a previous version, at once.
     */
    readonly batchUnchangedMs?: number;
    /** Why it watches them, when not simply its own objects (the forwarder's RBAC rule says it). */
    readonly why?: string;
    /**
     * Whether one object is handed to fleetq on a cluster that does not own the kind (registry `handOver`):
     * Job's spec.managedBy naming fleetq. Pure, on untrusted data; absent: the kind cannot be handed over.
     */
    readonly handedOver?: (object: KubeObject) => boolean;
    /**
     * What the forwarder's workload index keeps of each object (IndexedWorkload.facts) for this descriptor's
     * Watches mappings, e.g. a DaemonSet's placement for Node events. Pure, on untrusted data; small; a throw or
     * undefined keeps nothing (the mapping must then decide without it).
     */
    readonly facts?: (object: KubeObject) => unknown;
  };
  /** Owns: kinds whose objects carry a controller reference to it; their events yield its key. */
  readonly owns: readonly Owned[];
  /** Watches: other kinds that map to its keys, and how. */
  readonly watches: readonly Mapping[];
  /**
   * What its handler reads (get, list: live reads, or the cache's) and writes, as its code does today. The
   * forwarder's own list and watch of every resource above come on top. Absent for a kind with no controller.
   */
  readonly access?: { readonly reads: readonly Access[]; readonly writes: readonly Access[] };
  /** Its controller, bound to the cluster registry when there is one; absent for a kind not written yet. */
  readonly controller?: (registry: Pick<ClusterRegistry, 'get'> | undefined) => Controller;
};

/** Writes every controller makes through the event recorder (core/v1 Events: POST, then PATCH a repeat). */
export const EVENT_WRITES: Access = {
  kind: 'Event',
  verbs: ['create', 'patch'],
  why: 'Kubernetes Events (core/v1) for its actions: create, then patch the count of a repeat (kube/events/recorder.ts)',
};

/**
 * Watches mapping for a kind that wakes on orphans it does not own itself: an orphan (no controller
 * reference) of the watched kind yields every `kind` whose selector matches it, unless it was deleted.
 */
export function orphansMatching(kind: string): Mapping['keys'] {
  const kinds = new Set([kind]);
  return (event, index) => {
    if (event.type === 'DELETED' || controllerRefOf(event.object) !== undefined) return [];
    return index.matching(namespaceOf(event.object), labelsOf(event.object), kinds);
  };
}

/** metadata.namespace of untrusted data, or '' (a key with an empty part is never made). */
export function namespaceOf(object: KubeObject): string {
  const namespace: unknown = object.metadata?.namespace;
  return typeof namespace === 'string' ? namespace : '';
}

/** metadata.name of untrusted data, or ''. */
export function nameOf(object: KubeObject): string {
  const name: unknown = object.metadata?.name;
  return typeof name === 'string' ? name : '';
}
