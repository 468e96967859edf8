// What one JobSet reconcile reads (Reconcile, getChildJobs and createHeadlessSvcIfNecessary of
// jobset_controller.go, v0.12.0), through the cache or live:
//   1  GET the JobSet
//   1  its Jobs: those in its namespace whose controller reference names its uid (upstream's field index on
//      .metadata.controller)
//  +1  with network.enableDNSHostnames, GET the Service named by its subdomain (does the headless Service exist?)
import type { ReconcileKey } from '../../kube/key.js';
import { isControlledBy } from '../../kube/meta/controller-ref.js';
import { controlledOrOrphaned, type ClusterView } from '../../kube/view.js';
import { isDnsHostnamesEnabled } from './child-jobs.js';
import { subdomainOf } from './labels.js';
import {
  JOB_KIND,
  JOBSET_KIND,
  SERVICE_KIND,
  type Job,
  type JobSet,
  type ObservedJobSet,
  type Service,
} from './types.js';

export async function observeJobSet(view: ClusterView, key: ReconcileKey): Promise<ObservedJobSet> {
  const base = { namespace: key.namespace, name: key.name };
  const jobSet = await view.get<JobSet>(JOBSET_KIND, key.namespace, key.name);
  if (jobSet === null) return { ...base, jobSet: null, jobs: [] };
  const uid = jobSet.metadata.uid ?? '';
  const jobs = (await controlledOrOrphaned<Job>(view, JOB_KIND, key.namespace, uid)).filter((j) =>
    isControlledBy(j, uid),
  );
  if (!isDnsHostnamesEnabled(jobSet)) return { ...base, jobSet, jobs };
  const service = await view.get<Service>(SERVICE_KIND, key.namespace, subdomainOf(jobSet));
  return { ...base, jobSet, jobs, service };
}
