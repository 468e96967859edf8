// Doctor's opt-in probe (`fleetq doctor --probe`): for each owned kind it can make harmlessly, it creates a
// throwaway object that runs nothing (a ReplicaSet, Deployment or StatefulSet of 0 replicas, a DaemonSet whose
// node selector matches no node, a suspended Job), waits up to a few seconds for kube-controller-manager to write
// its status, and deletes it. It sees what the read-only check cannot: a conflict on a cluster that has no object
// of the kind yet. It writes to the cluster (one object per kind, in the namespace given), so it is never run by
// `fleetq run`.
import { randomBytes } from 'node:crypto';
import { ApiError } from '../kube/errors.js';
import type { ClusterConfig } from '../kube/registry.js';
import { resourcePath } from '../kube/resources.js';
import type { KubeRest } from '../kube/rest.js';
import { conflictFix, descriptorOf, kcmStatusWrite, KCM_MANAGER } from './doctor-conflicts.js';
import { CheckStatus, type Check } from './doctor-check.js';

export type ProbeOptions = {
  /** Where the throwaway objects are made. */
  readonly namespace: string;
  /** How long to wait for a status write. */
  readonly waitMs: number;
};

export const PROBE_LABEL = 'fleetq.dev/doctor-probe';

/** The throwaway object of `kind` (a Pod template that runs nothing), or undefined: no probe for that kind. */
export function probeObject(kind: string, name: string): Record<string, unknown> | undefined {
  const labels = { [PROBE_LABEL]: name };
  const metadata = { name, labels };
  const template = {
    metadata: { labels },
    spec: { containers: [{ name: 'probe', image: 'registry.invalid/fleetq-doctor-probe:0' }] },
  };
  const selector = { matchLabels: labels };
  switch (kind) {
    case 'ReplicaSet':
    case 'Deployment':
      return { apiVersion: 'apps/v1', kind, metadata, spec: { replicas: 0, selector, template } };
    case 'StatefulSet':
      return { apiVersion: 'apps/v1', kind, metadata, spec: { replicas: 0, serviceName: name, selector, template } };
    case 'DaemonSet':
      return {
        apiVersion: 'apps/v1',
        kind,
        metadata,
        spec: {
          selector,
          template: { ...template, spec: { ...template.spec, nodeSelector: { [PROBE_LABEL]: 'no-such-node' } } },
        },
      };
    case 'Job':
      return {
        apiVersion: 'batch/v1',
        kind,
        metadata,
        spec: { suspend: true, template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } },
      };
    default:
      return undefined;
  }
}

export async function probeConflicts(rest: KubeRest, c: ClusterConfig, o: ProbeOptions): Promise<Check[]> {
  const checks = await Promise.all(c.owns.map((kind) => probeKind(rest, c.name, kind, o)));
  return checks.flatMap((x) => x ?? []);
}

async function probeKind(rest: KubeRest, cluster: string, kind: string, o: ProbeOptions): Promise<Check | undefined> {
  const d = descriptorOf(kind);
  if (d?.upstream?.runs !== 'kube-controller-manager' || d.resource === undefined) return undefined;
  const name = `fleetq-doctor-probe-${randomBytes(4).toString('hex')}`;
  const body = probeObject(kind, name);
  const base = { name: `cluster ${cluster}: ${kind} probe`, cluster, kind };
  if (body === undefined)
    return {
      ...base,
      status: CheckStatus.warn,
      message: `no throwaway ${kind} to probe with`,
      fix: 'rely on the read-only check',
    };
  const path = resourcePath(d.resource, o.namespace);
  try {
    await rest.request('POST', path, { body });
  } catch (err) {
    return {
      ...base,
      status: CheckStatus.warn,
      message: `could not create a throwaway ${kind} in ${o.namespace}: ${err instanceof Error ? err.message : String(err)}`,
      fix: '--probe-namespace NS names a namespace where the identity may create it',
    };
  }
  try {
    const deadline = Date.now() + o.waitMs;
    for (;;) {
      const item = await rest.request<Parameters<typeof kcmStatusWrite>[0]>(
        'GET',
        resourcePath(d.resource, o.namespace, name),
      );
      if (kcmStatusWrite(item) !== undefined)
        return {
          ...base,
          status: CheckStatus.fail,
          message: `${KCM_MANAGER} wrote the status of a throwaway ${kind} (${o.namespace}/${name}): its ${d.upstream.name} is running`,
          fix: conflictFix(cluster, kind, d.upstream.name),
        };
      if (Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return {
      ...base,
      status: CheckStatus.ok,
      message: `${KCM_MANAGER} did not write a throwaway ${kind}'s status within ${o.waitMs / 1000} s`,
    };
  } finally {
    await rest
      .request('DELETE', resourcePath(d.resource, o.namespace, name), { body: { propagationPolicy: 'Background' } })
      .catch((err: unknown) => {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      });
  }
}
