// CronJob has no controller in fleetq yet: its descriptor keeps what the forwarder watches and maps for a
// cluster that owns it (upstream's informers: CronJobs and Jobs). The controller lands here as `controller`
// and `access`.
import type { WatchDescriptor } from '../descriptor.js';

export const cronJobDescriptor: WatchDescriptor = {
  kind: 'CronJob',
  for: { kind: 'CronJob' },
  // The Jobs it created name it as controller; upstream's cronjob controller adopts no orphan Job.
  owns: [{ kind: 'Job', adopts: false }],
  watches: [],
};
