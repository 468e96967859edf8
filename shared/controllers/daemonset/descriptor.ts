// DaemonSet has no controller in fleetq yet: its descriptor keeps what the forwarder watches and maps for a
// cluster that owns it (upstream's informers: DaemonSets, Pods, ControllerRevisions, Nodes). The controller
// lands here as `controller` and `access`.
import type { KeyName, Mapping, WatchDescriptor } from '../descriptor.js';
import { isNodeUnchanged, nodeView } from './node-changes.js';

const DAEMON_SETS = new Set(['DaemonSet']);

/** A Node change that matters to scheduling wakes every DaemonSet of the cluster. */
const nodeKeys: Mapping['keys'] = (event, index) => {
  const unchanged =
    event.type === 'MODIFIED' && event.previous !== undefined && isNodeUnchanged(event.previous, event.object);
  return unchanged ? [] : index.all(DAEMON_SETS).map((ds): KeyName => ({ namespace: ds.namespace, name: ds.name }));
};

export const daemonSetDescriptor: WatchDescriptor = {
  kind: 'DaemonSet',
  for: { kind: 'DaemonSet' },
  owns: [
    { kind: 'Pod', adopts: true },
    { kind: 'ControllerRevision', adopts: true },
  ],
  watches: [{ kind: 'Node', keys: nodeKeys, remember: nodeView, why: 'nodes: where its pods should run' }],
};
