// The RBAC manifests of infra/k8s/, as objects and as the YAML committed there: the ClusterRoles built by
// shared/controllers/roles.ts (from the registered watch descriptors), the fleetq-system namespace, a ServiceAccount bound to each role, and the admission
// policy that keeps both ServiceAccounts from writing in fleetq-system. The sandbox
// applies the same objects (infra/sandbox/rbac.ts); `npm run rbac:render` writes the files, and a unit test
// fails when a committed file differs from what this renders.
import { Document, isMap, isSeq } from 'yaml';
import { fleetqRoles, optInKinds, optInRoles } from '../../shared/controllers/roles.js';
import { LABELS, toClusterRole, type ClusterRole, type RoleSpec } from '../../shared/kube/rbac.js';

export const NAMESPACE = 'fleetq-system';

/** One ServiceAccount per component; deployed apart, each mounts its own token. */
export const SERVICE_ACCOUNTS = { forwarder: 'fleetq-forwarder', handler: 'fleetq-handler' } as const;
export type Component = keyof typeof SERVICE_ACCOUNTS;

export type Manifest = { readonly apiVersion: string; readonly kind: string; readonly metadata: object };

/** A document of a file, with the comment rendered above each of its `rules` (ClusterRoles only). */
type Doc = { readonly object: Manifest; readonly role?: RoleSpec };

export type ManifestFile = { readonly file: string; readonly about: string; readonly docs: readonly Doc[] };

export function namespace(): Manifest {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE, labels: LABELS } };
}

export function serviceAccount(component: Component): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: SERVICE_ACCOUNTS[component], namespace: NAMESPACE, labels: LABELS },
  };
}

export function clusterRoleBinding(role: string, component: Component): Manifest {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: role, labels: LABELS },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: SERVICE_ACCOUNTS[component], namespace: NAMESPACE }],
  } as Manifest;
}

export const SYSTEM_POLICY = 'fleetq-system-protected';

/**
 * fleetq-system out of reach of fleetq's own ServiceAccounts: RBAC has no deny, and the handler's pod create
 * (and an opt-in role's ConfigMap writes) are cluster-wide, so admission refuses every create, update, delete
 * and connect they make in fleetq-system, where a home cluster keeps fleetq's Redis and token Secrets. Neither
 * needs to write there: the pools' own Deployments are the home cluster's controller-manager's.
 */
export function systemPolicy(): Manifest[] {
  const users = (Object.values(SERVICE_ACCOUNTS) as string[]).map((sa) => `'system:serviceaccount:${NAMESPACE}:${sa}'`);
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: SYSTEM_POLICY, labels: LABELS },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACE } },
          resourceRules: [
            {
              apiGroups: ['*'],
              apiVersions: ['*'],
              operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'],
              resources: ['*/*'],
            },
          ],
        },
        validations: [
          {
            expression: `!(request.userInfo.username in [${users.join(', ')}])`,
            message: `fleetq's ServiceAccounts may not write in ${NAMESPACE} (ValidatingAdmissionPolicy ${SYSTEM_POLICY})`,
            reason: 'Forbidden',
          },
        ],
      },
    } as Manifest,
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: SYSTEM_POLICY, labels: LABELS },
      spec: { policyName: SYSTEM_POLICY, validationActions: ['Deny'] },
    } as Manifest,
  ];
}

/** What a fleetq owning the default kinds needs on a cluster, in the order to apply it. */
export function clusterManifests(): Manifest[] {
  const roles = fleetqRoles();
  return [
    namespace(),
    toClusterRole(roles.forwarder),
    toClusterRole(roles.handler),
    serviceAccount('forwarder'),
    clusterRoleBinding(roles.forwarder.name, 'forwarder'),
    serviceAccount('handler'),
    clusterRoleBinding(roles.handler.name, 'handler'),
    ...systemPolicy(),
  ];
}

/** An opt-in kind's role pair and its bindings to the two ServiceAccounts (`<name>-rbac.yaml`), in apply order. */
export function optInManifests(kind: string): Manifest[] {
  const pair = optInRoles(kind);
  return [
    toClusterRole(pair.forwarder),
    clusterRoleBinding(pair.forwarder.name, 'forwarder'),
    toClusterRole(pair.handler),
    clusterRoleBinding(pair.handler.name, 'handler'),
  ];
}

