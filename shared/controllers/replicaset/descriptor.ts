// The ReplicaSet controller's watch descriptor (upstream's informers: ReplicaSets and Pods).
import { apiResource } from '../../kube/resources.js';
import { EVENT_WRITES, type WatchDescriptor } from '../descriptor.js';
import { replicaSetController } from './index.js';

export const replicaSetDescriptor: WatchDescriptor = {
  kind: 'ReplicaSet',
  resource: apiResource('ReplicaSet', 'apps', 'v1', 'replicasets', { status: true }),
  upstream: { name: 'replicaset-controller', runs: 'kube-controller-manager' },
  ownedByDefault: true,
  for: { kind: 'ReplicaSet' },
  owns: [{ kind: 'Pod', adopts: true }],
  watches: [],
  access: {
    reads: [
      {
        kind: 'ReplicaSet',
        verbs: ['get', 'list'],
        why: "ReplicaSet observe: the ReplicaSet and its fresh recheck; the namespace's ReplicaSets to rank a scale-down",
      },
      {
        kind: 'Pod',
        verbs: ['list'],
        why: "ReplicaSet observe: its pods and the namespace's orphans; its guard counts them live",
      },
      { kind: 'Deployment', verbs: ['get'], why: 'ReplicaSet guard: the owning Deployment bounds a surge' },
    ],
    writes: [
      {
        kind: 'Pod',
        verbs: ['create', 'delete', 'patch'],
        why: 'ReplicaSet: create and delete (uid precondition) pods; adopt and release by strategic merge patch',
      },
      { kind: 'ReplicaSet', subresource: 'status', verbs: ['update'], why: 'ReplicaSet: its status' },
      EVENT_WRITES,
    ],
  },
  controller: () => replicaSetController,
};
