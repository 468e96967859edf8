// Workloads for the chaos suite: Deployments of kwok pods, and waits on what the watcher saw.
import { AppsV1Api, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { waitFor } from '../../../infra/sandbox/process.js';
import { kwokPodTemplate } from '../sandbox/clusters.js';
import type { NamespaceWatcher } from './harness.js';

export function deployment(
  name: string,
  replicas: number,
  o: { maxSurge?: number | string; image?: string } = {},
): V1Deployment {
  // A label value is at most 63 characters (the long-key poison Deployment has a longer name).
  const app = name.length > 63 ? name.slice(0, 40) : name;
  const template = kwokPodTemplate({ app });
  const c = template.spec?.containers[0];
  if (o.image && c) c.image = o.image;
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: o.maxSurge ?? '25%', maxUnavailable: '25%' } },
      template,
    },
  };
}

export async function createDeployments(kc: KubeConfig, namespace: string, ds: V1Deployment[]): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  for (const body of ds) await apps.createNamespacedDeployment({ namespace, body });
}

/** Sets a Deployment's image (a rollout). */
export async function setImage(kc: KubeConfig, namespace: string, name: string, image: string): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  for (let attempt = 0; ; attempt++) {
    const d = await apps.readNamespacedDeployment({ namespace, name });
    const c = d.spec?.template.spec?.containers[0];
    if (c) c.image = image;
    try {
      await apps.replaceNamespacedDeployment({ namespace, name, body: d });
      return;
    } catch (err) {
      if ((err as { code?: number }).code !== 409 || attempt > 10) throw err;
    }
  }
}

/** Pods (not terminating) per ReplicaSet, per the watcher's model. */
export function activePodsByReplicaSet(w: NamespaceWatcher): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of w.objects.Pod.values()) {
    if (pod.metadata.deletionTimestamp) continue;
    const o = pod.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'ReplicaSet');
    if (o) out.set(o.name, (out.get(o.name) ?? 0) + 1);
  }
  return out;
}

/**
 * Every named Deployment rolled out on the watcher's model: observedGeneration current, one ReplicaSet with
 * the Deployment's replicas (spec and status), that many active pods, older ReplicaSets at 0 with no pods.
 */
export function rolledOut(w: NamespaceWatcher, names: readonly string[], o: { image?: string } = {}): boolean {
  const pods = activePodsByReplicaSet(w);
  for (const name of names) {
    const d = w.objects.Deployment.get(name);
    if (!d) return false;
    const spec = d.spec as { replicas?: number; template?: { spec?: { containers?: Array<{ image?: string }> } } };
    const status = (d.status ?? {}) as { observedGeneration?: number; updatedReplicas?: number; replicas?: number };
    const want = spec.replicas ?? 1;
    if ((status.observedGeneration ?? 0) < ((d.metadata as { generation?: number }).generation ?? 0)) return false;
    if (status.updatedReplicas !== want || status.replicas !== want) return false;
    const rss = [...w.objects.ReplicaSet.values()].filter((rs) =>
      rs.metadata.ownerReferences?.some((r) => r.controller === true && r.kind === 'Deployment' && r.name === name),
    );
    for (const rs of rss) {
      const rsName = rs.metadata.name ?? '';
      const rsSpec = rs.spec as { replicas?: number; template?: { spec?: { containers?: Array<{ image?: string }> } } };
      const image = rsSpec.template?.spec?.containers?.[0]?.image;
      const current = image === (o.image ?? spec.template?.spec?.containers?.[0]?.image);
      const n = current ? want : 0;
      if ((rsSpec.replicas ?? 1) !== n) return false;
      if ((pods.get(rsName) ?? 0) !== n) return false;
      if (((rs.status ?? {}) as { replicas?: number }).replicas !== n) return false;
    }
  }
  return true;
}

export async function waitRolledOut(
  w: NamespaceWatcher,
  names: readonly string[],
  timeoutMs: number,
  o: { image?: string } = {},
): Promise<void> {
  await waitFor(async () => rolledOut(w, names, o), timeoutMs, 250, `${names.length} Deployment(s) rolled out`);
}
