// fleetq's RBAC on a sandbox cluster: applies infra/k8s's objects (the two ClusterRoles, the fleetq-system
// namespace, a ServiceAccount bound to each role) with server-side apply, waits until the apiserver's authorizer
// grants every rule to its ServiceAccount, and writes a token of each ServiceAccount (TokenRequest API, the
// apiserver's --service-account-signing-key-file) to a file, the way a Pod gets its projected token. A registry
// entry `server` + `tokenFile` then authenticates as that ServiceAccount, re-reading the file when it changes.
// Idempotent: on a cluster that has it all, it changes nothing but writes fresh tokens.
import { renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  AuthorizationV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { clusterManifests, NAMESPACE, optInManifests, SERVICE_ACCOUNTS, type Component } from '../k8s/manifests.js';
import { fleetqRoles, optInRoles } from '../../shared/controllers/roles.js';
import type { PolicyRule } from '../../shared/kube/rbac.js';
import { waitFor } from './process.js';

const FIELD_MANAGER = 'fleetq-sandbox';
/** Long enough for any test run; a re-run writes fresh ones. */
const DEFAULT_TOKEN_SECONDS = 6 * 3600;

export type ServiceAccountCredentials = {
  readonly server: string;
  readonly caFile: string;
  /** A token file per component. */
  readonly tokenFiles: Readonly<Record<Component, string>>;
};

export async function ensureFleetqRbac(
  kc: KubeConfig,
  o: {
    readonly dir: string;
    readonly tokenSeconds?: number;
    /** Opt-in kinds (shared/controllers/roles.ts optInKinds) the cluster owns: their role pairs are bound too. */
    readonly optIn?: readonly string[];
  },
): Promise<ServiceAccountCredentials> {
  const cluster = kc.getCurrentCluster();
  if (!cluster?.caFile) throw new Error('the sandbox kubeconfig names no server or CA file');
  const objects = KubernetesObjectApi.makeApiClient(kc);
  for (const manifest of [...clusterManifests(), ...(o.optIn ?? []).flatMap(optInManifests)]) {
    await objects.patch(
      manifest as KubernetesObject,
      undefined,
      undefined,
      FIELD_MANAGER,
      true,
      PatchStrategy.ServerSideApply,
    );
  }
  const roles = fleetqRoles();
  await untilGranted(kc, 'forwarder', roles.forwarder.rules);
  await untilGranted(kc, 'handler', roles.handler.rules);
  for (const kind of o.optIn ?? []) {
    const pair = optInRoles(kind);
    await untilGranted(kc, 'forwarder', pair.forwarder.rules);
    await untilGranted(kc, 'handler', pair.handler.rules);
  }
  mkdirSync(o.dir, { recursive: true });
  const core = kc.makeApiClient(CoreV1Api);
  const tokenFiles = {} as Record<Component, string>;
  for (const component of Object.keys(SERVICE_ACCOUNTS) as Component[]) {
    const name = SERVICE_ACCOUNTS[component];
    const request = await core.createNamespacedServiceAccountToken({
      name,
      namespace: NAMESPACE,
      body: { spec: { audiences: [], expirationSeconds: o.tokenSeconds ?? DEFAULT_TOKEN_SECONDS } },
    });
    const token = request.status?.token;
    if (!token) throw new Error(`TokenRequest for ${NAMESPACE}/${name} returned no token`);
    const path = join(o.dir, `${name}.token`);
    // Written whole, then renamed into place: a reader never sees half a token.
    writeFileSync(`${path}.tmp`, token, { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
    tokenFiles[component] = path;
  }
  return { server: cluster.server, caFile: cluster.caFile, tokenFiles };
}

export function serviceAccountUser(component: Component): string {
  return `system:serviceaccount:${NAMESPACE}:${SERVICE_ACCOUNTS[component]}`;
}

/**
 * Waits until a SubjectAccessReview allows the ServiceAccount every verb of every rule: bindings reach the
 * authorizer through its informer, a moment after they were written; and a rule the apiserver does not grant
 * as written (a typo in a resource) shows here, not as a 403 in the middle of a test.
 */
async function untilGranted(kc: KubeConfig, component: Component, rules: readonly PolicyRule[]): Promise<void> {
  const authz = kc.makeApiClient(AuthorizationV1Api);
  const user = serviceAccountUser(component);
  const checks = rules.flatMap((rule) =>
    rule.verbs.flatMap((verb) =>
      rule.resources.map((r) => {
        const [resource, subresource] = r.split('/');
        return {
          group: rule.apiGroups[0] ?? '',
          resource,
          ...(subresource !== undefined && { subresource }),
          ...(rule.resourceNames?.[0] !== undefined && { name: rule.resourceNames[0] }),
          verb,
        };
      }),
    ),
  );
  let denied: string[] = [];
  const granted = waitFor(
    async () => {
      const answers = await Promise.all(
        checks.map(async (resourceAttributes) => {
          const review = await authz.createSubjectAccessReview({
            body: {
              spec: {
                user,
                groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`],
                resourceAttributes,
              },
            },
          });
          return review.status?.allowed === true ? undefined : JSON.stringify(resourceAttributes);
        }),
      );
      denied = answers.filter((a): a is string => a !== undefined);
      return denied.length === 0;
    },
    30_000,
    250,
    `${user} to be granted its role`,
  );
  await granted.catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; still denied: ${denied.join(', ')}`);
  });
}
