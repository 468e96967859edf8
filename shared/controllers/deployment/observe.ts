// What one Deployment reconcile reads, live: the namespace's ReplicaSets (1 list: claiming needs the ones
// that stopped matching too), then the Deployment (the fresh read upstream makes before adopting), and pods
// only when a Recreate rollout must check that no old pod still runs (1 list by the Deployment's selector).
import type { ReconcileKey } from '../../kube/key.js';
import type { ClusterView } from '../../kube/view.js';
import { controllerOf } from './claim.js';
import {
  actualReplicaCount,
  findNewReplicaSet,
  isSelectingAll,
  selectorMatches,
  selectorString,
  specReplicas,
} from './replica-sets.js';
import { Strategy, type Deployment, type ObservedDeployment, type Pod, type ReplicaSet } from './types.js';

export async function observeDeployment(view: ClusterView, key: ReconcileKey): Promise<ObservedDeployment> {
  // The view types objects with client-node's shapes; what comes back is the apiserver's JSON (string times).
  const replicaSets = (await view.list('ReplicaSet', key.namespace)) as unknown as ReplicaSet[];
  const deployment = (await view.get('Deployment', key.namespace, key.name)) as unknown as Deployment | null;
  let reads = 2;
  let pods: Pod[] | null = null;
  if (deployment !== null && needsPods(deployment, replicaSets)) {
    const selector = selectorString(deployment.spec.selector);
    pods = (await view.list('Pod', key.namespace, { labelSelector: selector })) as unknown as Pod[];
    reads++;
  }
  return { namespace: key.namespace, name: key.name, deployment, replicaSets, pods, reads };
}

/** Recreate, rolling out, and every old ReplicaSet already at 0 (spec and status): oldPodsRunning decides. */
export function needsPods(d: Deployment, all: readonly ReplicaSet[]): boolean {
  if (d.spec.strategy?.type !== Strategy.Recreate || d.spec.paused === true) return false;
  if (d.metadata.deletionTimestamp !== undefined || isSelectingAll(d.spec.selector)) return false;
  const owned = all.filter((rs) => {
    const ref = controllerOf(rs);
    return ref ? ref.uid === d.metadata.uid : selectorMatches(d.spec.selector, rs.metadata.labels);
  });
  const newRS = findNewReplicaSet(d, [...owned]);
  const old = owned.filter((rs) => rs !== newRS);
  return old.length > 0 && actualReplicaCount(old) === 0 && old.every((rs) => specReplicas(rs) === 0);
}
