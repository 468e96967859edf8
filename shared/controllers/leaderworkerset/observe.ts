// What the two LeaderWorkerSet keys read, through the cache or live (lws v0.9.0's reconcilers read through the
// manager's cache). Lists are whole namespaces filtered here by label: the cache answers those from its namespace
// index, while a label selector would send every pass to the apiserver.
//
// A LeaderWorkerSet key (LeaderWorkerSetReconciler.Reconcile):
//   1  GET the LeaderWorkerSet; gone or being deleted: nothing more
//   1  GET StatefulSet `<lws>` (the leader StatefulSet); being deleted: nothing more (the pass waits)
//   1  LIST ControllerRevisions, those with its name label
//  +2  with a leader StatefulSet: LIST pods (its leader pods: name label, worker index "0") and StatefulSets (its
//      name label: the worker StatefulSets) for the rolling update and the status
//  +1  under subdomainPolicy Shared: GET Service `<lws>` (does the shared headless Service exist?)
//  +1  last, when there is no leader StatefulSet (the pass creates it): the LeaderWorkerSet again, fresh from the
//      apiserver, so that nothing is created for a set deleted a moment ago that the cache still shows
// A LeaderWorkerSetPod key (PodReconciler.Reconcile):
//   1  GET the pod
//   1  the pod's deleted state (a view over a cache keeps one a while: cache-entry.ts keepsState), when it is
//      another uid than the pod now there; when upstream, reconciling that state, would recreate its group (its
//      LeaderWorkerSet, group and leader read as below), the pass is that state's (observeDeletedPod)
//      the pod gone, or without the name or worker-index label: nothing more
//   1  GET its LeaderWorkerSet (the name label); gone: nothing more
//  +n  when the restart policy recreates groups and the pod restarted or is being deleted (handleRestartPolicy):
//      LIST pods (its group: name and group-index labels); for a worker, GET its leader pod (`<lws>-<group>`) and,
//      when the worker is controlled by a StatefulSet and has the leader's revision key, GET that StatefulSet
//  +n  a leader pod without the workers' leader-name annotation: under UniquePerReplica GET Service `<pod>`; with
//      workers and not being deleted, LIST ControllerRevisions, GET StatefulSet `<pod>` and, with exclusive
//      placement and a node, GET the Node (its topology label)
//  +1  last, when the pass creates the worker StatefulSet: the pod again, fresh, so that no worker StatefulSet is
//      made for a leader deleted a moment ago (the group being recreated) that the cache still shows
import type { ReconcileKey } from '../../kube/key.js';
import type { ClusterView } from '../../kube/view.js';
import { hasContainerRestarted, isLeaderPod, isPodDeleted } from './group-state.js';
import type { ObservedLwsPod, PodReconcileWorld } from './pod-reconcile.js';
import type { ObservedLeaderWorkerSet } from './reconcile.js';
import { groupAsDeleted, groupPodsOf, leaderNameOf, recreatesGroups, restartDecision } from './restart-policy.js';
import { revisionKeyOf } from './revision.js';
import { hasNoWorkers, isSubdomainShared } from './spec-values.js';
import { planLeaderPod } from './worker-statefulset.js';
import {
  EXCLUSIVE_KEY_ANNOTATION,
  LEADER_POD_NAME_ANNOTATION,
  LWS_KIND,
  SET_NAME_LABEL,
  SubdomainPolicy,
  WORKER_INDEX_LABEL,
  type ControllerRevision,
  type LeaderWorkerSet,
  type Pod,
  type Service,
  type StatefulSet,
} from './types.js';

const STATEFULSET = 'StatefulSet';
const POD = 'Pod';
const REVISION = 'ControllerRevision';

const GONE: ObservedLeaderWorkerSet = {
  lws: null,
  leaderStatefulSet: null,
  revisions: [],
  pods: [],
  statefulSets: [],
  sharedServiceExists: false,
};

