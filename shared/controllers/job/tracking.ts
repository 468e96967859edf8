// trackJobStatusAndRemoveFinalizers, as a stateless protocol over the writer's order (creates, then patches and
// deletes, then the status write, which is sent only if every earlier write succeeded).
//
// Upstream, in one sync: (1) write status with the uids of newly terminated pods in
// status.uncountedTerminatedPods (Indexed succeeded pods: their index in completedIndexes), (2) remove those pods'
// tracking finalizers, (3) write status again, moving every uncounted uid whose pod has no finalizer left (or is
// gone) into succeeded/failed. A pod is counted exactly once because its uid is recorded before its finalizer goes,
// and moved to a counter only once its finalizer is gone; finalizer expectations bridge the informer's lag.
//
// Here each pass does one step of that per pod, decided from what it observes, so a pass re-run from any
// intermediate state converges:
//   - a terminated pod with the finalizer whose uid (index) is not yet recorded: recorded in this pass's status
//     write; its finalizer stays until a later pass sees the record (requeueAfter 0);
//   - a pod with the finalizer whose uid (index) is recorded, or that needs no record (a duplicate index, a failure
//     the policy ignores): its finalizer is removed by patch in this pass, and the same pass's status write moves
//     its uid to the counters. If the patch fails the status write is not sent; if the status write fails (or the
//     handler dies before it) the next pass finds the uid recorded and the finalizer gone, and moves it then;
//   - a recorded uid whose pod has no finalizer or is gone: moved to the counters.
// A pass that adds the interim FailureTarget or SuccessCriteriaMet condition removes no finalizer: the condition
// is written first, as upstream flushes it before removing finalizers.
import type { Pod } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { isPodTerminating } from '../pod-utils/pod-state.js';
import { formatIntervals, hasIndex, withIndexes, type Intervals } from './intervals.js';
import { isFailureCounted } from './failure-policy.js';
import {
  completionIndexOf,
  hasBackoffLimitPerIndex,
  hasTrackingFinalizer,
  hasValidIndex,
  isIndexedJob,
  isPodFailed,
  isPodSucceeded,
  removeFinalizerAction,
  UNKNOWN_INDEX,
} from './job-pods.js';
import { MAX_UNCOUNTED_PODS, type Job, type JobCondition, type JobStatus } from './types.js';

export type TrackingInput = {
  readonly job: Job;
  /** The claimed pods. */
  readonly pods: readonly Pod[];
  /** The status being built (active, ready, conditions, ...): uncounted pods and counters are set here. */
  readonly status: JobStatus;
  /** The finished condition the sync decided on (the interim one, or Complete/Failed converted), if any. */
  readonly finishing: boolean;
  /** finishing with a failure (not SuccessCriteriaMet): every pod still running counts as failed. */
  readonly failing: boolean;
  /** Indexed: completedIndexes as observed, and as computed from the pods. */
  readonly prevSucceededIndexes: Intervals;
  readonly succeededIndexes: Intervals;
  /** backoffLimitPerIndex: the failed indexes (written to status.failedIndexes). */
  readonly failedIndexes?: Intervals;
  /** backoffLimitPerIndex: per index, the failed pod whose finalizer stays until its replacement exists. */
  readonly delayed: ReadonlyMap<number, Pod>;
  /**
   * The observed Job already has FailureTarget or SuccessCriteriaMet: a pod being deleted (not terminal) is not
   * considered failed (upstream removed its finalizer, uncounted unless failing, before deleting it).
   */
  readonly afterInterim: boolean;
  /** Whether this pass writes an interim condition for the first time (no finalizer is removed then). */
  readonly interimAdded: boolean;
};

export type Tracking = {
  readonly actions: readonly Action[];
  /** The pass stopped at MAX_UNCOUNTED_PODS, or left finalizers for a later pass: look again at once. */
  readonly more: boolean;
  readonly reachedMaxUncounted: boolean;
};

/** Pod uids recorded in status.uncountedTerminatedPods, as observed. */
export function uncountedOf(job: Job): { succeeded: ReadonlySet<string>; failed: ReadonlySet<string> } {
  const u = job.status?.uncountedTerminatedPods;
  return { succeeded: new Set(u?.succeeded ?? []), failed: new Set(u?.failed ?? []) };
}

