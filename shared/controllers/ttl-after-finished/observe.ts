// What one TTL-after-finished reconcile reads (processJob of ttlafterfinished_controller.go, 1.37):
//   1  GET the Job through the view (the cache's copy once it has the key's own writes, else live): the lister
//  +1  GET the Job again, uncached ({ fresh: true }: a quorum read from the apiserver), only when the first copy
//      is due for deletion by `now`: upstream's "final sanity check" before deleting, since the cached Job's TTL
//      may be stale (changed since), and the delete's uid precondition is the fresh copy's uid.
// Only the delete needs the fresh read, so a finished Job that is not yet due costs no API request: its key
// comes back through requeueAfter when it is. Without a clock (a caller that gives none) every Job that needs
// cleanup is re-read: more requests, the same decisions.
import type { ReconcileKey } from '../../kube/key.js';
import type { ClusterView } from '../../kube/view.js';
import { needsCleanup, timeLeftMs } from './ttl.js';
import { JOB_KIND, type Job, type ObservedTtlJob } from './types.js';

export async function observeTtlJob(view: ClusterView, key: ReconcileKey, now?: Date): Promise<ObservedTtlJob> {
  const base = { namespace: key.namespace, name: key.name };
  const job = await view.get<Job>(JOB_KIND, key.namespace, key.name);
  if (job === null || !isDue(job, now)) return { ...base, job };
  const fresh = await view.get<Job>(JOB_KIND, key.namespace, key.name, { fresh: true });
  return { ...base, job, fresh };
}

/** Expired by `now` (or, without one, needing cleanup at all). A finish time it cannot read is left to plan. */
function isDue(job: Job, now: Date | undefined): boolean {
  if (!needsCleanup(job)) return false;
  if (now === undefined) return true;
  try {
    return (timeLeftMs(job, now) ?? 1) <= 0;
  } catch {
    return false;
  }
}
