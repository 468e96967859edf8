// The FleetRollout controller's watch descriptor. FleetRollouts live on the hub cluster (the registry entry with
// `hub: true`, which owns the kind); the CRD is fleetq's own (infra/k8s/fleetrollout-crd.yaml), installed on every
// sandbox cluster. Its targets live in other clusters and are read through their views each pass, not watched
// here: the rollout looks again every IN_FLIGHT_LOOK_MS while a cluster is in flight and every IDLE_LOOK_MS
// otherwise (plan.ts).
import { apiResource } from '../../kube/resources.js';
import { EVENT_WRITES, type WatchDescriptor } from '../descriptor.js';
import { fleetRolloutController } from './index.js';

const WORKLOADS = ['Deployment', 'StatefulSet', 'DaemonSet'] as const;

export const fleetRolloutDescriptor: WatchDescriptor = {
  kind: 'FleetRollout',
  resource: apiResource('FleetRollout', 'fleetq.dev', 'v1alpha1', 'fleetrollouts', { status: true }),
  crd: new URL('../../../infra/k8s/fleetrollout-crd.yaml', import.meta.url),
  for: { kind: 'FleetRollout' },
  owns: [],
  watches: [],
  access: {
    reads: [
      { kind: 'FleetRollout', verbs: ['get'], why: 'FleetRollout observe: the rollout (on the hub)' },
      ...WORKLOADS.map((kind) => ({
        kind,
        verbs: ['get' as const],
        why: 'FleetRollout observe: its target in each selected cluster',
      })),
      { kind: 'ReplicaSet', verbs: ['list'], why: "FleetRollout observe: a Deployment target's ReplicaSets" },
      {
        kind: 'ControllerRevision',
        verbs: ['list'],
        why: "FleetRollout observe: a StatefulSet or DaemonSet target's revisions",
      },
      { kind: 'Pod', verbs: ['list'], why: "FleetRollout observe: the target's pods (failure signatures)" },
    ],
    writes: [
      { kind: 'FleetRollout', verbs: ['update'], why: 'FleetRollout: its finalizer (pins off before it goes)' },
      { kind: 'FleetRollout', subresource: 'status', verbs: ['update'], why: 'FleetRollout: the ledger' },
      ...WORKLOADS.map((kind) => ({
        kind,
        verbs: ['patch' as const],
        why: 'FleetRollout: the pin annotations on its target in each selected cluster',
      })),
      EVENT_WRITES,
    ],
  },
  controller: () => fleetRolloutController,
};
