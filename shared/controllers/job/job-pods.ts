// Pod predicates of the Job controller (job_controller.go, indexed_job_utils.go, tracking_utils.go): the tracking
// finalizer, the completion index, what counts as failed, and the modes of a Job that decide them.
import type { Pod } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { selectorOf } from '../../kube/meta/label-selector.js';
import { claimActions, claimObjects, type Claim } from '../common/claim.js';
import { PodPhase } from '../pod-utils/pod-state.js';
import {
  COMPLETION_INDEX_KEY,
  CompletionMode,
  JOB_API_VERSION,
  JOB_KIND,
  JOB_TRACKING_FINALIZER,
  PodReplacementPolicy,
  Reason,
  type Job,
} from './types.js';

const MAX_INT32 = 2147483647;

/** unknownCompletionIndex. */
export const UNKNOWN_INDEX = -1;

export function hasTrackingFinalizer(pod: Pod): boolean {
  return (pod.metadata?.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/** getCompletionIndex: the annotation as a non-negative integer, else UNKNOWN_INDEX. */
export function completionIndexOf(pod: Pod): number {
  const raw = pod.metadata?.annotations?.[COMPLETION_INDEX_KEY];
  if (raw === undefined || !/^[+-]?[0-9]+$/.test(raw)) return UNKNOWN_INDEX;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : UNKNOWN_INDEX;
}

export function isIndexedJob(job: Job): boolean {
  return job.spec.completionMode === CompletionMode.Indexed;
}

export function isSuspended(job: Job): boolean {
  return job.spec.suspend === true;
}

/**
 * podReplacementPolicy as the apiserver defaults it (SetDefaults_Job): Failed when a podFailurePolicy is set,
 * else TerminatingOrFailed. A Job read from the apiserver always has it; the default serves objects built
 * elsewhere (tests, replayed logs).
 */
export function podReplacementPolicyOf(job: Job): string {
  return (
    job.spec.podReplacementPolicy ??
    (job.spec.podFailurePolicy ? PodReplacementPolicy.Failed : PodReplacementPolicy.TerminatingOrFailed)
  );
}

/** onlyReplaceFailedPods: podReplacementPolicy Failed (a terminating pod is neither failed nor replaced yet). */
export function onlyReplaceFailedPods(job: Job): boolean {
  return podReplacementPolicyOf(job) === PodReplacementPolicy.Failed;
}

/** hasBackoffLimitPerIndex. */
export function hasBackoffLimitPerIndex(job: Job): boolean {
  return job.spec.backoffLimitPerIndex !== undefined && job.spec.backoffLimitPerIndex !== null;
}

/** completions of an Indexed Job (the apiserver requires it); NonIndexed callers check for undefined. */
export function completionsOf(job: Job): number {
  return job.spec.completions ?? 0;
}

export function parallelismOf(job: Job): number {
  return job.spec.parallelism ?? 1;
}

/** backoffLimit as defaulted: 6, or MaxInt32 with backoffLimitPerIndex. */
export function backoffLimitOf(job: Job): number {
  return job.spec.backoffLimit ?? (hasBackoffLimitPerIndex(job) ? MAX_INT32 : 6);
}

/** A valid index of an Indexed Job: known and below completions. */
export function hasValidIndex(job: Job, pod: Pod): boolean {
  const ix = completionIndexOf(pod);
  return ix !== UNKNOWN_INDEX && ix < completionsOf(job);
}

/**
 * isPodFailed: phase Failed; or, unless only failed pods are replaced, being deleted without having succeeded
 * (an orphaned pod may never reach a phase).
 */
export function isPodFailed(pod: Pod, job: Job): boolean {
  const phase = pod.status?.phase;
  if (phase === PodPhase.Failed) return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!pod.metadata?.deletionTimestamp && phase !== PodPhase.Succeeded;
}

export function isPodSucceeded(pod: Pod): boolean {
  return pod.status?.phase === PodPhase.Succeeded;
}

export function podRef(pod: Pod): { kind: string; namespace: string; name: string } {
  return { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' };
}

/** getPodsForJob's ClaimPods: every pod it controls and still selects, terminal ones included, and the orphans. */
export function claimJobPods(job: Job, pods: readonly Pod[]): Claim<Pod> {
  return claimObjects(job, pods, selectorOf(job.spec.selector));
}

/**
 * The adoptions and releases with the tracking finalizer, as upstream's PodControllerRefManager does for Jobs:
 * adoption adds it, release deletes it from the list.
 */
export function jobClaimActions(job: Job, claim: Claim<Pod>): Action[] {
  const owner = {
    apiVersion: JOB_API_VERSION,
    kind: JOB_KIND,
    name: job.metadata.name ?? '',
    uid: job.metadata.uid ?? '',
  };
  return claimActions(owner, 'Pod', claim, {
    adopt: { finalizers: [JOB_TRACKING_FINALIZER] },
    release: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] },
  });
}

/** The patch that removes the tracking finalizer (removeTrackingFinalizerPatch), with the uid as precondition. */
export function removeFinalizerAction(pod: Pod): Action {
  return {
    type: 'patch',
    target: podRef(pod),
    patch: {
      metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER], uid: pod.metadata?.uid ?? '' },
    },
    reason: Reason.RemoveTrackingFinalizer,
    // Gone, or recreated under another uid: the pod that carried the finalizer no longer exists.
    ignore: ['NotFound', 'Invalid'],
  };
}
