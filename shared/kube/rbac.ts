// The RBAC roles fleetq runs under, as data: what each owned kind needs the forwarder to list and watch, what
// its handler reads and what it writes (with verbs), and the ClusterRoles built from that. infra/k8s/ holds them
// rendered as YAML (infra/k8s/render.ts); the sandbox binds them to ServiceAccounts (infra/sandbox/rbac.ts), and
// the conformance suite runs fleetq under those, so a missing rule fails there with a 403, and a rule no code
// needs is a rule someone has to justify here.
//
// Two roles, because the two components are deployed apart and the forwarder must not be able to write:
// - fleetq-forwarder: get, list and watch only. Per kind, the resources its watch descriptor watches (For, Owns,
//   Watches); for every cluster, the two namespace reads that bind checkpoints to the cluster's identity.
// - fleetq-handler: what observe reads (live, or the cache's live fallbacks and fresh GETs: the same verbs either
//   way) and what the writer writes, nothing else.
// The kinds outside the default owned set (the ConfigMap mirror, Job, TTLAfterFinished) are opt-in per cluster in
// the registry, so each has a pair of roles of its own, bound only where it runs: writing ConfigMaps in every
// namespace, Job status, or deleting Jobs, is not something a Deployment controller should be able to do.
//
// The needs derive from the controllers' watch descriptors (shared/controllers/*/descriptor.ts): what each
// watches, owns and declares in `access`, with the reason for each rule written there.
import { DESCRIPTORS } from '../controllers/index.js';
import type { WatchDescriptor } from '../controllers/descriptor.js';
import { DEFAULT_OWNED_KINDS } from './kinds.js';
import { RESOURCES, resourceOf } from './resources.js';

/** The RBAC verbs fleetq uses, in the order rules list them. */
export const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;
export type Verb = (typeof VERBS)[number];
export const READ_VERBS: readonly Verb[] = ['get', 'list', 'watch'];

/** Access to one API resource, named by kind as the resource table (resources.ts) names it; `why` goes in the YAML. */
export type Access = {
  readonly kind: string;
  readonly subresource?: string;
  /** Only these objects (a get of one namespace by name). */
  readonly resourceNames?: readonly string[];
  readonly verbs: readonly Verb[];
  readonly why: string;
};

/** What one owned kind needs. */
export type KindNeeds = {
  readonly kind: string;
  /** Kinds its forwarder lists and watches (cluster-wide). */
  readonly watches: readonly { readonly kind: string; readonly why: string }[];
  /** Its handler's reads. */
  readonly reads: readonly Access[];
  /** Its handler's writes. */
  readonly writes: readonly Access[];
};

/**
 * A write that only an apiserver with the OwnerReferencesPermissionEnforcement admission plugin checks: setting
 * blockOwnerDeletion on a controller reference (metav1.NewControllerRef, kube/meta/controller-ref.ts) needs
 * `update` on the owner's finalizers subresource. kube-apiserver does not enable it by default (the sandbox does
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
export function needsOfDescriptor(d: WatchDescriptor): KindNeeds | undefined {
  if (d.access === undefined) return undefined;
  const plural = (kind: string): string => resourceOf(kind).plural;
  const watches: KindNeeds['watches'] = [
    { kind: d.for.kind, why: d.for.why ?? `${d.kind}: its own objects (events yield their keys; a resync lists them)` },
    ...d.owns.map((o) => ({
      kind: o.kind,
      why: `${d.kind}: owns ${plural(o.kind)} (events wake their ${d.kind}${o.adopts ? ', orphans adopt' : ''})`,
    })),
    ...d.watches.map((m) => ({ kind: m.kind, why: `${d.kind}: ${m.why}` })),
  ];
  const owned = d.owns.map((o) => plural(o.kind)).join(' and ');
  const finalizers = d.owns.length === 0 ? [] : [ownerFinalizers(d.kind, owned)];
  return { kind: d.kind, watches, reads: d.access.reads, writes: [...d.access.writes, ...finalizers] };
}

/** Per kind with a controller, from its watch descriptor (controllers/index.ts): a new kind brings its own. */
export const KIND_NEEDS: readonly KindNeeds[] = DESCRIPTORS.descriptors.flatMap((d) => needsOfDescriptor(d) ?? []);

