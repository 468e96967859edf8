// Observe one ReplicaSet by live reads. Reads without a resourceVersion are consistent (quorum) reads, so a
// pass always sees the pods the previous pass created or deleted: that is how fleetq gets read-after-write
// without upstream's expectations (which exist only because its informer cache lags its own writes).
//
// API requests per reconcile:
//   1  GET the ReplicaSet (404 → done, nothing else is read)
//   1  LIST the pods of its namespace, unfiltered (+1 per further 500 pods, the page size). Pods that stopped
//      matching its selector but still name it as controller must be found to be released, and no server-side
//      selector finds pods by owner, so this is upstream's FilterPodsByOwner(owned + orphans) over one list.
//  +1  GET the ReplicaSet again, only when an orphan is to be adopted (RecheckDeletionTimestamp, after the list)
//  +1  LIST the ReplicaSets of the namespace, only when a ReplicaSet with a controller (a Deployment's) may
//      scale down, to rank by related pods on the same node (getIndirectlyRelatedPods)
// Steady state is therefore 2 reads, plus the writes the plan makes.
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import type { ReconcileKey } from '../../kube/key.js';
import type { ClusterView } from '../../kube/view.js';
import { controllerRefOf, isControlledBy } from '../pod-utils/controller-ref.js';
import { compileSelector, type LabelMatcher } from '../pod-utils/label-selector.js';
import { claimPods, hasOrphansToAdopt } from './claim.js';
import { desiredReplicas } from './manage.js';
import type { ObservedReplicaSet } from './types.js';

export async function observeReplicaSet(view: ClusterView, key: ReconcileKey): Promise<ObservedReplicaSet> {
  const rs = await view.get<V1ReplicaSet>('ReplicaSet', key.namespace, key.name);
  if (rs === null) return { replicaSet: null, pods: [], relatedPods: [] };
  const uid = rs.metadata?.uid ?? '';
  const namespacePods = await view.list<V1Pod>('Pod', key.namespace);
  const pods = namespacePods.filter((p) => controllerRefOf(p) === undefined || isControlledBy(p, uid));
  const selects = compileSelector(rs.spec?.selector);
  const deleting = !!rs.metadata?.deletionTimestamp;

  const adoptionRecheck =
    !deleting && hasOrphansToAdopt(rs, pods, selects)
      ? await view.get<V1ReplicaSet>('ReplicaSet', key.namespace, key.name)
      : undefined;
  const relatedPods = mayScaleDown(rs, pods, selects)
    ? relatedOf(rs, await view.list<V1ReplicaSet>('ReplicaSet', key.namespace), namespacePods)
    : [];
  return { replicaSet: rs, pods, relatedPods, ...(adoptionRecheck !== undefined && { adoptionRecheck }) };
}

/** A controlled ReplicaSet, not being deleted, claiming more active pods than it wants. */
function mayScaleDown(rs: V1ReplicaSet, pods: readonly V1Pod[], selects: LabelMatcher): boolean {
  if (rs.metadata?.deletionTimestamp || controllerRefOf(rs) === undefined) return false;
  return claimPods(rs, pods, selects).claimed.length > desiredReplicas(rs);
}

/** getIndirectlyRelatedPods: pods selected by any ReplicaSet with the same controller, each pod once. */
function relatedOf(rs: V1ReplicaSet, all: readonly V1ReplicaSet[], pods: readonly V1Pod[]): V1Pod[] {
  const owner = controllerRefOf(rs)?.uid;
  const seen = new Set<string>();
  const related: V1Pod[] = [];
  for (const sibling of all) {
    if (owner === undefined || controllerRefOf(sibling)?.uid !== owner) continue;
    let selects: LabelMatcher;
    try {
      selects = compileSelector(sibling.spec?.selector);
    } catch {
      continue; // an invalid selector matches no pods
    }
    for (const pod of pods) {
      const podUid = pod.metadata?.uid ?? '';
      if (seen.has(podUid) || !selects(pod.metadata?.labels)) continue;
      seen.add(podUid);
      related.push(pod);
    }
  }
  return related;
}
