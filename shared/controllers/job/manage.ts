// manageJob: keep the number of active pods at what the Job wants. A suspended Job deletes every active pod;
// otherwise surplus pods (and, for Indexed Jobs, duplicated or out-of-range indexes) are deleted first and a pass
// that deletes creates nothing; else the missing pods are created, at most MAX_POD_CREATE_DELETE_PER_SYNC, once
// the re-creation backoff has passed (requeueAfter tells when; with backoffLimitPerIndex the backoff is each
// index's own, and only the indexes whose backoff has passed are created). Pods the controller deletes lose the tracking
// finalizer first (deleteJobPods): they are not counted as failed. The writer sends the finalizer patch and the
// delete of a pod in one batch; both carry the pod's uid.
import type { Pod } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { sortActivePods } from '../pod-utils/active-pods.js';
import { isPodReady, isPodTerminating } from '../pod-utils/pod-state.js';
import { remainingBackoffMs, type BackoffRecord } from './backoff.js';
import { podCreateEvents, podDeleteEvents } from './events.js';
import { hasIndex, mergeIntervals, withIndexes, type Intervals } from './intervals.js';
import {
  completionIndexOf,
  completionsOf,
  hasBackoffLimitPerIndex,
  hasTrackingFinalizer,
  isIndexedJob,
  isSuspended,
  onlyReplaceFailedPods,
  parallelismOf,
  podRef,
  removeFinalizerAction,
  UNKNOWN_INDEX,
} from './job-pods.js';
import { indexFailureAnnotations, indexesReadyNow } from './per-index.js';
import { podFromTemplate } from './pod-template.js';
import { MAX_POD_CREATE_DELETE_PER_SYNC, Reason, SYNC_BATCH_PERIOD_MS, type Job } from './types.js';

export type ManageInput = {
  readonly job: Job;
  readonly pods: readonly Pod[];
  readonly active: readonly Pod[];
  readonly succeeded: number;
  readonly succeededIndexes: Intervals;
  /** backoffLimitPerIndex: the failed indexes (never created again), and each waiting index's last failed pod. */
  readonly failedIndexes?: Intervals;
  readonly delayed?: ReadonlyMap<number, Pod>;
  readonly terminating: number;
  readonly backoff: BackoffRecord;
  readonly now: Date;
};

export type Manage = {
  readonly actions: readonly Action[];
  readonly active: number;
  /** Terminating after this pass's deletes. */
  readonly terminating: number;
  /** Ready active pods left after this pass's deletes. */
  readonly readyDeleted: number;
  readonly requeueAfter?: number;
};

export function manageJob(m: ManageInput): Manage {
  const { job } = m;
  const active = m.active.length;
  if (isSuspended(job)) return deleteJobPods(m, activePodsForRemoval(job, m.active, active));

  const parallelism = parallelismOf(job);
  let wantActive: number;
  if (job.spec.completions === undefined) wantActive = m.succeeded > 0 ? active : parallelism;
  else wantActive = Math.max(0, Math.min(job.spec.completions - m.succeeded, parallelism));

  const rmAtLeast = Math.max(0, active - wantActive);
  const toDelete = activePodsForRemoval(job, m.active, rmAtLeast).slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
  if (toDelete.length > 0) return deleteJobPods(m, toDelete);

  const terminating = onlyReplaceFailedPods(job) ? m.terminating : 0;
  let diff = wantActive - terminating - active;
  const unchanged = { actions: [], active, terminating: m.terminating, readyDeleted: 0 };
  if (diff <= 0) return unchanged;
  const perIndex = hasBackoffLimitPerIndex(job);
  if (!perIndex) {
    const remaining = remainingBackoffMs(m.backoff, m.now);
    if (remaining > 0) return { ...unchanged, requeueAfter: Math.max(remaining, SYNC_BATCH_PERIOD_MS) };
  }
  diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
  const events = podCreateEvents(job);
  let pods: Pod[];
  if (isIndexedJob(job)) {
    let indexes = firstPendingIndexes(m, diff);
    if (perIndex) {
      const delayed = m.delayed ?? new Map<number, Pod>();
      const ready = indexesReadyNow(indexes, delayed, m.now);
      if (ready.remainingMs > 0)
        return { ...unchanged, requeueAfter: Math.max(ready.remainingMs, SYNC_BATCH_PERIOD_MS) };
      indexes = ready.indexes;
      pods = indexes.map((ix) => podFromTemplate(job, ix, indexFailureAnnotations(job, delayed.get(ix))));
    } else {
      pods = indexes.map((ix) => podFromTemplate(job, ix));
    }
  } else {
    const pod = podFromTemplate(job);
    pods = Array.from({ length: diff }, () => pod);
  }
  const actions = pods.map((object): Action => ({ type: 'create', object, reason: Reason.SuccessfulCreate, events }));
  return { ...unchanged, actions, active: active + pods.length };
}

