// The Deployment controller's watch descriptor (upstream's informers: Deployments, ReplicaSets and Pods).
import { apiResource } from '../../kube/resources.js';
import { controllerRefOf, groupOf } from '../../kube/meta/controller-ref.js';
import {
  EVENT_WRITES,
  namespaceOf,
  orphansMatching,
  type KeyName,
  type Mapping,
  type WatchDescriptor,
} from '../descriptor.js';
import { deploymentController } from './index.js';

const orphanPods = orphansMatching('Deployment');

/**
 * Pods: an orphan wakes the Deployments whose selector matches it; a deleted pod of one of its ReplicaSets
 * wakes the Deployment (upstream's deletePod: Recreate waits until every old pod is gone).
 */
const podKeys: Mapping['keys'] = (event, index) => {
  const ref = controllerRefOf(event.object);
  if (ref === undefined) return orphanPods(event, index);
  if (event.type !== 'DELETED' || ref.kind !== 'ReplicaSet' || groupOf(ref.apiVersion) !== 'apps') return [];
  const namespace = namespaceOf(event.object);
  const owner = index.get('ReplicaSet', namespace, ref.name)?.controller;
  return owner?.kind === 'Deployment' ? [{ namespace, name: owner.name } satisfies KeyName] : [];
};

export const deploymentDescriptor: WatchDescriptor = {
  kind: 'Deployment',
  resource: apiResource('Deployment', 'apps', 'v1', 'deployments', { status: true }),
  upstream: { name: 'deployment-controller', runs: 'kube-controller-manager' },
  ownedByDefault: true,
  for: { kind: 'Deployment' },
  owns: [{ kind: 'ReplicaSet', adopts: true }],
  watches: [
    { kind: 'Pod', keys: podKeys, why: 'orphan pods its selector matches, and deleted pods of its ReplicaSets' },
  ],
  access: {
    reads: [
      {
        kind: 'Deployment',
        verbs: ['get'],
        why: 'Deployment observe: the Deployment, and a fresh GET before adopting',
      },
      { kind: 'ReplicaSet', verbs: ['list'], why: "Deployment observe: its ReplicaSets and the namespace's orphans" },
      { kind: 'Pod', verbs: ['list'], why: 'Deployment observe: a Recreate rollout lists pods by its selector' },
    ],
    writes: [
      {
        kind: 'ReplicaSet',
        verbs: ['create', 'update', 'patch', 'delete'],
        why: 'Deployment: create, scale and annotate (PUT with resourceVersion), adopt and release (strategic merge patch, uid precondition), clean up old ReplicaSets (uid precondition)',
      },
      { kind: 'Deployment', verbs: ['update'], why: 'Deployment: clears the deprecated rollback annotation' },
      { kind: 'Deployment', subresource: 'status', verbs: ['update'], why: 'Deployment: its status' },
      {
        kind: 'Deployment',
        verbs: ['patch'],
        why: 'FleetRollout (from the hub): the pin annotations on a Deployment a fleet rollout paces (strategic merge patch, uid precondition)',
      },
      EVENT_WRITES,
    ],
  },
  controller: () => deploymentController,
};