/** The forwarder's reads for any cluster, whatever it owns (forwarder/cluster-identity.ts). */
export const CLUSTER_IDENTITY_READS: readonly Access[] = [
  {
    kind: 'Namespace',
    resourceNames: ['kube-system'],
    verbs: ['get'],
    why: "the cluster's identity: checkpoints are bound to the uid of kube-system",
  },
  {
    kind: 'Namespace',
    verbs: ['list'],
    why: "the cluster's current resourceVersion (a one-item list): checkpoints ahead of it are discarded",
  },
];

export type PolicyRule = {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly verbs: readonly Verb[];
};

/** A rule with the reasons for it, one per need that asked for it. */
export type ExplainedRule = PolicyRule & { readonly why: readonly string[] };

export type RoleSpec = {
  readonly name: string;
  readonly description: string;
  readonly rules: readonly ExplainedRule[];
};

export type ClusterRole = {
  readonly apiVersion: 'rbac.authorization.k8s.io/v1';
  readonly kind: 'ClusterRole';
  readonly metadata: { readonly name: string; readonly labels: Readonly<Record<string, string>> };
  readonly rules: readonly PolicyRule[];
};

export const ROLE_NAMES = { forwarder: 'fleetq-forwarder', handler: 'fleetq-handler' } as const;

/** The name the roles of an opt-in kind carry after fleetq-forwarder- and fleetq-handler-. */
const OPT_IN_NAME: Readonly<Record<string, string>> = {
  ConfigMap: 'configmap-mirror',
  Job: 'job',
  TTLAfterFinished: 'ttl-after-finished',
};

export const LABELS: Readonly<Record<string, string>> = { 'app.kubernetes.io/part-of': 'fleetq' };

export function needsOf(kinds: readonly string[], table: readonly KindNeeds[] = KIND_NEEDS): KindNeeds[] {
  return kinds.map((kind) => {
    const needs = table.find((n) => n.kind === kind);
    if (!needs) throw new Error(`no RBAC needs are declared for kind ${kind} (shared/kube/rbac.ts)`);
    return needs;
  });
}

/**
 * No fleetq role touches Secrets: no controller reads one, and a cluster-wide Secret rule would reach fleetq's own
 * (the Redis URL, cluster tokens) in fleetq-system. The pools get theirs from the kubelet (env, volumes).
 */
function refuseSecrets(name: string, accesses: readonly Access[]): void {
  const secrets = accesses.filter((a) => a.kind === 'Secret');
  if (secrets.length > 0) {
    throw new Error(
      `the role ${name} would grant Secrets (${secrets.map((a) => a.why).join('; ')}): no fleetq role may; ` +
        'give a component a Secret by mounting it (env, volume)',
    );
  }
}

/** List and watch of what the kinds' forwarders watch, plus `extra` (the identity reads) first. */
export function forwarderRole(
  name: string,
  needs: readonly KindNeeds[],
  extra: readonly Access[] = [],
  description = 'The forwarder: get, list and watch only.',
): RoleSpec {
  const watched = needs.flatMap((n) =>
    n.watches.map((w): Access => ({ kind: w.kind, verbs: ['list', 'watch'], why: w.why })),
  );
  refuseSecrets(name, [...extra, ...watched]);
  const rules = rulesOf([...extra, ...watched]);
  const writes = rules.filter((r) => r.verbs.some((v) => !READ_VERBS.includes(v)));
  if (writes.length > 0) throw new Error(`the forwarder's role ${name} would write: ${JSON.stringify(writes)}`);
  return { name, description, rules };
}