export function manifestFiles(): ManifestFile[] {
  const roles = fleetqRoles();
  const role = (spec: RoleSpec): Doc => ({ object: toClusterRole(spec) satisfies ClusterRole, role: spec });
  return [
    {
      file: 'forwarder-clusterrole.yaml',
      about: roles.forwarder.description,
      docs: [role(roles.forwarder)],
    },
    {
      file: 'handler-clusterrole.yaml',
      about: roles.handler.description,
      docs: [role(roles.handler)],
    },
    {
      file: 'namespace.yaml',
      about: 'The namespace of the ServiceAccounts below.',
      docs: [{ object: namespace() }],
    },
    {
      file: 'forwarder-serviceaccount.yaml',
      about: `The forwarder's ServiceAccount, bound to ${roles.forwarder.name}.`,
      docs: [
        { object: serviceAccount('forwarder') },
        { object: clusterRoleBinding(roles.forwarder.name, 'forwarder') },
      ],
    },
    {
      file: 'handler-serviceaccount.yaml',
      about: `The handlers' ServiceAccount, bound to ${roles.handler.name}.`,
      docs: [{ object: serviceAccount('handler') }, { object: clusterRoleBinding(roles.handler.name, 'handler') }],
    },
    {
      file: 'fleetq-system-policy.yaml',
      about:
        "Admission refuses fleetq's ServiceAccounts any write in fleetq-system (RBAC cannot deny what a " +
        'cluster-wide rule grants). Kubernetes 1.30+ (ValidatingAdmissionPolicy GA).',
      docs: systemPolicy().map((object) => ({ object })),
    },
    ...optInKinds().map((kind): ManifestFile => {
      const pair = optInRoles(kind);
      return {
        file: `${pair.name}-rbac.yaml`,
        about: `Opt-in: apply to a cluster whose registry entry owns ${kind}, beside the default roles and bindings.`,
        docs: [
          role(pair.forwarder),
          { object: clusterRoleBinding(pair.forwarder.name, 'forwarder') },
          role(pair.handler),
          { object: clusterRoleBinding(pair.handler.name, 'handler') },
        ],
      };
    }),
    {
      // kustomize refuses files outside a kustomization's folder, so base/ gets the default RBAC as one file.
      file: 'base/rbac.yaml',
      about:
        'The RBAC of infra/k8s/base: namespace.yaml, the two ClusterRoles, the two ServiceAccount files and ' +
        'fleetq-system-policy.yaml of infra/k8s/ in one (kustomize reads no file outside base/).',
      docs: [
        { object: namespace() },
        role(roles.forwarder),
        role(roles.handler),
        { object: serviceAccount('forwarder') },
        { object: clusterRoleBinding(roles.forwarder.name, 'forwarder') },
        { object: serviceAccount('handler') },
        { object: clusterRoleBinding(roles.handler.name, 'handler') },
        ...systemPolicy().map((object) => ({ object })),
      ],
    },
  ];
}

export function renderFile(f: ManifestFile): string {
  const header = [
    `# ${f.about}`,
    '# Generated from shared/kube/rbac.ts by `npm run rbac:render`; edit that file, not this one.',
  ];
  const docs = f.docs.map(({ object, role }) => {
    const doc = new Document(object);
    const rules = role === undefined ? undefined : doc.get('rules');
    if (role !== undefined && isSeq(rules)) {
      rules.items.forEach((item, i) => {
        if (!isMap(item)) return;
        item.commentBefore = (role.rules[i]?.why ?? []).map((w) => ` ${w}`).join('\n');
        // `verbs: [get, list]`, as RBAC rules are usually written: a rule reads as one line per field.
        for (const field of item.items) if (isSeq(field.value)) field.value.flow = true;
      });
    }
    return doc.toString({ lineWidth: 0, singleQuote: true, flowCollectionPadding: false });
  });
  return `${header.join('\n')}\n${docs.join('---\n')}`;
}
