// The watch descriptors of lws v0.9.0's two reconcilers (one manager, `lws-controller`), one key kind each
// (index.ts says why), registered in controllers/index.ts (opt-in per cluster, as JobSet).
// - LeaderWorkerSet: For LeaderWorkerSet; Owns StatefulSet (the leader StatefulSet) and Service (the shared one),
//   adopting nothing; Watches every StatefulSet with the name label, mapped to that name (a worker StatefulSet,
//   whose controller is a leader pod, wakes its set).
// - LeaderWorkerSetPod: For Pod, only those with the name label (upstream's event filter); Owns StatefulSet (a
//   worker StatefulSet's controller is its leader pod). Upstream watches no Service here: a per-replica Service
//   deleted is made again at the pod's next event.
// A cluster owns both or neither (`ownedWith`): upstream's manager runs both reconcilers, and the registry refuses
// an entry owning one. Both name the add-on lws-controller; the sandbox starts it once (kind-options.ts).
// Both also watch ControllerRevisions with a mapping that yields no key: upstream's manager reads them from an
// informer (controller-runtime starts one for each kind its cached client lists) and wakes nothing on their events;
// the watch makes the forwarder cache them, so each pass's revision list is not a live namespace list.
// The CRD is upstream's own file of the module at the version the sandbox builds the manager from.
import { apiResource } from '../../kube/resources.js';
import { labelsOf } from '../../kube/meta/label-selector.js';
import { EVENT_WRITES, nameOf, namespaceOf, type Mapping, type WatchDescriptor } from '../descriptor.js';
import { leaderWorkerSetController, leaderWorkerSetPodController } from './index.js';
import { LWS_GROUP, LWS_KIND, LWS_POD_KEY_KIND, LWS_RESOURCE, SET_NAME_LABEL } from './types.js';

const UPSTREAM = { name: 'lws-controller', runs: 'add-on' } as const;

/** ControllerRevisions cached for the revision lists, waking nothing (upstream's informer has no handler). */
const CACHED_REVISIONS: Mapping = {
  kind: 'ControllerRevision',
  why: 'LeaderWorkerSet: its revisions, cached for its reads; their events wake nothing, as upstream',
  keys: () => [],
};

export const leaderWorkerSetDescriptor: WatchDescriptor = {
  kind: LWS_KIND,
  resource: apiResource(LWS_KIND, LWS_GROUP, 'v1', LWS_RESOURCE, { status: true }),
  crd: {
    module: 'sigs.k8s.io/lws',
    version: 'v0.9.0',
    path: 'config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml',
  },
  upstream: UPSTREAM,
  ownedWith: [LWS_POD_KEY_KIND],
  for: { kind: LWS_KIND },
  owns: [
    { kind: 'StatefulSet', adopts: false },
    { kind: 'Service', adopts: false },
  ],
  watches: [
    {
      kind: 'StatefulSet',
      why: 'LeaderWorkerSet: a StatefulSet with its name label (a group’s worker StatefulSet) wakes the set it names',
      keys: (event) => {
        const name = labelsOf(event.object)[SET_NAME_LABEL];
        return typeof name === 'string' && name !== '' ? [{ namespace: namespaceOf(event.object), name }] : [];
      },
    },
    CACHED_REVISIONS,
  ],
  access: {
    reads: [
      {
        kind: LWS_KIND,
        verbs: ['get'],
        why: 'LeaderWorkerSet observe: the set (and fresh, before its leader StatefulSet is created)',
      },
      {
        kind: 'StatefulSet',
        verbs: ['get', 'list'],
        why: "LeaderWorkerSet observe: its leader StatefulSet; the namespace's StatefulSets with its name label (worker StatefulSets)",
      },
      {
        kind: 'ControllerRevision',
        verbs: ['list'],
        why: "LeaderWorkerSet observe: the namespace's ControllerRevisions with its name label (its revisions)",
      },
      {
        kind: 'Pod',
        verbs: ['list'],
        why: "LeaderWorkerSet observe: the namespace's pods (its leader pods, by label)",
      },
      {
        kind: 'Service',
        verbs: ['get'],
        why: 'LeaderWorkerSet observe: under Shared, does its headless Service exist',
      },
    ],
    writes: [
      {
        kind: 'ControllerRevision',
        verbs: ['create', 'delete'],
        why: 'LeaderWorkerSet: create its template revisions, delete the others once an update is done',
      },
      {
        kind: 'StatefulSet',
        verbs: ['create', 'patch'],
        why: 'LeaderWorkerSet: server-side apply of its leader StatefulSet (an apply that creates it needs create)',
      },
      { kind: 'Service', verbs: ['create'], why: 'LeaderWorkerSet: the shared headless Service' },
      { kind: LWS_KIND, subresource: 'status', verbs: ['update'], why: 'LeaderWorkerSet: its status' },
      EVENT_WRITES,
    ],
  },
  controller: () => leaderWorkerSetController,
};

