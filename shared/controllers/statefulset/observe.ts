// Observe one StatefulSet, through the cache or by live reads.
//
// Reads per reconcile (API requests when live; none when cached):
//   1  GET the StatefulSet (404 → done, nothing else is read)
//   1  its pods plus the namespace's orphan pods (the cache's owner and orphan indexes; live, one filtered list)
//   1  its ControllerRevisions plus the namespace's orphan ones (same)
//   1  the namespace's PersistentVolumeClaims, only when it has volumeClaimTemplates (upstream's claim lister)
//  +1  GET `<set>-<hash>`, only when no revision it controls holds the template (taken name, or collision?)
//  +1  GET the StatefulSet fresh, only when an orphan is to be adopted (RecheckDeletionTimestamp)
import type { ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet } from '../../kube/api/objects.js';
import type { ReconcileKey } from '../../kube/key.js';
import { selectorOrNothing } from '../../kube/meta/label-selector.js';
import { controlledOrOrphaned, type ClusterView } from '../../kube/view.js';
import { claimObjects } from '../common/claim.js';
import { hashControllerRevision } from '../common/controller-history.js';
import { collisionCountOf, equalData, revisionData, revisionName } from './history.js';
import { CLAIM_REVISIONS, podClaimOptions } from './identity.js';
import type { ObservedStatefulSet } from './types.js';

export async function observeStatefulSet(view: ClusterView, key: ReconcileKey): Promise<ObservedStatefulSet> {
  const set = await view.get<StatefulSet>('StatefulSet', key.namespace, key.name);
  if (set === null) return { statefulSet: null, pods: [], revisions: [], claims: [] };
  const uid = set.metadata?.uid ?? '';
  const hasTemplates = (set.spec?.volumeClaimTemplates ?? []).length > 0;
  const [pods, revisions, claims] = await Promise.all([
    controlledOrOrphaned<Pod>(view, 'Pod', key.namespace, uid),
    controlledOrOrphaned<ControllerRevision>(view, 'ControllerRevision', key.namespace, uid),
    hasTemplates ? view.list<PersistentVolumeClaim>('PersistentVolumeClaim', key.namespace) : [],
  ]);
  const selects = selectorOrNothing(set.spec?.selector);
  const crs = claimObjects<ControllerRevision>(set, revisions, selects, CLAIM_REVISIONS);
  const data = revisionData(set);
  const hasUpdate = crs.claimed.some((cr) => equalData(cr, data));
  const name = revisionName(set, hashControllerRevision(data, collisionCountOf(set)));
  const nameTaken = hasUpdate
    ? undefined
    : await view.get<ControllerRevision>('ControllerRevision', key.namespace, name);
  const orphans = crs.adopt.length > 0 || claimObjects<Pod>(set, pods, selects, podClaimOptions(set)).adopt.length > 0;
  const adoptionRecheck =
    orphans && !set.metadata?.deletionTimestamp
      ? await view.get<StatefulSet>('StatefulSet', key.namespace, key.name, { fresh: true })
      : undefined;
  return {
    statefulSet: set,
    pods,
    revisions,
    claims,
    ...(nameTaken !== undefined && { nameTaken }),
    ...(adoptionRecheck !== undefined && { adoptionRecheck }),
  };
}
