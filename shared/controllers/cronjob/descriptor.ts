// The CronJob controller's watch descriptor (upstream's informers: CronJobs, and Jobs, which wake the CronJob that
// their controller reference names). A cluster runs it when its registry entry owns CronJob, and only where
// kube-controller-manager runs without its cronjob-controller (the sandbox's fleetq mode turns it off), or both
// would create each run's Job. The Jobs it creates are reconciled by whichever Job controller the cluster has:
// fleetq's where the entry also owns Job.
import { apiResource } from '../../kube/resources.js';
import { EVENT_WRITES, type WatchDescriptor } from '../descriptor.js';
import { cronJobController } from './index.js';

export const cronJobDescriptor: WatchDescriptor = {
  kind: 'CronJob',
  resource: apiResource('CronJob', 'batch', 'v1', 'cronjobs', { status: true }),
  upstream: { name: 'cronjob-controller', runs: 'kube-controller-manager' },
  for: { kind: 'CronJob' },
  // The Jobs it created name it as controller; upstream's cronjob controller adopts no orphan Job.
  owns: [{ kind: 'Job', adopts: false }],
  watches: [],
  access: {
    reads: [
      {
        kind: 'CronJob',
        verbs: ['get'],
        why: 'CronJob observe: the CronJob, and a fresh GET when one of its unfinished Jobs is not in status.active',
      },
      {
        kind: 'Job',
        verbs: ['get', 'list'],
        why: "CronJob observe: its Jobs (the namespace's Jobs, filtered by controller), fresh GETs of active Jobs, the run's Job",
      },
    ],
    writes: [
      {
        kind: 'Job',
        verbs: ['create', 'delete'],
        why: "CronJob: create each run's Job; delete finished Jobs past the history limits and, with Replace, active ones",
      },
      { kind: 'CronJob', subresource: 'status', verbs: ['update'], why: 'CronJob: its status' },
      EVENT_WRITES,
    ],
  },
  controller: () => cronJobController,
};
