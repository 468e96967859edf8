// fleetq authenticated as the ServiceAccounts of infra/k8s/ on a sandbox cluster, as a split deployment runs it:
// the forwarder with fleetq-forwarder's token, the handlers with fleetq-handler's, each a registry entry
// `server` + `tokenFile`. And the apiserver's own count of the requests its authorizer refused.
//
// Every other client of a sandbox cluster (the test harness, kube-controller-manager, kube-scheduler, kwok) uses
// the admin token, whose group system:masters is allowed before RBAC is asked; so RBAC answers only fleetq's
// ServiceAccounts there, and each of its "no opinion" answers (what RBAC says when no rule grants a request;
// the apiserver then refuses it with 403) is one request a fleetq role lacked a rule for.
import { join } from 'node:path';
import { ensurePki } from '../../../infra/sandbox/pki.js';
import { httpsGet } from '../../../infra/sandbox/probe.js';
import { ensureFleetqRbac, type ServiceAccountCredentials } from '../../../infra/sandbox/rbac.js';
import { sandboxRoot } from '../../../infra/sandbox/sandbox.js';
import { optInKinds } from '../../../shared/controllers/roles.js';
import { ClusterRegistry, type ClusterConfig } from '../../../shared/kube/registry.js';
import type { Component } from '../../../infra/k8s/manifests.js';
import { sandboxCluster } from './clusters.js';

export type ClusterEntry = Omit<ClusterConfig, 'connection'>;

export type ServiceAccountRegistries = Readonly<Record<Component, ClusterRegistry>> & {
  readonly credentials: ServiceAccountCredentials;
};

/**
 * Applies the roles and ServiceAccounts to `cluster` (idempotent), with the role pair of each opt-in kind the entry
 * owns (Job: job-rbac.yaml), and a registry per component on fresh tokens.
 */
export async function serviceAccountRegistries(
  cluster: string,
  entry: ClusterEntry,
): Promise<ServiceAccountRegistries> {
  const { state, kc } = await sandboxCluster(cluster);
  const optIn = optInKinds().filter((k) => (entry.owns as readonly string[] | undefined)?.includes(k));
  const credentials = await ensureFleetqRbac(kc, { dir: join(state.dir, 'rbac'), optIn });
  const registry = (component: Component): ClusterRegistry =>
    new ClusterRegistry([
      {
        ...entry,
        connection: {
          type: 'token',
          server: credentials.server,
          tokenFile: credentials.tokenFiles[component],
          caFile: credentials.caFile,
          insecureSkipTLSVerify: false,
        },
      },
    ]);
  return { forwarder: registry('forwarder'), handler: registry('handler'), credentials };
}

/** Requests the cluster's RBAC authorizer has refused since its apiserver started (see the top). */
export async function authorizationDenials(cluster: string): Promise<number> {
  const { state } = await sandboxCluster(cluster);
  const res = await httpsGet(`${state.server}/metrics`, ensurePki(sandboxRoot()));
  if (res.status !== 200) throw new Error(`GET ${state.server}/metrics: ${res.status}`);
  const refused = [
    'authorization_attempts_total{result="no-opinion"}',
    'authorization_attempts_total{result="denied"}',
  ];
  return res.body
    .split('\n')
    .filter((l) => refused.some((series) => l.startsWith(`${series} `)))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}
