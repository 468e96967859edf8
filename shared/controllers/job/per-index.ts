// backoffLimitPerIndex and maxFailedIndexes (indexed_job_utils.go, backoff_utils.go; KEP-3850, GA 1.33).
// Each index has its own budget of failures. The count travels with the pods: a replacement pod carries
// batch.kubernetes.io/job-index-failure-count (failures of its index so far that counted) and, when non-zero,
// batch.kubernetes.io/job-index-ignored-failure-count (failures an Ignore rule matched). So that the count can be
// copied, the finalizer of an index's last failed pod stays until its replacement exists (the pod "with delayed
// deletion"). An index fails when a counted failure finds the count already at backoffLimitPerIndex, or when a
// FailIndex rule matches; failed indexes are kept in status.failedIndexes ("1,3-5") and never run again. The
// re-creation delay is per index: 10 s doubled per failure of the index (counted or ignored), capped at 10 min,
// from the last failed pod's finish time.
import type { Pod } from '../../kube/api/objects.js';
import { isPodTerminating } from '../pod-utils/pod-state.js';
import { finishedTimeMs, backoffDelayMs } from './backoff.js';
import { matchPodFailurePolicy } from './failure-policy.js';
import { hasIndex, parseIntervals, withIndexes, type Interval, type Intervals } from './intervals.js';
import { completionIndexOf, completionsOf, hasTrackingFinalizer, hasValidIndex, isPodFailed } from './job-pods.js';
import { INDEX_FAILURE_COUNT_KEY, INDEX_IGNORED_FAILURE_COUNT_KEY, PodFailurePolicyAction, type Job } from './types.js';

const MAX_INT32 = 2147483647;

/** parseInt32 of an annotation: absent, not a decimal integer, negative or past int32 → 0. */
function annotationCount(pod: Pod, key: string): number {
  const raw = pod.metadata?.annotations?.[key];
  if (raw === undefined || !/^[+-]?[0-9]+$/.test(raw)) return 0;
  const n = Number(raw);
  return n < 0 || n > MAX_INT32 ? 0 : n;
}

export const indexFailureCountOf = (pod: Pod): number => annotationCount(pod, INDEX_FAILURE_COUNT_KEY);
export const indexIgnoredFailureCountOf = (pod: Pod): number => annotationCount(pod, INDEX_IGNORED_FAILURE_COUNT_KEY);
/** getIndexAbsoluteFailureCount: counted and ignored failures of the index before this pod. */
export const indexAbsoluteFailureCountOf = (pod: Pod): number =>
  indexFailureCountOf(pod) + indexIgnoredFailureCountOf(pod);

/** isIndexFailed: the pod failed and either a FailIndex rule matched or its index has no budget left. */
export function isIndexFailed(job: Job, pod: Pod): boolean {
  if (!isPodFailed(pod, job)) return false;
  let counted = true;
  if (job.spec.podFailurePolicy) {
    const m = matchPodFailurePolicy(job.spec.podFailurePolicy, pod);
    if (m.action === PodFailurePolicyAction.FailIndex) return true;
    counted = m.countFailed;
  }
  return counted && indexFailureCountOf(pod) >= (job.spec.backoffLimitPerIndex ?? 0);
}

/**
 * calculateFailedIndexes: status.failedIndexes as observed plus the indexes of pods (still holding the tracking
 * finalizer, with a valid index) that fail their index now. `afterInterim` (FailureTarget / SuccessCriteriaMet
 * written): a pod being deleted by the finishing is left out, as upstream removed its finalizer before.
 */
export function failedIndexesOf(job: Job, pods: readonly Pod[], afterInterim = false): Interval[] {
  const completions = completionsOf(job);
  const previous = parseIntervals(job.status?.failedIndexes, completions);
  const failedNow = pods
    .filter((p) => hasValidIndex(job, p) && hasTrackingFinalizer(p) && !(afterInterim && isPodTerminating(p)))
    .filter((p) => isIndexFailed(job, p))
    .map(completionIndexOf);
  return withIndexes(previous, failedNow);
}

/**
 * getPodsWithDelayedDeletionPerIndex: for each index that has neither succeeded, failed nor an active pod, its
 * latest failed pod still holding the finalizer (most failures, then latest finish): the pod its replacement
 * takes the failure counts from, whose finalizer stays until then.
 */
export function podsWithDelayedDeletion(
  job: Job,
  pods: readonly Pod[],
  active: readonly Pod[],
  succeededIndexes: Intervals,
  failedIndexes: Intervals,
): Map<number, Pod> {
  const activeIndexes = new Set(active.map(completionIndexOf));
  const result = new Map<number, Pod>();
  for (const p of pods) {
    if (!hasTrackingFinalizer(p) || !hasValidIndex(job, p) || !isPodFailed(p, job)) continue;
    const ix = completionIndexOf(p);
    if (hasIndex(succeededIndexes, ix) || hasIndex(failedIndexes, ix) || activeIndexes.has(ix)) continue;
    const last = result.get(ix);
    if (
      last === undefined ||
      (indexAbsoluteFailureCountOf(last) <= indexAbsoluteFailureCountOf(p) && finishedTimeMs(p) >= finishedTimeMs(last))
    ) {
      result.set(ix, p);
    }
  }
  return result;
}

/** getNewIndexFailureCounts: the counts a replacement of `replaced` carries (0, 0 for a first pod). */
export function newIndexFailureCounts(job: Job, replaced: Pod | undefined): { counted: number; ignored: number } {
  if (replaced === undefined) return { counted: 0, ignored: 0 };
  let counted = indexFailureCountOf(replaced);
  let ignored = indexIgnoredFailureCountOf(replaced);
  if (!job.spec.podFailurePolicy || matchPodFailurePolicy(job.spec.podFailurePolicy, replaced).countFailed) counted++;
  else ignored++;
  return { counted, ignored };
}

/** addIndexFailureCountAnnotation: the annotations a new pod of a backoffLimitPerIndex Job gets. */
export function indexFailureAnnotations(job: Job, replaced: Pod | undefined): Record<string, string> {
  const { counted, ignored } = newIndexFailureCounts(job, replaced);
  return {
    [INDEX_FAILURE_COUNT_KEY]: String(counted),
    ...(ignored > 0 && { [INDEX_IGNORED_FAILURE_COUNT_KEY]: String(ignored) }),
  };
}

/** getRemainingTimePerIndex (ms): how long the index must still wait before its replacement is created. */
export function remainingIndexBackoffMs(lastFailed: Pod | undefined, now: Date): number {
  if (lastFailed === undefined) return 0;
  const delay = backoffDelayMs(indexAbsoluteFailureCountOf(lastFailed) + 1);
  const elapsed = now.getTime() - finishedTimeMs(lastFailed);
  return delay < elapsed ? 0 : delay - elapsed;
}

/**
 * getPodCreationInfoForIndependentIndexes: the indexes whose backoff has passed; if none has, no index and the
 * shortest wait (ms).
 */
export function indexesReadyNow(
  indexes: readonly number[],
  delayed: ReadonlyMap<number, Pod>,
  now: Date,
): { indexes: number[]; remainingMs: number } {
  const ready: number[] = [];
  let shortest: number | undefined;
  for (const ix of indexes) {
    const remaining = remainingIndexBackoffMs(delayed.get(ix), now);
    if (remaining === 0) ready.push(ix);
    else if (shortest === undefined || remaining < shortest) shortest = remaining;
  }
  return ready.length > 0 ? { indexes: ready, remainingMs: 0 } : { indexes: [], remainingMs: shortest ?? 0 };
}
