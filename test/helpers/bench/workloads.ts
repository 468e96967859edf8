// The shape of a fleet's workload, made directly through the API for benches that run no controller: a
// Deployment, the ReplicaSet it owns and that ReplicaSet's pods.
import { randomBytes } from 'node:crypto';
import { waitFor } from '../../../infra/sandbox/process.js';
import type { BenchClient } from './client.js';
import { benchDeployment } from '../pipeline/fleet-pipeline.js';
import { kwokPodTemplate } from '../sandbox/clusters.js';

const shortHash = (): string => randomBytes(5).toString('hex').slice(0, 9);

/**
 * One Deployment, its ReplicaSet and its `pods` pods, as the Deployment and ReplicaSet controllers would make them.
 * With directBind the pods name their node (round-robin over `nodes`) instead of waiting for the scheduler.
 */
export async function createWorkload(
  client: BenchClient,
  namespace: string,
  name: string,
  options: { readonly pods: number; readonly nodes: readonly string[]; readonly directBind: boolean },
): Promise<void> {
  const { pods: PODS_PER_WORKLOAD, nodes } = options;
  const base = `/apis/apps/v1/namespaces/${namespace}`;
  const d = await client.request<{ metadata: { uid: string } }>('POST', `${base}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    ...benchDeployment(name, PODS_PER_WORKLOAD),
  });
  const hash = shortHash();
  const labels = { app: name, 'pod-template-hash': hash };
  const template = kwokPodTemplate(labels);
  const rsName = `${name}-${hash}`;
  const rs = await client.request<{ metadata: { uid: string } }>('POST', `${base}/replicasets`, {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: rsName,
      labels,
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(PODS_PER_WORKLOAD),
        'deployment.kubernetes.io/max-replicas': String(PODS_PER_WORKLOAD + 5),
        'deployment.kubernetes.io/revision': '1',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name,
          uid: d.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { replicas: PODS_PER_WORKLOAD, selector: { matchLabels: labels }, template },
  });
  await Promise.all(
    Array.from({ length: PODS_PER_WORKLOAD }, (_, i) =>
      client.request('POST', `/api/v1/namespaces/${namespace}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `${rsName}-${randomBytes(3).toString('hex').slice(0, 5)}`,
          labels,
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: rsName,
              uid: rs.metadata.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: {
          ...template.spec,
          ...(options.directBind && { nodeName: nodes[i % nodes.length] }),
        },
      }),
    ),
  );
}

/** A namespace for the workloads, once pods can be admitted into it. */
export async function createWorkloadNamespace(client: BenchClient, namespace: string): Promise<void> {
  await client.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  // The service-account controller makes `default` in a new namespace; pods cannot be admitted before it exists.
  await waitFor(
    async () =>
      (await client.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${namespace}/serviceaccounts`)).items
        .length > 0,
    60_000,
    250,
    `serviceaccount default in ${namespace}`,
  );
}

export async function nodeNamesOf(client: BenchClient): Promise<string[]> {
  const nodes = await client.request<{ items: Array<{ metadata: { name: string } }> }>('GET', '/api/v1/nodes');
  return nodes.items.map((n) => n.metadata.name);
}

/** Waits until no pod of the namespace is in a phase other than Running. */
export async function untilPodsRunning(client: BenchClient, namespace: string, timeoutMs: number): Promise<void> {
  await waitFor(
    async () =>
      (
        await client.request<{ items: unknown[] }>(
          'GET',
          `/api/v1/namespaces/${namespace}/pods?limit=1&fieldSelector=${encodeURIComponent('status.phase!=Running')}`,
        )
      ).items.length === 0,
    timeoutMs,
    1_000,
    `every pod of ${namespace} Running`,
  );
}

/** The mean size of a watched pod as the apiserver sends it (JSON), over a page of the namespace's pods; 0 if none. */
export async function meanPodJsonBytes(client: BenchClient, namespace: string): Promise<number> {
  const page = await client.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${namespace}/pods?limit=500`);
  if (page.items.length === 0) return 0;
  const bytes = page.items.reduce<number>(
    (a, p) => a + Buffer.byteLength(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...(p as object) })),
    0,
  );
  return Math.round(bytes / page.items.length);
}
