// StatefulSet has no controller in fleetq yet: its descriptor keeps what the forwarder watches and maps for a
// cluster that owns it (upstream's informers: StatefulSets, Pods, ControllerRevisions, PVCs). The controller
// lands here as `controller` and `access`.
import type { WatchDescriptor } from '../descriptor.js';

export const statefulSetDescriptor: WatchDescriptor = {
  kind: 'StatefulSet',
  for: { kind: 'StatefulSet' },
  owns: [
    { kind: 'Pod', adopts: true },
    { kind: 'ControllerRevision', adopts: true },
    // Its PVCs name it as controller (retention policy), but it never adopts an orphan claim.
    { kind: 'PersistentVolumeClaim', adopts: false },
  ],
  watches: [],
};
