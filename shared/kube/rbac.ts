// The RBAC roles fleetq runs under, as data: access to API resources (with verbs and the reason for each), the
// rules and ClusterRoles built from it. What each kind needs comes from above: shared/controllers/roles.ts derives
// it from the registered watch descriptors and builds fleetq's roles with the functions here; infra/k8s/ holds
// them rendered as YAML (infra/k8s/render.ts); the sandbox binds them to ServiceAccounts (infra/sandbox/rbac.ts),
// and the conformance suite runs fleetq under those, so a missing rule fails there with a 403, and a rule no code
// needs is a rule someone has to justify in the descriptor that asks for it.
//
// Two roles, because the two components are deployed apart and the forwarder must not be able to write:
// - fleetq-forwarder: get, list and watch only. Per kind, the resources its watch descriptor watches (For, Owns,
//   Watches); for every cluster, the two namespace reads that bind checkpoints to the cluster's identity.
// - fleetq-handler: what observe reads (live, or the cache's live fallbacks and fresh GETs: the same verbs either
//   way) and what the writer writes, nothing else.
// This layer imports nothing above it: the kinds' needs and the resource table are parameters.
import { RESOURCES, type ResourceInfo } from './resources.js';

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

export const LABELS: Readonly<Record<string, string>> = { 'app.kubernetes.io/part-of': 'fleetq' };

/** The needs of `kinds`, from `table` (one entry per kind with a controller). */
export function needsOf(kinds: readonly string[], table: readonly KindNeeds[]): KindNeeds[] {
  return kinds.map((kind) => {
    const needs = table.find((n) => n.kind === kind);
    if (!needs) throw new Error(`no RBAC needs are declared for kind ${kind} (its watch descriptor's access)`);
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
  resources: readonly ResourceInfo[] = Object.values(RESOURCES),
): RoleSpec {
  const watched = needs.flatMap((n) =>
    n.watches.map((w): Access => ({ kind: w.kind, verbs: ['list', 'watch'], why: w.why })),
  );
  refuseSecrets(name, [...extra, ...watched]);
  const rules = rulesOf([...extra, ...watched], resources);
  const writes = rules.filter((r) => r.verbs.some((v) => !READ_VERBS.includes(v)));
  if (writes.length > 0) throw new Error(`the forwarder's role ${name} would write: ${JSON.stringify(writes)}`);
  return { name, description, rules };
}

/** The kinds' handler reads and writes. */
export function handlerRole(
  name: string,
  needs: readonly KindNeeds[],
  description = 'The handlers (workers, Lambdas): their reads and only what they write.',
  resources: readonly ResourceInfo[] = Object.values(RESOURCES),
): RoleSpec {
  const accesses = needs.flatMap((n) => [...n.reads, ...n.writes]);
  refuseSecrets(name, accesses);
  return { name, description, rules: rulesOf(accesses, resources) };
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
 * asked for, in VERBS order; rules in the order of `resources` (the resource table: kinds' own, then dependents).
 * Kept one resource a rule, so each says why.
 */
export function rulesOf(
  accesses: readonly Access[],
  resources: readonly ResourceInfo[] = Object.values(RESOURCES),
): ExplainedRule[] {
  type Merged = { order: number; rule: PolicyRule; verbs: Set<Verb>; why: string[] };
  const merged = new Map<string, Merged>();
  const kinds = resources.map((r) => r.kind);
  for (const a of accesses) {
    const info = resources.find((r) => r.kind === a.kind);
    if (info === undefined) throw new Error(`no API resource of kind ${a.kind} for an RBAC rule (${a.why})`);
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
