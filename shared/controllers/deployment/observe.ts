// What one Deployment reconcile reads, through the cache (after the key's own last writes are in it) or live:
// the Deployment, then its ReplicaSets plus the namespace's orphan ReplicaSets (claiming needs the ones that
// stopped matching too, and the orphans it may adopt: the cache's owner and orphan indexes, or one filtered
// list live), and pods only when a Recreate rollout must check that no old pod still runs (1 list by the
// Deployment's selector, live). An invalid selector fails the observation (claim.ts).
import type { ReconcileKey } from '../../kube/key.js';
import { controllerRefOf } from '../../kube/meta/controller-ref.js';
import { isSelectingAll, selectorOf } from '../../kube/meta/label-selector.js';
import { controlledOrOrphaned, type ClusterView } from '../../kube/view.js';
import { claimObjects } from '../common/claim.js';
import { resolvePin, withPinnedTemplate } from './fleet-rollout-pin.js';
import { actualReplicaCount, findNewReplicaSet, specReplicas } from './replica-sets.js';
import { Strategy, type Deployment, type ObservedDeployment, type Pod, type ReplicaSet } from './types.js';

export async function observeDeployment(view: ClusterView, key: ReconcileKey): Promise<ObservedDeployment> {
  const cached = await view.get<Deployment>('Deployment', key.namespace, key.name);
  if (cached === null)
    return { namespace: key.namespace, name: key.name, deployment: null, replicaSets: [], pods: null, reads: 1 };
  const replicaSets = await controlledOrOrphaned<ReplicaSet>(
    view,
    'ReplicaSet',
    key.namespace,
    cached.metadata.uid ?? '',
  );
  let reads = 2;
  // Orphans it will adopt (as the planner's claim finds them): upstream's canAdopt makes an uncached read of the
  // Deployment first (a cache may lag a deletion); that fresher Deployment is the one planned with.
  let deployment: Deployment = cached;
  if (!isSelectingAll(cached.spec.selector)) {
    if (claimObjects(cached, replicaSets, selectorOf(cached.spec.selector)).adopt.length > 0) {
      const fresh = await view.get<Deployment>('Deployment', key.namespace, key.name, { fresh: true });
      reads++;
      if (fresh === null || fresh.metadata.uid !== cached.metadata.uid)
        return { namespace: key.namespace, name: key.name, deployment: null, replicaSets: [], pods: null, reads };
      deployment = fresh;
    }
  }
  let pods: Pod[] | null = null;
  if (needsPods(deployment, replicaSets)) {
    const labelSelector = selectorOf(deployment.spec.selector).toString();
    pods = await view.list<Pod>('Pod', key.namespace, { labelSelector });
    reads++;
  }
  return { namespace: key.namespace, name: key.name, deployment, replicaSets, pods, reads };
}

/** Recreate, rolling out, and every old ReplicaSet already at 0 (spec and status): oldPodsRunning decides. */
export function needsPods(d: Deployment, all: readonly ReplicaSet[]): boolean {
  if (d.spec.strategy?.type !== Strategy.Recreate || d.spec.paused === true) return false;
  if (d.metadata.deletionTimestamp !== undefined || isSelectingAll(d.spec.selector)) return false;
  const selector = selectorOf(d.spec.selector);
  const owned = all.filter((rs) => {
    const ref = controllerRefOf(rs);
    return ref ? ref.uid === d.metadata.uid : selector.matches(rs.metadata.labels);
  });
  // Under a fleet rollout hold the ReplicaSet rolled to is the admitted one, as the planner sees it.
  const pin = resolvePin(d, owned);
  if (pin.kind === 'unknown' || (pin.kind === 'hold' && pin.target === null)) return false;
  const newRS = findNewReplicaSet(pin.kind === 'hold' && pin.target ? withPinnedTemplate(d, pin.target) : d, [
    ...owned,
  ]);
  const old = owned.filter((rs) => rs !== newRS);
  return old.length > 0 && actualReplicaCount(old) === 0 && old.every((rs) => specReplicas(rs) === 0);
}
