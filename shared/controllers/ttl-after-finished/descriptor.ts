// The TTL-after-finished controller's watch descriptor (upstream's informer: Jobs, add and update only).
//
// Its key kind is its own, TTLAfterFinished, while what it reconciles (For) is Job. A reconcile key names the
// controller that handles it (the runtime picks the controller by key kind, the registry says per cluster which
// kinds fleetq owns), and this is a controller apart from the Job controller, as upstream's is: a cluster may
// hand fleetq one and not the other (a cluster whose kube-controller-manager still runs job-controller, or whose
// Jobs name another spec.managedBy, can still have its finished Jobs cleaned up by fleetq), and one Job's two
// keys are queued, leased and backed off apart. The descriptor model already keeps the two apart (`kind` and
// `for.kind`, as the ConfigMap mirror's keys are its own): the forwarder yields a TTLAfterFinished key for a
// Job event, a resync lists jobs for it, the cache holds Jobs for it, and its RBAC pair is its own
// (ttl-after-finished-rbac.yaml).
//
// Opt-in (`owns: [TTLAfterFinished]` in a cluster's registry entry): only where kube-controller-manager runs
// without its ttl-after-finished-controller (the sandbox's fleetq mode turns it off), or both would delete.
// It owns nothing (the garbage collector deletes the pods), adopts nothing, and records no events.
import { namespaceOf, nameOf, type WatchDescriptor } from '../descriptor.js';
import { ttlAfterFinishedController } from './index.js';
import { isCleanupCandidate } from './ttl.js';
import { TTL_AFTER_FINISHED_KIND } from './types.js';

export const ttlAfterFinishedDescriptor: WatchDescriptor = {
  kind: TTL_AFTER_FINISHED_KIND,
  upstream: { name: 'ttl-after-finished-controller', runs: 'kube-controller-manager' },
  for: {
    kind: 'Job',
    // addJob / updateJob enqueue only a Job that is not being deleted, has a TTL and is finished; no delete handler.
    keys: (event) =>
      event.type !== 'DELETED' && isCleanupCandidate(event.object)
        ? [{ namespace: namespaceOf(event.object), name: nameOf(event.object) }]
        : [],
    why: 'TTL-after-finished: finished Jobs with ttlSecondsAfterFinished (events yield their keys; a resync lists them)',
  },
  owns: [],
  watches: [],
  access: {
    reads: [
      {
        kind: 'Job',
        verbs: ['get'],
        why: 'TTL-after-finished observe: the Job, and a fresh GET once its TTL has expired (before the delete)',
      },
    ],
    writes: [
      {
        kind: 'Job',
        verbs: ['delete'],
        why: 'TTL-after-finished: delete an expired Job (uid precondition, propagationPolicy Foreground); no events',
      },
    ],
  },
  controller: () => ttlAfterFinishedController,
};
