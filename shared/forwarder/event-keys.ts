// Event → reconcile keys (DESIGN.md "Event → keys"). Pure: the object, its previous version when the forwarder
// keeps one, what the cluster owns, and the workload index are all inputs. Only owned kinds yield keys, and
// kinds the cluster hands over one object at a time (registry `handOver`: a Job naming fleetq in spec.managedBy)
// yield the keys of those objects only: the event's own object says so, else the workload index does.
// Every key is validated here, where it is made from untrusted cluster data (an owner reference's name, a
// label's value): a bad one is returned apart with its reason, for the forwarder to record and skip, so that one
// object cannot stop forwarding. Objects of any shape are accepted; nothing here throws on bad data.
import { DESCRIPTORS } from '../controllers/index.js';
import type { DescriptorRegistry } from '../controllers/descriptor-registry.js';
import {
  nameOf,
  namespaceOf,
  type EventType,
  type WatchEvent,
  type WorkloadLookup,
} from '../controllers/descriptor.js';
import { keyString, validateKey, type ReconcileKey } from '../kube/key.js';
import { controllerRefOf, groupOf } from '../kube/meta/controller-ref.js';
import { labelsOf } from '../kube/meta/label-selector.js';
import type { KubeObject, Resource } from './resources.js';

export type { EventType };

export type ObservedEvent = WatchEvent & {
  readonly resource: Resource;
  /** The previous version (a trimmed view) for resources whose mapping needs it: nodes, configmaps. */
  readonly previous?: KubeObject;
};

export type KeyContext = {
  readonly cluster: string;
  readonly owns: ReadonlySet<string>;
  /** Kinds not owned whose objects are handed over one by one (registry `handOver`); default none. */
  readonly handOver?: ReadonlySet<string>;
  readonly index: WorkloadLookup;
  /** The watch descriptors the mapping follows; default every kind fleetq knows. */
  readonly descriptors?: DescriptorRegistry;
};

/** A key made from an object that is not a valid reconcile key, and why. */
export type InvalidKey = { readonly key: ReconcileKey; readonly reason: string };
export type EventKeys = {
  readonly keys: ReconcileKey[];
  readonly invalid: InvalidKey[];
  /**
   * The keys (by keyString) to enqueue later, and how much (ms): those the event yields only through an Owns entry
   * with `batchMs` (descriptor.ts). Every other key is enqueued at once. Absent: none.
   */
  readonly delayMs?: ReadonlyMap<string, number>;
};

/**
 * For each owned kind's descriptor: For (an object's own key, or the descriptor's mapping), Owns (the key its
 * controller reference names, when of that kind and API group; an orphan wakes the kinds that adopt it by
 * selector, unless it was deleted), Watches (the descriptor's own mappings). A key made only through an Owns
 * entry with `batchMs` is returned in `delayMs` (the earliest, when several); one made any other way too is not.
 */
export function eventKeys(event: ObservedEvent, ctx: KeyContext): EventKeys {
  const registry = ctx.descriptors ?? DESCRIPTORS;
  const made: ReconcileKey[] = [];
  /** Per keyString, the delay of a key made only through batched Owns entries so far; 0: made at once. */
  const delays = new Map<string, number>();
  const { object } = event;
  const kind = registry.kindOf(event.resource);
  const namespace = namespaceOf(object);
  const push = (keyKind: string, ns: string, name: string, batchMs = 0): void => {
    if (ns === '' || name === '') return;
    const key = { cluster: ctx.cluster, kind: keyKind, namespace: ns, name };
    const id = keyString(key);
    made.push(key);
    delays.set(id, Math.min(delays.get(id) ?? Number.POSITIVE_INFINITY, Math.max(0, batchMs)));
  };
  const serves = (k: string): boolean => ctx.owns.has(k) || (ctx.handOver?.has(k) ?? false);
  const owned = registry.descriptors.filter((d) => serves(d.kind));

  const generationOf = (o: KubeObject | undefined): unknown =>
    (o?.metadata as { generation?: unknown } | undefined)?.generation;
  for (const d of owned) {
    if (d.for.kind !== kind) continue;
    const unchanged =
      event.type === 'MODIFIED' &&
      event.previous !== undefined &&
      generationOf(event.previous) === generationOf(object);
    if (d.for.keys === undefined)
      push(d.kind, namespace, nameOf(object), unchanged ? (d.for.batchUnchangedMs ?? 0) : 0);
    else for (const k of d.for.keys(event, ctx.index)) push(d.kind, k.namespace, k.name);
  }

  const controllers = owned.filter((d) => d.owns.some((o) => o.kind === kind));
  if (controllers.length > 0) {
    // The earliest batching of the descriptor's Owns entries of this kind (0: at once).
    const batchMs = new Map(
      controllers.map((d) => [d.kind, Math.min(...d.owns.filter((o) => o.kind === kind).map((o) => o.batchMs ?? 0))]),
    );
    const ref = controllerRefOf(object);
    if (ref !== undefined) {
      for (const d of controllers) {
        if (ref.kind === d.for.kind && groupOf(ref.apiVersion) === registry.resourceOf(d.for.kind).group) {
          push(d.kind, namespace, ref.name, batchMs.get(d.kind));
        }
      }
    } else if (event.type !== 'DELETED') {
      const adopters = new Set(
        controllers.filter((d) => d.owns.some((o) => o.kind === kind && o.adopts)).map((d) => d.kind),
      );
      for (const w of ctx.index.matching(namespace, labelsOf(object), adopters))
        push(w.kind, w.namespace, w.name, batchMs.get(w.kind));
    }
  }

  for (const { descriptor, mapping } of registry.mappingsOf(kind)) {
    if (!serves(descriptor.kind)) continue;
    for (const k of mapping.keys(event, ctx.index)) push(descriptor.kind, k.namespace, k.name);
  }
  const handedOver = (k: ReconcileKey): boolean => {
    if (ctx.owns.has(k.kind)) return true;
    // The event's own object: its descriptor decides from it (it may be new, or just deleted, to the index).
    if (k.kind === kind && k.namespace === namespace && k.name === nameOf(object))
      return registry.isHandedOver(kind, object);
    return ctx.index.get(k.kind, k.namespace, k.name)?.handedOver === true;
  };
  const out = partition(dedupe(made).filter(handedOver));
  const later = new Map<string, number>();
  for (const key of out.keys) {
    const id = keyString(key);
    const ms = delays.get(id) ?? 0;
    if (ms > 0) later.set(id, ms);
  }
  return later.size === 0 ? out : { ...out, delayMs: later };
}

/** Splits keys into valid ones and invalid ones with their reasons. */
export function partition(keys: readonly ReconcileKey[]): EventKeys {
  const out: EventKeys = { keys: [], invalid: [] };
  for (const key of keys) {
    const reason = validateKey(key);
    if (reason === null) out.keys.push(key);
    else out.invalid.push({ key, reason });
  }
  return out;
}

function dedupe(keys: readonly ReconcileKey[]): ReconcileKey[] {
  const seen = new Map<string, ReconcileKey>();
  for (const k of keys) seen.set(keyString(k), k);
  return [...seen.values()];
}
