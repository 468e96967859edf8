// What one CronJob reconcile reads (sync and syncCronJob of cronjob_controllerv2.go, 1.37), through the cache
// (after the key's own last writes are in it) or live:
//   1  GET the CronJob (the lister)
//   1  its Jobs: those whose controller reference names its uid (the jobControllerUID index): the cache's owner
//      index, or one filtered list of the namespace's Jobs live
//  +1  GET the CronJob fresh (GetCronJob), only when an unfinished Job of its is missing from status.active and is
//      not the run it has just created (plan.ts)
//  +n  GET each active Job the Jobs above lack, fresh (GetJob: gone, or only not yet in the cache?)
// and, with `now`, when a run is due by it:
//  +1  GET the Job of the run's name (would its create be refused AlreadyExists, and whose is it?)
//  +n  with concurrencyPolicy Replace, GET each active Job fresh (what Replace deletes, by uid)
// So a CronJob between runs costs two reads from the cache and no API request.
import type { ReconcileKey } from '../../kube/key.js';
import { isControlledBy } from '../../kube/meta/controller-ref.js';
import { controlledOrOrphaned, type ClusterView } from '../../kube/view.js';
import { jobNameFor } from './job-template.js';
import { dueRun, needsFreshCronJob } from './plan.js';
import { ConcurrencyPolicy, CRONJOB_KIND, JOB_KIND, type CronJob, type Job, type ObservedCronJob } from './types.js';

export async function observeCronJob(view: ClusterView, key: ReconcileKey, now?: Date): Promise<ObservedCronJob> {
  const base = { namespace: key.namespace, name: key.name };
  const cronJob = await view.get<CronJob>(CRONJOB_KIND, key.namespace, key.name);
  if (cronJob === null) return { ...base, cronJob: null, jobs: [] };
  const uid = cronJob.metadata.uid ?? '';
  const jobs = (await controlledOrOrphaned<Job>(view, JOB_KIND, key.namespace, uid)).filter((j) =>
    isControlledBy(j, uid),
  );
  const fresh = needsFreshCronJob(cronJob, jobs)
    ? await view.get<CronJob>(CRONJOB_KIND, key.namespace, key.name, { fresh: true })
    : undefined;

  const jobsByName: Record<string, Job | null> = {};
  const lookUp = async (name: string): Promise<void> => {
    if (name in jobsByName) return;
    jobsByName[name] = await view.get<Job>(JOB_KIND, key.namespace, name, { fresh: true });
  };
  const children = new Set(jobs.map((j) => j.metadata.uid));
  const refs = [...(cronJob.status?.active ?? []), ...(fresh?.status?.active ?? [])];
  for (const ref of refs) if (!children.has(ref.uid)) await lookUp(ref.name ?? '');

  const scheduled = now === undefined ? null : dueRun(cronJob, now.getTime());
  if (scheduled === null) return { ...base, cronJob, jobs, jobsByName, ...(fresh !== undefined && { fresh }) };
  if (cronJob.spec.concurrencyPolicy === ConcurrencyPolicy.Replace) {
    for (const ref of refs) await lookUp(ref.name ?? '');
  }
  const existing = await view.get<Job>(JOB_KIND, key.namespace, jobNameFor(cronJob, scheduled));
  return { ...base, cronJob, jobs, jobsByName, existing, ...(fresh !== undefined && { fresh }) };
}
