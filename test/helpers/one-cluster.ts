// One sandbox cluster for an integration test that starts its own: started under the test's own root with the
// kinds the test gives, with a KubeConfig for it and the test's namespace created; stopped and removed at the end.
import { rmSync } from 'node:fs';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import type { SandboxKindOption } from '../../infra/sandbox/kind-options.js';
import { down, up, type ClusterSpec } from '../../infra/sandbox/sandbox.js';

export type OneCluster = { readonly cluster: ClusterState; readonly kc: KubeConfig };

/** Starts `spec` (one kwok node) under `root` with `kinds`, then creates `namespace` in it. */
export async function upOneCluster(o: {
  readonly spec: ClusterSpec;
  readonly root: string;
  readonly kinds: readonly SandboxKindOption[];
  readonly namespace: string;
}): Promise<OneCluster> {
  const [cluster] = (await up({
    clusters: [o.spec],
    nodes: 1,
    root: o.root,
    kinds: o.kinds,
    log: (m) => process.stderr.write(`sandbox: ${m}\n`),
  })) as [ClusterState];
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfig);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: o.namespace } } });
  return { cluster, kc };
}

/** Stops the clusters under `root` (a test's own sandbox root) and removes the folder. */
export async function downAndRemove(root: string): Promise<void> {
  await down(undefined, root);
  rmSync(root, { recursive: true, force: true });
}
