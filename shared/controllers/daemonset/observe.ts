// Observe one DaemonSet, through the cache (cached-cluster-view.ts: after the key's own last writes are in it)
// or by live reads.
//
// Reads per reconcile (API requests when live; none when cached):
//   1  GET the DaemonSet (404 → done, nothing else is read)
//   1  the Nodes: every node, as upstream's nodeLister.List per sync: from the cache, the `all:Node` index (the
//      forwarder's node store, no API request); live, one cluster-wide LIST. The desired count and the misscheduled
//      count need every node, so the node set is read whole, from memory. What a node change wakes is decided in
//      the forwarder, per node and DaemonSet (node-changes.ts: only the DaemonSets whose fit on it changed).
//   1  its pods plus the namespace's orphan pods (the cache's owner and orphan indexes; live, one filtered list)
//   1  its ControllerRevisions plus the namespace's orphan ones (same)
//  +1  GET `<ds>-<hash>`, only when no revision it controls matches the template (a name collision?)
//  +1  GET the DaemonSet fresh, only when an orphan is to be adopted (RecheckDeletionTimestamp)
import type { ControllerRevision, DaemonSet, Node, Pod } from '../../kube/api/objects.js';
import type { ReconcileKey } from '../../kube/key.js';
import { selectorOrNothing } from '../../kube/meta/label-selector.js';
import { controlledOrOrphaned, type ClusterView } from '../../kube/view.js';
import { claimObjects } from '../common/claim.js';
import { matchesRevision, revisionName } from './history.js';
import type { ObservedDaemonSet } from './types.js';

export async function observeDaemonSet(view: ClusterView, key: ReconcileKey): Promise<ObservedDaemonSet> {
  const ds = await view.get<DaemonSet>('DaemonSet', key.namespace, key.name);
  if (ds === null) return { daemonSet: null, nodes: [], pods: [], revisions: [] };
  const uid = ds.metadata?.uid ?? '';
  const [nodes, pods, revisions] = await Promise.all([
    view.list<Node>('Node', undefined),
    controlledOrOrphaned<Pod>(view, 'Pod', key.namespace, uid),
    controlledOrOrphaned<ControllerRevision>(view, 'ControllerRevision', key.namespace, uid),
  ]);
  const selects = selectorOrNothing(ds.spec?.selector);
  // A DaemonSet being deleted is not synced (the planner stops before claiming): nothing more to read for it.
  const deleting = !!ds.metadata?.deletionTimestamp;
  const crs = claimObjects<ControllerRevision>(ds, revisions, selects);
  const hasCurrent = crs.claimed.some((cr) => matchesRevision(ds, cr));
  const nameTaken =
    hasCurrent || deleting
      ? undefined
      : await view.get<ControllerRevision>('ControllerRevision', key.namespace, revisionName(ds));
  const orphans = crs.adopt.length > 0 || claimObjects<Pod>(ds, pods, selects).adopt.length > 0;
  const adoptionRecheck = orphans
    ? await view.get<DaemonSet>('DaemonSet', key.namespace, key.name, { fresh: true })
    : undefined;
  return {
    daemonSet: ds,
    nodes,
    pods,
    revisions,
    ...(nameTaken !== undefined && { nameTaken }),
    ...(adoptionRecheck !== undefined && { adoptionRecheck }),
  };
}
