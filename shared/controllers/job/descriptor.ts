// The Job controller's watch descriptor (upstream's informers: Jobs and Pods). A cluster runs it when its registry
// entry owns Job; Job is not among the default owned kinds until the whole of issue 11 is done.
import { EVENT_WRITES, type WatchDescriptor } from '../descriptor.js';
import { jobController } from './index.js';

export const jobDescriptor: WatchDescriptor = {
  kind: 'Job',
  for: { kind: 'Job' },
  owns: [{ kind: 'Pod', adopts: true }],
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