export const leaderWorkerSetPodDescriptor: WatchDescriptor = {
  kind: LWS_POD_KEY_KIND,
  upstream: UPSTREAM,
  ownedWith: [LWS_KIND],
  for: {
    kind: 'Pod',
    keys: (event) =>
      SET_NAME_LABEL in labelsOf(event.object)
        ? [{ namespace: namespaceOf(event.object), name: nameOf(event.object) }]
        : [],
    why: 'LeaderWorkerSet pods: pods with the name label (restart policy; a leader pod’s worker StatefulSet)',
  },
  owns: [{ kind: 'StatefulSet', adopts: false }],
  watches: [CACHED_REVISIONS],
  access: {
    reads: [
      {
        kind: 'Pod',
        verbs: ['get', 'list'],
        why: "LeaderWorkerSet pod observe: the pod (and fresh, before its worker StatefulSet is created), its leader, the namespace's pods (its group, by label)",
      },
      { kind: LWS_KIND, verbs: ['get'], why: 'LeaderWorkerSet pod observe: the set its name label names' },
      {
        kind: 'StatefulSet',
        verbs: ['get'],
        why: 'LeaderWorkerSet pod observe: a leader pod’s worker StatefulSet; the StatefulSet controlling a restarted worker; with the group-restart backoff, the leader StatefulSet (its state)',
      },
      {
        kind: 'ControllerRevision',
        verbs: ['list'],
        why: "LeaderWorkerSet pod observe: the set's revisions (a leader pod's worker template)",
      },
      {
        kind: 'Service',
        verbs: ['get'],
        why: 'LeaderWorkerSet pod observe: under UniquePerReplica, the group’s Service',
      },
      { kind: 'Node', verbs: ['get'], why: 'LeaderWorkerSet pod observe: with exclusive placement, the leader’s node' },
    ],
    writes: [
      { kind: 'Pod', verbs: ['delete'], why: 'LeaderWorkerSet pod: delete a group’s leader to recreate the group' },
      { kind: 'StatefulSet', verbs: ['create'], why: 'LeaderWorkerSet pod: a leader pod’s worker StatefulSet' },
      {
        kind: 'Service',
        verbs: ['create'],
        why: 'LeaderWorkerSet pod: under UniquePerReplica, the group’s headless Service',
      },
      {
        kind: 'StatefulSet',
        verbs: ['patch'],
        why: 'LeaderWorkerSet pod (opt-in group-restart backoff): the state annotation on the leader StatefulSet',
      },
      {
        kind: LWS_KIND,
        subresource: 'status',
        verbs: ['update'],
        why: 'LeaderWorkerSet pod (opt-in group-restart backoff): the GroupRestartLimitReached condition',
      },
      EVENT_WRITES,
    ],
  },
  controller: () => leaderWorkerSetPodController,
};
