// The kinds fleetq can own in a cluster: the key kinds of the registered watch descriptors. This layer imports
// nothing above it, so it reads them from kinds-generated.ts, rendered from the descriptors by `npm run
// rbac:render` (a unit test refuses a stale one).
import { REGISTERED_KINDS } from './kinds-generated.js';

export type Kind = (typeof REGISTERED_KINDS.all)[number];

export const ALL_KINDS: readonly Kind[] = REGISTERED_KINDS.all;
/** The workload kinds kube-controller-manager also runs; owning them needs its controller turned off. */
export const WORKLOAD_KINDS: readonly Kind[] = REGISTERED_KINDS.workloads;
/**
 * What a cluster owns when its registry entry does not say (Deployment and ReplicaSet today: their descriptors
 * say `ownedByDefault`). The ConfigMap mirror is opt-in (owns: [ConfigMap] plus mirror.allowedNamespaces): it
 * writes into namespaces that the ConfigMap's author names, with fleetq's rights.
 */
export const DEFAULT_OWNED_KINDS: readonly Kind[] = REGISTERED_KINDS.defaultOwned;
/** Kinds a cluster can hand over one object at a time (registry `handOver`), through the object's own field. */
export const HAND_OVER_KINDS: readonly Kind[] = REGISTERED_KINDS.handOver;
/**
 * Groups of kinds a cluster owns all of or none of: the key kinds of one upstream controller (descriptors'
 * `ownedWith`; LeaderWorkerSet with LeaderWorkerSetPod).
 */
export const OWNED_TOGETHER: readonly (readonly Kind[])[] = REGISTERED_KINDS.ownedTogether;

export function isKind(value: string): value is Kind {
  return (ALL_KINDS as readonly string[]).includes(value);
}
