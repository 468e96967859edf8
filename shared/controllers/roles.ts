// fleetq's RBAC roles, from the registered watch descriptors: what each kind needs (the forwarder lists and
// watches its For, Owns and Watches kinds; the handler reads and writes what its `access` declares), and the
// ClusterRoles built from those needs with kube/rbac.ts. infra/k8s/ holds them rendered as YAML
// (infra/k8s/render.ts); the sandbox binds them (infra/sandbox/rbac.ts).
//
// The kinds outside the default owned set (the ConfigMap mirror, Job, TTLAfterFinished, ...) are opt-in per
// cluster in the registry, so each has a pair of roles of its own, bound only where it runs: writing ConfigMaps in
// every namespace, Job status, or deleting Jobs, is not something a Deployment controller should be able to do.
import { DEFAULT_OWNED_KINDS } from '../kube/kinds.js';
import {
  CLUSTER_IDENTITY_READS,
  ROLE_NAMES,
  forwarderRole,
  handlerRole,
  needsOf,
  type Access,
  type KindNeeds,
  type RoleSpec,
} from '../kube/rbac.js';
import type { DescriptorRegistry } from './descriptor-registry.js';
import type { WatchDescriptor } from './descriptor.js';
import { DESCRIPTORS } from './index.js';

/**
 * A write that only an apiserver with the OwnerReferencesPermissionEnforcement admission plugin checks: setting
 * blockOwnerDeletion on a controller reference (metav1.NewControllerRef, kube/meta/controller-ref.ts) needs
 * `update` on the owner's finalizers subresource (the owner: an object of the kind the descriptor is for). kube-apiserver does not enable it by default (the sandbox does
 * not), some distributions do; upstream's controller roles carry the same rule.
 */
function ownerFinalizers(kind: string, owned: string): Access {
  return {
    kind,
    subresource: 'finalizers',
    verbs: ['update'],
    why: `blockOwnerDeletion on the controller reference of the ${owned} it creates or adopts (checked only under OwnerReferencesPermissionEnforcement)`,
  };
}

/**
 * What a controller's watch descriptor says it needs: the forwarder lists and watches its For, Owns and Watches
 * kinds; the handler reads and writes what `access` declares, plus the owner-finalizers rule of a kind that owns
 * something. A descriptor without `access` (a kind not written yet) needs nothing.
 */
export function needsOfDescriptor(
  d: WatchDescriptor,
  registry: Pick<DescriptorRegistry, 'resourceOf'> = DESCRIPTORS,
): KindNeeds | undefined {
  if (d.access === undefined) return undefined;
  const plural = (kind: string): string => registry.resourceOf(kind).plural;
  const watches: KindNeeds['watches'] = [
    { kind: d.for.kind, why: d.for.why ?? `${d.kind}: its own objects (events yield their keys; a resync lists them)` },
    ...d.owns.map((o) => ({
      kind: o.kind,
      why: `${d.kind}: owns ${plural(o.kind)} (events wake their ${d.kind}${o.adopts ? ', orphans adopt' : ''})`,
    })),
    ...d.watches.map((m) => ({ kind: m.kind, why: `${d.kind}: ${m.why}` })),
  ];
  const owned = d.owns.map((o) => plural(o.kind)).join(' and ');
  // The owner is an object of the kind it is for, not of its key kind: a LeaderWorkerSetPod key's pod.
  const finalizers = d.owns.length === 0 ? [] : [ownerFinalizers(d.for.kind, owned)];
  return { kind: d.kind, watches, reads: d.access.reads, writes: [...d.access.writes, ...finalizers] };
}

/** Per kind with a controller, from its watch descriptor (controllers/index.ts): a new kind brings its own. */
export const KIND_NEEDS: readonly KindNeeds[] = DESCRIPTORS.descriptors.flatMap((d) => needsOfDescriptor(d) ?? []);

/** The resource table the rules are ordered by: the kinds' own resources, then their dependents. */
const TABLE = DESCRIPTORS.resourceTable;

/** The name the roles of an opt-in kind carry after fleetq-forwarder- and fleetq-handler- (default: lowercase kind). */
const OPT_IN_NAME: Readonly<Record<string, string>> = {
  ConfigMap: 'configmap-mirror',
  TTLAfterFinished: 'ttl-after-finished',
  LeaderWorkerSetPod: 'leaderworkerset-pod',
};

/** The roles of a fleetq deployment owning the default kinds (Deployment, ReplicaSet). */
export function fleetqRoles(kinds: readonly string[] = DEFAULT_OWNED_KINDS): {
  forwarder: RoleSpec;
  handler: RoleSpec;
} {
  const needs = needsOf(kinds, KIND_NEEDS);
  return {
    forwarder: forwarderRole(ROLE_NAMES.forwarder, needs, CLUSTER_IDENTITY_READS, undefined, TABLE),
    handler: handlerRole(ROLE_NAMES.handler, needs, undefined, TABLE),
  };
}

/** The kinds with needs here that a cluster owns only when its registry entry says so. */
export function optInKinds(table: readonly KindNeeds[] = KIND_NEEDS): string[] {
  return table.map((n) => n.kind).filter((k) => !(DEFAULT_OWNED_KINDS as readonly string[]).includes(k));
}

/**
 * The pair of an opt-in kind (the ConfigMap mirror, Job, TTLAfterFinished, ...), bound beside fleetqRoles() where a
 * cluster owns it: a cluster that does not own the kind grants nothing for it.
 */
export function optInRoles(kind: string): { name: string; forwarder: RoleSpec; handler: RoleSpec } {
  const needs = needsOf([kind], KIND_NEEDS);
  const name = OPT_IN_NAME[kind] ?? kind.toLowerCase();
  const owning = `a cluster whose registry entry owns ${kind}`;
  return {
    name,
    forwarder: forwarderRole(
      `${ROLE_NAMES.forwarder}-${name}`,
      needs,
      [],
      `The forwarder of ${owning}, beside fleetq-forwarder.`,
      TABLE,
    ),
    handler: handlerRole(
      `${ROLE_NAMES.handler}-${name}`,
      needs,
      `The handlers of ${owning}, beside fleetq-handler.`,
      TABLE,
    ),
  };
}