const hasName = (o: { metadata?: { labels?: Record<string, string> } }, name: string): boolean =>
  o.metadata?.labels?.[SET_NAME_LABEL] === name;

/** The namespace's ControllerRevisions with the set's name label (revisionsOf then keeps its own and orphans). */
async function revisionsNamed(view: ClusterView, namespace: string, name: string): Promise<ControllerRevision[]> {
  return (await view.list<ControllerRevision>(REVISION, namespace)).filter((r) => hasName(r, name));
}

export async function observeLeaderWorkerSet(view: ClusterView, key: ReconcileKey): Promise<ObservedLeaderWorkerSet> {
  const { namespace, name } = key;
  const lws = await view.get<LeaderWorkerSet>(LWS_KIND, namespace, name);
  if (lws === null) return GONE;
  const quiet = { ...GONE, lws };
  if ((lws.metadata.deletionTimestamp ?? null) !== null) return quiet;
  const leaderStatefulSet = await view.get<StatefulSet>(STATEFULSET, namespace, name);
  if ((leaderStatefulSet?.metadata?.deletionTimestamp ?? null) !== null) return { ...quiet, leaderStatefulSet };
  const revisions = await revisionsNamed(view, namespace, name);
  let pods: Pod[] = [];
  let statefulSets: StatefulSet[] = [];
  if (leaderStatefulSet !== null) {
    pods = (await view.list<Pod>(POD, namespace)).filter(
      (p) => hasName(p, name) && p.metadata?.labels?.[WORKER_INDEX_LABEL] === '0',
    );
    statefulSets = (await view.list<StatefulSet>(STATEFULSET, namespace)).filter((s) => hasName(s, name));
  }
  const sharedServiceExists = isSubdomainShared(lws)
    ? (await view.get<Service>('Service', namespace, name)) !== null
    : false;
  const observed = { lws, leaderStatefulSet, revisions, pods, statefulSets, sharedServiceExists };
  if (leaderStatefulSet !== null) return observed;
  const fresh = await view.get<LeaderWorkerSet>(LWS_KIND, namespace, name, { fresh: true });
  if (fresh === null || fresh.metadata.uid !== lws.metadata.uid) return GONE;
  return { ...observed, lws: fresh };
}

const NO_WORLD: PodReconcileWorld = {
  groupPods: [],
  revisions: [],
  groupServiceExists: false,
  workerStatefulSetExists: false,
};

/** handleRestartPolicy's reads: the group's pods, and for a worker its leader and its controlling StatefulSet. */
async function groupWorld(view: ClusterView, lws: LeaderWorkerSet, pod: Pod): Promise<Partial<PodReconcileWorld>> {
  if (!recreatesGroups(lws) || (!hasContainerRestarted(pod) && !isPodDeleted(pod))) return {};
  const namespace = pod.metadata?.namespace ?? '';
  const groupPods = groupPodsOf(pod, await view.list<Pod>(POD, namespace));
  if (isLeaderPod(pod)) return { groupPods };
  const leaderName = leaderNameOf(pod);
  if (leaderName === null) return { groupPods };
  const leader = await view.get<Pod>(POD, namespace, leaderName);
  const owner = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
  if (leader === null || revisionKeyOf(leader) !== revisionKeyOf(pod) || owner?.kind !== STATEFULSET) {
    return { groupPods, leader };
  }
  const ownerStatefulSet = await view.get<StatefulSet>(STATEFULSET, namespace, owner.name);
  return { groupPods, leader, ownerStatefulSet };
}

