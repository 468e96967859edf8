// What one JobSet reconcile reads (Reconcile, getChildJobs and createHeadlessSvcIfNecessary of
// jobset_controller.go, v0.12.0), through the cache or live:
//   1  GET the JobSet
//   1  its Jobs: those in its namespace whose controller reference names its uid (upstream's field index on
//      .metadata.controller)
//   1  the JobSet's kept suspended state (a view over a cache keeps one a while: cache-entry.ts keepsState); when one
//      is kept, one write: it is dropped, unless the pass must still act on it (`missedSuspension`, below)
//  +1  with network.enableDNSHostnames, GET the Service named by its subdomain (does the headless Service exist?)
//  +n  with volumeClaimPolicies, GET each claim they name (`<template>-<jobset>`): which are missing
//  +1  last, when it has fewer Jobs than its replicatedJobs ask for and has not finished (the pass may create Jobs): the
//      JobSet again, fresh from the apiserver, so that Jobs are not created for a JobSet deleted a moment ago that
//      the cache does not show as deleted yet (upstream's manager, faster from event to create, rarely meets this;
//      its Jobs would then be left to the garbage collector).
import type { ReconcileKey } from '../../kube/key.js';
import { isControlledBy } from '../../kube/meta/controller-ref.js';
import { controlledOrOrphaned, type ClusterView } from '../../kube/view.js';
import { finishedType, isDnsHostnamesEnabled, isJobSetSuspended, isJobSuspended } from './child-jobs.js';
import { subdomainOf } from './labels.js';
import { isJobSetFinished } from './status.js';
import { claimNames } from './volume-claims.js';
import {
  CLAIM_KIND,
  JOB_KIND,
  JOBSET_KIND,
  SERVICE_KIND,
  type Job,
  type JobSet,
  type ObservedJobSet,
  type PersistentVolumeClaim,
  type Service,
} from './types.js';

export async function observeJobSet(view: ClusterView, key: ReconcileKey): Promise<ObservedJobSet> {
  const base = { namespace: key.namespace, name: key.name };
  let jobSet = await view.get<JobSet>(JOBSET_KIND, key.namespace, key.name);
  if (jobSet === null) return { ...base, jobSet: null, jobs: [] };
  const uid = jobSet.metadata.uid ?? '';
  const jobs = (await controlledOrOrphaned<Job>(view, JOB_KIND, key.namespace, uid)).filter((j) =>
    isControlledBy(j, uid),
  );
  const service = isDnsHostnamesEnabled(jobSet)
    ? await view.get<Service>(SERVICE_KIND, key.namespace, subdomainOf(jobSet))
    : undefined;
  const names = claimNames(jobSet);
  const claims: Record<string, PersistentVolumeClaim | null> = {};
  for (const name of names) claims[name] = await view.get<PersistentVolumeClaim>(CLAIM_KIND, key.namespace, name);
  // The last read, so that as little as possible lies between it and the creates it may lead to. (The Service
  // and claims were read by the cached JobSet's subdomain and templates: a spec change in between is the next
  // event's pass.)
  if (jobs.length < wantedJobs(jobSet) && !isJobSetFinished(jobSet)) {
    const fresh = await view.get<JobSet>(JOBSET_KIND, key.namespace, key.name, { fresh: true });
    if (fresh === null || fresh.metadata.uid !== uid) return { ...base, jobSet: null, jobs: [] };
    jobSet = fresh;
  }
  const missedSuspension = await suspensionMissed(view, jobSet, jobs);
  return {
    ...base,
    jobSet,
    jobs,
    ...(missedSuspension && { missedSuspension }),
    ...(service !== undefined && { service }),
    ...(names.length > 0 && { claims }),
  };
}

/**
 * A suspend the cache folded away: the JobSet was suspended since its last pass (its kept suspended state) and is
 * resumed now, while Jobs of it are still running unsuspended. Upstream's informer would have shown the suspended
 * state and its pass would have suspended those Jobs; resumed, each then takes the pod template the JobSet has now
 * (what Kueue changes between a suspend and a resume). So this pass suspends them, and the next resumes them. The kept
 * state is dropped once no such Job is left (or the JobSet is suspended now, or finished, or another one), so the
 * Jobs it resumes are not suspended again; a drop that fails fails the pass, which runs again with the state kept.
 */
async function suspensionMissed(view: ClusterView, jobSet: JobSet, jobs: readonly Job[]): Promise<boolean> {
  if (view.keptState === undefined) return false;
  const { namespace = '', name = '', uid } = jobSet.metadata;
  const kept = await view.keptState<JobSet>(JOBSET_KIND, namespace, name);
  if (kept === null) return false;
  const missed =
    kept.metadata.uid === uid &&
    isJobSetSuspended(kept) &&
    !isJobSetSuspended(jobSet) &&
    jobSet.metadata.deletionTimestamp === undefined &&
    !isJobSetFinished(jobSet) &&
    jobs.some((j) => finishedType(j) === '' && !isJobSuspended(j) && j.metadata.deletionTimestamp === undefined);
  if (!missed) await view.dropKeptState?.(JOBSET_KIND, namespace, name, kept.metadata.resourceVersion ?? '');
  return missed;
}

/** The Jobs its replicatedJobs ask for (the sum of their replicas). */
function wantedJobs(js: JobSet): number {
  return (js.spec.replicatedJobs ?? []).reduce((n, r) => n + (r.replicas ?? 1), 0);
}
