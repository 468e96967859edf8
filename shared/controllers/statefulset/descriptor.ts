// The StatefulSet controller's watch descriptor (upstream's informers: StatefulSets, Pods, ControllerRevisions,
// PVCs). A cluster runs it when its registry entry owns StatefulSet, and only where kube-controller-manager runs
// without its statefulset-controller (the sandbox's fleetq mode turns it off).
//
// ControllerRevisions are watched so that the forwarder caches them, and their events wake nothing: upstream's
// controller reads them from an informer with no event handler (NewStatefulSetController registers handlers for
// pods and sets only), so it adopts an orphan revision, or makes a deleted one again, at the set's next sync for
// another reason. Waking on them differs where it matters: a set deleted in foreground (a LeaderWorkerSet group's
// worker StatefulSet when its leader pod is deleted so) still syncs and makes its update revision again
// (getStatefulSetRevisions runs for a deleting set too); the garbage collector deletes that revision, and a pass
// woken by that deletion makes it again at once and races the collector's check that no blocking dependent is
// left (which ends the set's foreground deletion); each round fleetq wins, the group's new leader waits longer.
import { apiResource } from '../../kube/resources.js';
import { EVENT_WRITES, type Mapping, type WatchDescriptor } from '../descriptor.js';
import { statefulSetController } from './index.js';

/** ControllerRevisions cached for the revision lists, waking nothing (upstream's informer has no handler). */
const CACHED_REVISIONS: Mapping = {
  kind: 'ControllerRevision',
  why: 'its ControllerRevisions and orphan ones, cached for its reads; their events wake nothing, as upstream',
  keys: () => [],
};

export const statefulSetDescriptor: WatchDescriptor = {
  kind: 'StatefulSet',
  resource: apiResource('StatefulSet', 'apps', 'v1', 'statefulsets', { status: true }),
  upstream: { name: 'statefulset-controller', runs: 'kube-controller-manager' },
  for: { kind: 'StatefulSet' },
  owns: [
    { kind: 'Pod', adopts: true },
    // Its PVCs name it as controller (retention policy), but it never adopts an orphan claim.
    { kind: 'PersistentVolumeClaim', adopts: false },
  ],
  watches: [CACHED_REVISIONS],
  access: {
    reads: [
      {
        kind: 'StatefulSet',
        verbs: ['get'],
        why: 'StatefulSet observe: the StatefulSet, and a fresh GET before adopting an orphan',
      },
      { kind: 'Pod', verbs: ['list'], why: "StatefulSet observe: its pods and the namespace's orphans" },
      {
        kind: 'ControllerRevision',
        verbs: ['get', 'list'],
        why: "StatefulSet observe: its revisions and the namespace's orphans; the update revision's name (collision)",
      },
      {
        kind: 'PersistentVolumeClaim',
        verbs: ['list'],
        why: 'StatefulSet observe: the claims of its volumeClaimTemplates',
      },
    ],
    writes: [
      {
        kind: 'Pod',
        verbs: ['create', 'update', 'delete', 'patch'],
        why: 'StatefulSet: create, update (identity) and delete (uid precondition) its pods; adopt and release by patch',
      },
      {
        kind: 'PersistentVolumeClaim',
        verbs: ['create', 'update'],
        why: 'StatefulSet: create the claims of its volumeClaimTemplates; their ownerReferences (retention policy)',
      },
      {
        kind: 'ControllerRevision',
        verbs: ['create', 'update', 'delete', 'patch'],
        why: 'StatefulSet history: create the update revision, raise a rolled-back one, delete old ones; adopt, release',
      },
      { kind: 'StatefulSet', subresource: 'status', verbs: ['update'], why: 'StatefulSet: its status' },
      {
        kind: 'StatefulSet',
        verbs: ['patch'],
        why: 'FleetRollout (from the hub): the pin annotations on a StatefulSet a fleet rollout paces (strategic merge patch, uid precondition)',
      },
      EVENT_WRITES,
    ],
  },
  controller: () => statefulSetController,
};