/** deleteJobPods: remove the tracking finalizer, then delete (events on the Job). */
function deleteJobPods(m: ManageInput, pods: readonly Pod[]): Manage {
  const actions: Action[] = [];
  let readyDeleted = 0;
  for (const pod of pods) {
    if (hasTrackingFinalizer(pod)) actions.push(removeFinalizerAction(pod));
    actions.push(deleteAction(m.job, pod));
    if (isPodReady(pod)) readyDeleted++;
  }
  return {
    actions,
    active: m.active.length - pods.length,
    terminating: m.terminating + pods.length,
    readyDeleted,
  };
}

/** A pod delete with its uid as precondition and the events RealPodControl.DeletePod records. */
export function deleteAction(job: Job, pod: Pod): Action {
  return {
    type: 'delete',
    target: podRef(pod),
    uid: pod.metadata?.uid ?? '',
    reason: Reason.SuccessfulDelete,
    events: podDeleteEvents(job, pod.metadata?.name ?? ''),
  };
}

/**
 * activePodsForRemoval: for an Indexed Job, every pod without a valid index, beyond completions, or repeating an
 * index (of each repeated index the one furthest along is kept); then, if that is not yet rmAtLeast, the first
 * of the rest in ActivePods order.
 */
export function activePodsForRemoval(job: Job, active: readonly Pod[], rmAtLeast: number): Pod[] {
  const rm: Pod[] = [];
  let left: Pod[] = [...active];
  if (isIndexedJob(job)) {
    left = [];
    const completions = completionsOf(job);
    const byIndex = new Map<number, Pod[]>();
    for (const pod of active) {
      const ix = completionIndexOf(pod);
      if (ix === UNKNOWN_INDEX || ix >= completions) rm.push(pod);
      else byIndex.set(ix, [...(byIndex.get(ix) ?? []), pod]);
    }
    for (const ix of [...byIndex.keys()].sort((a, b) => a - b)) {
      const same = sortActivePods(byIndex.get(ix)!);
      rm.push(...same.slice(0, -1));
      left.push(same[same.length - 1]!);
    }
  }
  if (rm.length < rmAtLeast) rm.push(...sortActivePods(left).slice(0, rmAtLeast - rm.length));
  return rm;
}

/**
 * firstPendingIndexes: the lowest `count` indexes below completions that have neither succeeded, failed
 * (backoffLimitPerIndex) nor an active pod (nor, with podReplacementPolicy Failed, a terminating one).
 */
export function firstPendingIndexes(m: ManageInput, count: number): number[] {
  const completions = completionsOf(m.job);
  const busy = new Set<number>();
  const add = (pods: readonly Pod[]) =>
    pods.forEach((p) => completionIndexOf(p) !== UNKNOWN_INDEX && busy.add(completionIndexOf(p)));
  add(m.active);
  if (onlyReplaceFailedPods(m.job)) add(m.pods.filter(isPodTerminating));
  const nonPending = mergeIntervals(withIndexes(m.succeededIndexes, busy), m.failedIndexes ?? []);
  const result: number[] = [];
  for (let ix = 0; ix < completions && result.length < count; ix++) {
    if (!hasIndex(nonPending, ix)) result.push(ix);
  }
  return result;
}