export function trackPods(t: TrackingInput): Tracking {
  const { job, status } = t;
  const indexed = isIndexedJob(job);
  const observed = uncountedOf(job);
  const succeeded = [...observed.succeeded];
  const failed = [...observed.failed];
  const withFinalizer = new Set(t.pods.filter(hasTrackingFinalizer).map(uidOf));
  const removing = new Set<string>();
  const actions: Action[] = [];
  const newSucceededIndexes: number[] = [];
  let deferred = false;
  let reachedMaxUncounted = false;

  const pods = indexed ? [...t.pods].sort((a, b) => completionIndexOf(a) - completionIndexOf(b)) : t.pods;
  for (const pod of pods) {
    if (!hasTrackingFinalizer(pod)) continue;
    const uid = uidOf(pod);
    const considerFailed = isPodFailed(pod, job) && !(t.afterInterim && isPodTerminating(pod));
    if (!canRemoveFinalizer(t, pod, considerFailed)) continue;
    let recorded = true;
    if (isPodSucceeded(pod) && !observed.failed.has(uid)) {
      if (indexed) {
        const ix = completionIndexOf(pod);
        if (hasValidIndex(job, pod) && !hasIndex(t.prevSucceededIndexes, ix)) {
          newSucceededIndexes.push(ix);
          recorded = false;
        }
      } else if (!observed.succeeded.has(uid)) {
        succeeded.push(uid);
        recorded = false;
      }
    } else if (considerFailed || t.failing) {
      // A failure an Ignore rule matches needs no record: its finalizer goes and it is not counted.
      if (!observed.failed.has(uid) && (!indexed || hasValidIndex(job, pod)) && isFailureCounted(job, pod)) {
        failed.push(uid);
        recorded = false;
      }
    }
    if (recorded && !t.interimAdded) {
      actions.push(removeFinalizerAction(pod));
      removing.add(uid);
    } else {
      deferred = true;
    }
    if (newSucceededIndexes.length + succeeded.length + failed.length >= MAX_UNCOUNTED_PODS) {
      reachedMaxUncounted = true;
      break;
    }
  }

  // cleanUncountedPodsWithoutFinalizers, over what will be true once this pass's patches are done.
  const stillHeld = (uid: string) => withFinalizer.has(uid) && !removing.has(uid);
  const keptSucceeded = succeeded.filter(stillHeld);
  const keptFailed = failed.filter(stillHeld);
  status.succeeded = (status.succeeded ?? 0) + succeeded.length - keptSucceeded.length;
  status.failed = (status.failed ?? 0) + failed.length - keptFailed.length;
  status.uncountedTerminatedPods = {
    ...(keptSucceeded.length > 0 && { succeeded: keptSucceeded }),
    ...(keptFailed.length > 0 && { failed: keptFailed }),
  };
  if (indexed) {
    const all = withIndexes(t.succeededIndexes, newSucceededIndexes);
    status.completedIndexes = formatIntervals(all);
    status.succeeded = all.reduce((n, i) => n + i.last - i.first + 1, 0);
    if (t.failedIndexes !== undefined) status.failedIndexes = formatIntervals(t.failedIndexes);
  }
  return { actions, more: deferred || reachedMaxUncounted, reachedMaxUncounted };
}

/**
 * canRemoveFinalizer: the Job is being deleted or finishing, or the pod succeeded, or it is considered failed
 * and is not the pod of its index whose failure counts its replacement must still copy (backoffLimitPerIndex).
 */
function canRemoveFinalizer(t: TrackingInput, pod: Pod, considerFailed: boolean): boolean {
  if (t.job.metadata.deletionTimestamp || t.finishing || isPodSucceeded(pod)) return true;
  if (!considerFailed) return false;
  const ix = completionIndexOf(pod);
  return !(hasBackoffLimitPerIndex(t.job) && ix !== UNKNOWN_INDEX && t.delayed.get(ix)?.metadata?.uid === uidOf(pod));
}

/** Nothing recorded is left once this pass's status is written. */
export function hasNoUncounted(status: JobStatus): boolean {
  const u = status.uncountedTerminatedPods;
  return (u?.succeeded?.length ?? 0) + (u?.failed?.length ?? 0) === 0;
}

export type { JobCondition };

function uidOf(pod: Pod): string {
  return pod.metadata?.uid ?? '';
}
