// Observe one ReplicaSet, through the cache (cached-cluster-view.ts: after the key's own last writes are in
// it) or by live reads (consistent reads: a pass always sees the pods the previous pass wrote).
//
// Reads per reconcile (API requests when live; none when cached):
//   1  GET the ReplicaSet (404 → done, nothing else is read)
//   1  its pods plus the namespace's orphans (upstream's FilterPodsByOwner(owned + orphans)): from the cache's
//      owner and orphan indexes; live, one LIST of the namespace's pods (+1 per further 500), filtered, since
//      pods that stopped matching its selector but still name it as controller must be found to be released
//      and no server-side selector finds pods by owner.
//  +1  GET the ReplicaSet again, only when an orphan is to be adopted (RecheckDeletionTimestamp, after the list)
//  +2  LIST the ReplicaSets and the pods of the namespace, only when a ReplicaSet with a controller (a
//      Deployment's) may scale down, to rank by related pods on the same node (getIndirectlyRelatedPods)
// Steady state is therefore 2 reads, plus the writes the plan makes.
import type { Pod, ReplicaSet } from '../../kube/api/objects.js';
import type { ReconcileKey } from '../../kube/key.js';
import { controlledOrOrphaned, type ClusterView } from '../../kube/view.js';
import { controllerRefOf } from '../../kube/meta/controller-ref.js';
import { selectorOf, selectorOrNothing, type Selector } from '../../kube/meta/label-selector.js';
import { claimActivePods, desiredReplicas } from './manage.js';
import type { ObservedReplicaSet } from './types.js';

export async function observeReplicaSet(view: ClusterView, key: ReconcileKey): Promise<ObservedReplicaSet> {
  const rs = await view.get<ReplicaSet>('ReplicaSet', key.namespace, key.name);
  if (rs === null) return { replicaSet: null, pods: [], relatedPods: [] };
  const uid = rs.metadata?.uid ?? '';
  // Its own pods and the namespace's orphans (by index from the cache; one filtered list when live).
  const pods = await controlledOrOrphaned<Pod>(view, 'Pod', key.namespace, uid);
  const selects = selectorOf(rs.spec?.selector);
  const deleting = !!rs.metadata?.deletionTimestamp;

  const adoptionRecheck =
    !deleting && claimActivePods(rs, pods, selects).adopt.length > 0
      ? await view.get<ReplicaSet>('ReplicaSet', key.namespace, key.name, { fresh: true })
      : undefined;
  const relatedPods = mayScaleDown(rs, pods, selects)
    ? relatedOf(
        rs,
        await view.list<ReplicaSet>('ReplicaSet', key.namespace),
        await view.list<Pod>('Pod', key.namespace),
      )
    : [];
  return { replicaSet: rs, pods, relatedPods, ...(adoptionRecheck !== undefined && { adoptionRecheck }) };
}

/** A controlled ReplicaSet, not being deleted, claiming more active pods than it wants. */
function mayScaleDown(rs: ReplicaSet, pods: readonly Pod[], selects: Selector): boolean {
  if (rs.metadata?.deletionTimestamp || controllerRefOf(rs) === undefined) return false;
  return claimActivePods(rs, pods, selects).claimed.length > desiredReplicas(rs);
}

/** getIndirectlyRelatedPods: pods selected by any ReplicaSet with the same controller, each pod once. */
function relatedOf(rs: ReplicaSet, all: readonly ReplicaSet[], pods: readonly Pod[]): Pod[] {
  const owner = controllerRefOf(rs)?.uid;
  const seen = new Set<string>();
  const related: Pod[] = [];
  for (const sibling of all) {
    if (owner === undefined || controllerRefOf(sibling)?.uid !== owner) continue;
    const selects = selectorOrNothing(sibling.spec?.selector); // an invalid selector matches no pods
    for (const pod of pods) {
      const podUid = pod.metadata?.uid ?? '';
      if (seen.has(podUid) || !selects.matches(pod.metadata?.labels)) continue;
      seen.add(podUid);
      related.push(pod);
    }
  }
  return related;
}
