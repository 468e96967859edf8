// Per-cluster API clients, built on first use and cached: a rate-limited REST client with its circuit
// (one probe at a time while the cluster does not answer) and a live view.
import { ClusterCircuit } from '../kube/circuit.js';
import { LiveClusterView } from '../kube/cluster-view.js';
import type { ClusterRegistry } from '../kube/registry.js';
import { KubeRest, type RequestObserver } from '../kube/rest.js';
import { TokenBucket } from '../kube/token-bucket.js';
import type { ClusterClients } from './reconcile-one.js';

export function clusterClients(
  registry: ClusterRegistry,
  observe?: RequestObserver,
): (cluster: string) => ClusterClients {
  const cache = new Map<string, ClusterClients>();
  return (cluster) => {
    const hit = cache.get(cluster);
    if (hit) return hit;
    const config = registry.get(cluster);
    if (!config) throw new Error(`unknown cluster ${cluster}`);
    const rest = new KubeRest(
      cluster,
      registry.kubeConfig(cluster),
      new TokenBucket(config.limits.qps, config.limits.burst),
      observe,
      new ClusterCircuit(cluster),
    );
    const clients = { rest, view: new LiveClusterView(rest) };
    cache.set(cluster, clients);
    return clients;
  };
}