/** The kinds' handler reads and writes. */
export function handlerRole(
  name: string,
  needs: readonly KindNeeds[],
  description = 'The handlers (workers, Lambdas): their reads and only what they write.',
): RoleSpec {
  const accesses = needs.flatMap((n) => [...n.reads, ...n.writes]);
  refuseSecrets(name, accesses);
  return { name, description, rules: rulesOf(accesses) };
}

/** The roles of a fleetq deployment owning the default kinds (Deployment, ReplicaSet). */
export function fleetqRoles(kinds: readonly string[] = DEFAULT_OWNED_KINDS): {
  forwarder: RoleSpec;
  handler: RoleSpec;
} {
  const needs = needsOf(kinds);
  return {
    forwarder: forwarderRole(ROLE_NAMES.forwarder, needs, CLUSTER_IDENTITY_READS),
    handler: handlerRole(ROLE_NAMES.handler, needs),
  };
}

/** The kinds with needs here that a cluster owns only when its registry entry says so. */
export function optInKinds(table: readonly KindNeeds[] = KIND_NEEDS): string[] {
  return table.map((n) => n.kind).filter((k) => !(DEFAULT_OWNED_KINDS as readonly string[]).includes(k));
}

/**
 * The pair of an opt-in kind (the ConfigMap mirror, Job, TTLAfterFinished), bound beside fleetqRoles() where a cluster owns it:
 * a cluster that does not own the kind grants nothing for it.
 */
export function optInRoles(kind: string): { name: string; forwarder: RoleSpec; handler: RoleSpec } {
  const needs = needsOf([kind]);
  const name = OPT_IN_NAME[kind] ?? kind.toLowerCase();
  const owning = `a cluster whose registry entry owns ${kind}`;
  return {
    name,
    forwarder: forwarderRole(
      `${ROLE_NAMES.forwarder}-${name}`,
      needs,
      [],
      `The forwarder of ${owning}, beside fleetq-forwarder.`,
    ),
    handler: handlerRole(`${ROLE_NAMES.handler}-${name}`, needs, `The handlers of ${owning}, beside fleetq-handler.`),
  };
}

export function toClusterRole(spec: RoleSpec): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: spec.name, labels: LABELS },
    rules: spec.rules.map(({ why: _why, ...rule }) => rule),
  };
}

/**
 * One rule per resource (and subresource, and set of resource names), its verbs the union of what every need
 * asked for, in VERBS order; rules in the resource table's order. Kept one resource a rule, so each says why.
 */
export function rulesOf(accesses: readonly Access[]): ExplainedRule[] {
  type Merged = { order: number; rule: PolicyRule; verbs: Set<Verb>; why: string[] };
  const merged = new Map<string, Merged>();
  const kinds = Object.keys(RESOURCES);
  for (const a of accesses) {
    const info = resourceOf(a.kind);
    const resource = a.subresource === undefined ? info.plural : `${info.plural}/${a.subresource}`;
    const names = a.resourceNames === undefined ? undefined : [...a.resourceNames].sort();
    const id = `${info.group}|${resource}|${names?.join(',') ?? '*'}`;
    const m = merged.get(id) ?? {
      // The kind's place in the table; its own resource before a subresource, any object before named ones.
      order: kinds.indexOf(a.kind) * 4 + (a.subresource === undefined ? 0 : 1) + (names === undefined ? 0 : 2),
      rule: {
        apiGroups: [info.group],
        resources: [resource],
        ...(names !== undefined && { resourceNames: names }),
        verbs: [],
      },
      verbs: new Set<Verb>(),
      why: [],
    };
    merged.set(id, m);
    for (const v of a.verbs) m.verbs.add(v);
    if (!m.why.includes(a.why)) m.why.push(a.why);
  }
  return [...merged.values()]
    .sort((x, y) => x.order - y.order || String(x.rule.resources).localeCompare(String(y.rule.resources)))
    .map((m) => ({ ...m.rule, verbs: VERBS.filter((v) => m.verbs.has(v)), why: m.why }));
}
