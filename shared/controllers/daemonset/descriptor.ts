// The DaemonSet controller's watch descriptor (upstream's informers: DaemonSets, Pods, ControllerRevisions,
// Nodes). A cluster runs it when its registry entry owns DaemonSet, and only where kube-controller-manager runs
// without its daemonset-controller (the sandbox's fleetq mode turns it off).
import { apiResource } from '../../kube/resources.js';
import { EVENT_WRITES, type WatchDescriptor } from '../descriptor.js';
import { daemonSetController } from './index.js';
import { daemonSetFacts, nodeKeys, nodeView } from './node-changes.js';

export const daemonSetDescriptor: WatchDescriptor = {
  kind: 'DaemonSet',
  resource: apiResource('DaemonSet', 'apps', 'v1', 'daemonsets', { status: true }),
  upstream: { name: 'daemonset-controller', runs: 'kube-controller-manager' },
  for: { kind: 'DaemonSet', facts: daemonSetFacts },
  owns: [
    { kind: 'Pod', adopts: true },
    { kind: 'ControllerRevision', adopts: true },
  ],
  // A Node event wakes only the DaemonSets whose fit on that node changed (node-changes.ts).
  watches: [{ kind: 'Node', keys: nodeKeys, remember: nodeView, why: 'nodes: where its pods should run' }],
  access: {
    reads: [
      {
        kind: 'DaemonSet',
        verbs: ['get'],
        why: 'DaemonSet observe: the DaemonSet, and a fresh GET before adopting an orphan',
      },
      { kind: 'Node', verbs: ['list'], why: 'DaemonSet observe: every node, to decide where its pods should run' },
      { kind: 'Pod', verbs: ['list'], why: "DaemonSet observe: its pods and the namespace's orphans" },
      {
        kind: 'ControllerRevision',
        verbs: ['get', 'list'],
        why: "DaemonSet observe: its revisions and the namespace's orphans; the current revision's name (collision)",
      },
    ],
    writes: [
      {
        kind: 'Pod',
        verbs: ['create', 'delete', 'patch'],
        why: 'DaemonSet: create and delete (uid precondition) daemon pods; adopt, release and relabel by patch',
      },
      {
        kind: 'ControllerRevision',
        verbs: ['create', 'update', 'delete', 'patch'],
        why: 'DaemonSet history: create the current revision, raise its number, delete old ones; adopt and release',
      },
      {
        kind: 'DaemonSet',
        verbs: ['patch'],
        why: 'DaemonSet: record the failed-pod backoff in its fleetq.dev/failed-pod-backoff annotation',
      },
      { kind: 'DaemonSet', subresource: 'status', verbs: ['update'], why: 'DaemonSet: its status' },
      {
        kind: 'DaemonSet',
        verbs: ['patch'],
        why: 'FleetRollout (from the hub): the pin annotations on a DaemonSet a fleet rollout paces (strategic merge patch, uid precondition)',
      },
      EVENT_WRITES,
    ],
  },
  controller: () => daemonSetController,
};
