// What one Job reconcile reads, through the cache (after the key's own last writes are in it) or live:
//   1  GET the Job
//   1  its pods plus the namespace's orphans (getPodsForJob: FilterPodsByOwner with orphans), terminal pods
//      included: from the cache's owner and orphan indexes, or one filtered list of the namespace's pods live
//  +1  GET the Job again, uncached, only when an orphan is to be adopted (RecheckDeletionTimestamp)
// A gone Job reads the namespace's pods instead (1 list), for those still naming it with the tracking finalizer.
// The pods list takes the namespace's terminating pods too (the cache's terminating index; live, the same list):
// those still naming a Job of this name under another uid lose the tracking finalizer (upstream's orphan-pod worker).
import type { Pod } from '../../kube/api/objects.js';
import type { ReconcileKey } from '../../kube/key.js';
import { controllerRefOf, isControlledByOrOrphan } from '../../kube/meta/controller-ref.js';
import { controlledOrOrphaned, type ClusterView } from '../../kube/view.js';
import { claimJobPods, hasTrackingFinalizer } from './job-pods.js';
import { JOB_KIND, type Job, type ObservedJob } from './types.js';

export async function observeJob(view: ClusterView, key: ReconcileKey): Promise<ObservedJob> {
  const base = { namespace: key.namespace, name: key.name };
  const job = await view.get<Job>(JOB_KIND, key.namespace, key.name);
  if (job === null) {
    const pods = await view.list<Pod>('Pod', key.namespace);
    return { ...base, job: null, pods: pods.filter((p) => namesJobWithFinalizer(p, key.name)) };
  }
  const uid = job.metadata.uid ?? '';
  const read = await controlledOrOrphaned<Pod>(view, 'Pod', key.namespace, uid, { terminating: true });
  const pods = read.filter((p) => isControlledByOrOrphan(p, uid));
  const replacedJobPods = read.filter((p) => namesJobWithFinalizer(p, key.name) && controllerRefOf(p)?.uid !== uid);
  const observed = { ...base, job, pods, ...(replacedJobPods.length > 0 && { replacedJobPods }) };
  if (job.metadata.deletionTimestamp || claimJobPods(job, pods).adopt.length === 0) return observed;
  const adoptionRecheck = await view.get<Job>(JOB_KIND, key.namespace, key.name, { fresh: true });
  return { ...observed, adoptionRecheck };
}

/** A pod whose controller reference names a Job called `name` and that still carries the tracking finalizer. */
function namesJobWithFinalizer(p: Pod, name: string): boolean {
  const ref = controllerRefOf(p);
  return ref?.kind === JOB_KIND && ref.name === name && hasTrackingFinalizer(p);
}
