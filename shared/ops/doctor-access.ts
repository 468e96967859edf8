// Doctor: are the cluster's credentials valid, and allowed what the kinds it serves need? The needs come from the
// controllers' watch descriptors (controllers/roles.ts: what the forwarder lists and watches, what the handler
// reads and writes), the same that infra/k8s/ renders as ClusterRoles; each (verb, resource) is asked of the
// apiserver as a SelfSubjectAccessReview for the identity in the kubeconfig. `fleetq run` uses one identity for
// the forwarder and the handlers, so both roles' rules are checked.
import { KIND_NEEDS, optInRoles } from '../controllers/roles.js';
import { DESCRIPTORS } from '../controllers/index.js';
import { ApiError } from '../kube/errors.js';
import { DEFAULT_OWNED_KINDS } from '../kube/kinds.js';
import {
  CLUSTER_IDENTITY_READS,
  forwarderRole,
  handlerRole,
  needsOf,
  type ExplainedRule,
  type KindNeeds,
} from '../kube/rbac.js';
import { servedKinds, type ClusterConfig } from '../kube/registry.js';
import type { KubeRest } from '../kube/rest.js';
import { CheckStatus, type Check } from './doctor-check.js';

/** One request the identity must be allowed: a SelfSubjectAccessReview's resourceAttributes. */
export type Permission = {
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly verb: string;
  readonly name?: string;
};

/** The permissions `kind` needs (forwarder and handler), or undefined for a kind without declared needs. */
export function permissionsOf(kind: string, table: readonly KindNeeds[] = KIND_NEEDS): Permission[] | undefined {
  if (!table.some((n) => n.kind === kind)) return undefined;
  const needs = needsOf([kind], table);
  const resources = DESCRIPTORS.resourceTable;
  return [
    ...forwarderRole('doctor', needs, [], undefined, resources).rules,
    ...handlerRole('doctor', needs, undefined, resources).rules,
  ].flatMap(permissionsOfRule);
}

/** The forwarder's reads of any cluster (its identity: kube-system's uid, a one-item namespace list). */
export function identityPermissions(): Permission[] {
  return forwarderRole('doctor', [], CLUSTER_IDENTITY_READS, undefined, DESCRIPTORS.resourceTable).rules.flatMap(
    permissionsOfRule,
  );
}

function permissionsOfRule(rule: ExplainedRule): Permission[] {
  return rule.apiGroups.flatMap((group) =>
    rule.resources.flatMap((r) => {
      const [resource = r, subresource] = r.split('/');
      return rule.verbs.flatMap((verb) =>
        (rule.resourceNames ?? [undefined]).map((name) => ({
          group,
          resource,
          verb,
          ...(subresource !== undefined && { subresource }),
          ...(name !== undefined && { name }),
        })),
      );
    }),
  );
}

export function describePermission(p: Permission): string {
  const resource = p.subresource === undefined ? p.resource : `${p.resource}/${p.subresource}`;
  const group = p.group === '' ? '' : `.${p.group}`;
  return `${p.verb} ${resource}${group}${p.name === undefined ? '' : ` ${p.name}`}`;
}

/** Where the ClusterRoles a kind needs are (infra/k8s/). */
export function rbacFileOf(kind: string): string {
  if ((DEFAULT_OWNED_KINDS as readonly string[]).includes(kind))
    return 'infra/k8s/forwarder-clusterrole.yaml and handler-clusterrole.yaml';
  return `infra/k8s/${optInRoles(kind).name}-rbac.yaml`;
}

export async function checkAccess(rest: KubeRest, c: ClusterConfig, timeoutMs: number): Promise<Check[]> {
  const name = `cluster ${c.name}: permissions`;
  const asked = new Map<string, Promise<boolean>>();
  const allowed = (p: Permission): Promise<boolean> => {
    const id = JSON.stringify(p);
    let answer = asked.get(id);
    if (answer === undefined) asked.set(id, (answer = review(rest, p, timeoutMs)));
    return answer;
  };
  const kinds = servedKinds(c);
  const wanted: Array<{ kind: string | undefined; permissions: Permission[] }> = [
    { kind: undefined, permissions: identityPermissions() },
    ...kinds.map((kind) => ({ kind, permissions: permissionsOf(kind) ?? [] })),
  ];
  let missing: Array<{ kind: string | undefined; denied: Permission[] }>;
  try {
    missing = await Promise.all(
      wanted.map(async (w) => {
        const answers = await Promise.all(w.permissions.map(allowed));
        return { kind: w.kind, denied: w.permissions.filter((_, i) => !answers[i]) };
      }),
    );
  } catch (err) {
    if (err instanceof ApiError && err.code === 401)
      return [
        {
          name: `cluster ${c.name}: credentials`,
          status: CheckStatus.fail,
          message: 'the apiserver refused the credentials (401 Unauthorized)',
          fix: "the token or client certificate in the cluster's kubeconfig (or tokenFile) is wrong or expired: renew it",
          cluster: c.name,
        },
      ];
    return [
      {
        name,
        status: CheckStatus.fail,
        message: `could not ask the apiserver (SelfSubjectAccessReview): ${err instanceof Error ? err.message : String(err)}`,
        fix: 'the identity needs create on selfsubjectaccessreviews (every authenticated user has it by default)',
        cluster: c.name,
      },
    ];
  }
  const denied = missing.filter((m) => m.denied.length > 0);
  const total = asked.size;
  if (denied.length === 0)
    return [
      {
        name,
        status: CheckStatus.ok,
        message: `allowed all ${total} requests its kinds need (${kinds.join(', ')})`,
        cluster: c.name,
      },
    ];
  return denied.map((m) => ({
    name,
    status: CheckStatus.fail,
    message: `${m.kind ?? "the forwarder's cluster identity reads"} needs what the identity may not do: ${m.denied
      .map(describePermission)
      .join(', ')}`,
    fix:
      m.kind === undefined
        ? 'bind infra/k8s/forwarder-clusterrole.yaml to the identity in the kubeconfig'
        : `bind the ClusterRoles of ${rbacFileOf(m.kind)} to the identity in the kubeconfig, or remove ${m.kind} from the cluster's owns`,
    cluster: c.name,
    ...(m.kind !== undefined && { kind: m.kind }),
  }));
}

async function review(rest: KubeRest, p: Permission, timeoutMs: number): Promise<boolean> {
  const out = await rest.request<{ status?: { allowed?: boolean } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      timeoutMs,
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { ...p } },
      },
    },
  );
  return out?.status?.allowed === true;
}
