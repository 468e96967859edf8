// The JobSet controller's watch descriptor (upstream's SetupWithManager: For JobSet, Owns Job and Service; the
// Pod watch of the InPlaceRestart gate is not taken). The CRD is upstream's own file of the sigs.k8s.io/jobset
// module at the version the sandbox builds its manager from (infra/sandbox/build-addons.sh); the sandbox installs
// it on every cluster and runs that manager on its upstream clusters as an add-on.
import { apiResource } from '../../kube/resources.js';
import { EVENT_WRITES, type WatchDescriptor } from '../descriptor.js';
import { jobSetController } from './index.js';

export const jobSetDescriptor: WatchDescriptor = {
  kind: 'JobSet',
  resource: apiResource('JobSet', 'jobset.x-k8s.io', 'v1alpha2', 'jobsets', { status: true }),
  crd: {
    module: 'sigs.k8s.io/jobset',
    version: 'v0.12.0',
    path: 'config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml',
  },
  upstream: { name: 'jobset-controller', runs: 'add-on' },
  for: { kind: 'JobSet' },
  // Its Jobs and its headless Service name it as controller; upstream adopts no orphan.
  owns: [
    { kind: 'Job', adopts: false },
    { kind: 'Service', adopts: false },
  ],
  watches: [],
  access: {
    reads: [
      { kind: 'JobSet', verbs: ['get'], why: 'JobSet observe: the JobSet' },
      { kind: 'Job', verbs: ['list'], why: "JobSet observe: its Jobs (the namespace's Jobs, filtered by controller)" },
      {
        kind: 'Job',
        verbs: ['get'],
        why: 'JobSet: after a pass created Jobs for a JobSet gone meanwhile, each of them, fresh (to delete it by uid)',
      },
      { kind: 'Service', verbs: ['get'], why: 'JobSet observe: with DNS hostnames, does the headless Service exist' },
      {
        kind: 'PersistentVolumeClaim',
        verbs: ['get'],
        why: 'JobSet observe: with volumeClaimPolicies, which of their claims exist',
      },
    ],
    writes: [
      {
        kind: 'Job',
        verbs: ['create', 'update', 'delete'],
        why: 'JobSet: create its Jobs, suspend and resume them, delete those of an earlier attempt or a finished JobSet',
      },
      {
        kind: 'Job',
        subresource: 'status',
        verbs: ['update'],
        why: "JobSet: clear a started Job's startTime to resume it",
      },
      { kind: 'Service', verbs: ['create'], why: 'JobSet: the headless Service of network.enableDNSHostnames' },
      { kind: 'PersistentVolumeClaim', verbs: ['create'], why: 'JobSet: the claims of its volumeClaimPolicies' },
      { kind: 'JobSet', verbs: ['delete'], why: 'JobSet: delete it once ttlSecondsAfterFinished has passed' },
      { kind: 'JobSet', subresource: 'status', verbs: ['update'], why: 'JobSet: its status' },
      EVENT_WRITES,
    ],
  },
  controller: () => jobSetController,
};