/** The pod reconciler's reads for a leader pod: its group's Service, revisions, worker StatefulSet and node. */
async function leaderWorld(view: ClusterView, lws: LeaderWorkerSet, pod: Pod): Promise<Partial<PodReconcileWorld>> {
  if (!isLeaderPod(pod) || (pod.metadata?.annotations?.[LEADER_POD_NAME_ANNOTATION] ?? '') !== '') return {};
  const namespace = pod.metadata?.namespace ?? '';
  const podName = pod.metadata?.name ?? '';
  const groupServiceExists =
    lws.spec.networkConfig?.subdomainPolicy === SubdomainPolicy.UniquePerReplica &&
    (await view.get<Service>('Service', namespace, podName)) !== null;
  if (isPodDeleted(pod) || hasNoWorkers(lws)) return { groupServiceExists };
  const revisions = await revisionsNamed(view, namespace, lws.metadata.name ?? '');
  const workerStatefulSetExists = (await view.get<StatefulSet>(STATEFULSET, namespace, podName)) !== null;
  const nodeName = pod.spec?.nodeName ?? '';
  if (lws.metadata.annotations?.[EXCLUSIVE_KEY_ANNOTATION] === undefined || nodeName === '') {
    return { groupServiceExists, revisions, workerStatefulSetExists };
  }
  const node = await view.get<{ metadata?: { labels?: Record<string, string> } }>('Node', '', nodeName);
  return { groupServiceExists, revisions, workerStatefulSetExists, leaderNodeLabels: node?.metadata?.labels ?? null };
}

/**
 * The key's pod as it was deleted, when reconciling that state recreates its group; else null. Upstream's reconciler
 * sees a pod being deleted in its informer before the pod is gone; a pod whose deletion completes at once (a short
 * grace period, or kwok's) may be gone, or replaced by its StatefulSet under the same name, before a queued key is
 * read. Its group is judged as it was then (groupAsDeleted), its LeaderWorkerSet and leader as they are now: a leader
 * already replaced, or being deleted, makes no second recreation (restart-policy.ts).
 */
async function observeDeletedPod(
  view: ClusterView,
  key: ReconcileKey,
  current: Pod | null,
): Promise<ObservedLwsPod | null> {
  const deleted = view.keptState ? await view.keptState<Pod>(POD, key.namespace, key.name) : null;
  if (deleted === null || (current !== null && deleted.metadata?.uid === current.metadata?.uid)) return null;
  const labels = deleted.metadata?.labels ?? {};
  const lwsName = labels[SET_NAME_LABEL] ?? '';
  if (lwsName === '' || !(WORKER_INDEX_LABEL in labels)) return null;
  const lws = await view.get<LeaderWorkerSet>(LWS_KIND, key.namespace, lwsName);
  if (lws === null) return null;
  const read = await groupWorld(view, lws, deleted);
  const world = { ...NO_WORLD, ...read, groupPods: groupAsDeleted(deleted, read.groupPods ?? []) };
  return restartDecision(lws, deleted, world).kind === 'deleteLeader' ? { pod: deleted, lws, world } : null;
}

export async function observeLwsPod(view: ClusterView, key: ReconcileKey): Promise<ObservedLwsPod> {
  const pod = await view.get<Pod>(POD, key.namespace, key.name);
  const deleted = await observeDeletedPod(view, key, pod);
  if (deleted !== null) return deleted;
  if (pod === null) return { pod: null, lws: null, world: NO_WORLD };
  const labels = pod.metadata?.labels ?? {};
  const lwsName = labels[SET_NAME_LABEL] ?? '';
  if (lwsName === '' || !(WORKER_INDEX_LABEL in labels)) return { pod, lws: null, world: NO_WORLD };
  const lws = await view.get<LeaderWorkerSet>(LWS_KIND, key.namespace, lwsName);
  if (lws === null) return { pod, lws: null, world: NO_WORLD };
  const world = { ...NO_WORLD, ...(await groupWorld(view, lws, pod)), ...(await leaderWorld(view, lws, pod)) };
  if (!isLeaderPod(pod) || planLeaderPod(lws, pod, world).createWorkerStatefulSet === undefined) {
    return { pod, lws, world };
  }
  const fresh = await view.get<Pod>(POD, key.namespace, key.name, { fresh: true });
  if (fresh === null || fresh.metadata?.uid !== pod.metadata?.uid) return { pod: null, lws: null, world: NO_WORLD };
  return { pod: fresh, lws, world };
}
