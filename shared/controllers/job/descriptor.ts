// The Job controller's watch descriptor (upstream's informers: Jobs and Pods). A cluster runs it for every Job when
// its registry entry owns Job, or, with `handOver: [Job]`, for the Jobs that name fleetq in spec.managedBy (the
// cluster's job-controller stays on and skips those: KEP-4368).
import { apiResource } from '../../kube/resources.js';
import { EVENT_WRITES, type WatchDescriptor } from '../descriptor.js';
import { jobController } from './index.js';
import { FLEETQ_MANAGER, SYNC_BATCH_PERIOD_MS } from './types.js';

export const jobDescriptor: WatchDescriptor = {
  kind: 'Job',
  resource: apiResource('Job', 'batch', 'v1', 'jobs', { status: true }),
  upstream: { name: 'job-controller', runs: 'kube-controller-manager' },
  // Handed over one by one (registry handOver: [Job]) when spec.managedBy names fleetq (KEP-4368).
  for: {
    kind: 'Job',
    handedOver: (object) => (object.spec as { managedBy?: unknown } | undefined)?.managedBy === FLEETQ_MANAGER,
    // A Job update that leaves its generation unchanged (its status: typically after pod events) syncs it 1 s later,
    // as upstream's updateJob (enqueueSyncJobBatched); a spec change, an add and a delete at once. The forwarder
    // keeps each Job's generation to tell.
    remember: (object) => ({ metadata: { generation: object.metadata?.generation } }),
    batchUnchangedMs: SYNC_BATCH_PERIOD_MS,
  },
  // A pod's add, update or delete syncs its Job 1 s later, as upstream's enqueueSyncJobBatched (AddAfter
  // syncJobBatchPeriod) does, for its controller and for an orphan's matching Jobs.
  owns: [{ kind: 'Pod', adopts: true, batchMs: SYNC_BATCH_PERIOD_MS }],
  watches: [],
  access: {
    reads: [
      { kind: 'Job', verbs: ['get'], why: 'Job observe: the Job, and a fresh GET before adopting' },
      {
        kind: 'Pod',
        verbs: ['list'],
        why: "Job observe: its pods and the namespace's orphans (a gone Job: the namespace's pods)",
      },
    ],
    writes: [
      {
        kind: 'Pod',
        verbs: ['create', 'delete', 'patch'],
        why: 'Job: create and delete pods; adopt, release and remove the tracking finalizer by patch',
      },
      { kind: 'Job', subresource: 'status', verbs: ['update'], why: 'Job: its status' },
      EVENT_WRITES,
    ],
  },
  controller: () => jobController,
};
