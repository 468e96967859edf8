// The Job planner (syncJob of kube-controller-manager 1.37's job-controller), pure: what was observed and `now`
// in, actions out. Order of a pass:
//   gone Job → remove the tracking finalizer from pods that still name it (upstream's orphan-pod worker);
//   managed by another controller → nothing; finished → remove finalizers left behind, nothing else;
//   unknown completion mode → a Warning event; adoption/release → only that, then look again;
//   then the sync: counts, startTime, the finished decision (existing SuccessCriteriaMet / FailureTarget, then
//   backoffLimit, then activeDeadlineSeconds), delete every active pod when finishing, else manageJob and the
//   Suspended condition; then pod tracking (tracking.ts) and, once nothing is uncounted and nothing terminates,
//   the terminal condition. One status write at the end, when anything differs from what was observed.
import { isDeepStrictEqual } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import type { Action } from '../../kube/actions.js';
import { controllerRefOf, isControlledBy } from '../../kube/meta/controller-ref.js';
import { EventType, type EventSpec } from '../../kube/events/types.js';
import type { PlanResult } from '../controller.js';
import { isPodActive, isPodReady, isPodTerminating } from '../pod-utils/pod-state.js';
import { timeMs } from '../pod-utils/time.js';
import { backoffRecordOf } from './backoff.js';
import { canAdopt, claimActions, claimPods, removeFinalizerAction } from './claim.js';
import { ensureCondition, findCondition, isJobFinished, newCondition, wireTime } from './conditions.js';
import { jobEvent } from './events.js';
import { parseIntervals, withIndexes, totalOf, type Interval } from './intervals.js';
import {
  backoffLimitOf,
  completionIndexOf,
  completionsOf,
  hasTrackingFinalizer,
  hasValidIndex,
  isIndexedJob,
  isPodFailed,
  isPodSucceeded,
  isSuspended,
} from './job-pods.js';
import { deleteAction, manageJob } from './manage.js';
import { hasNoUncounted, trackPods, uncountedOf } from './tracking.js';
import {
  BUILT_IN_MANAGER,
  CompletionMode,
  ConditionReason,
  FLEETQ_MANAGER,
  JOB_KIND,
  Reason,
  type Job,
  type JobCondition,
  type JobStatus,
  type ObservedJob,
} from './types.js';

export function planJob(o: ObservedJob, now: Date): PlanResult {
  const job = o.job;
  if (job === null) return { actions: orphanFinalizerRemovals(o) };
  if (isManagedElsewhere(job)) return { actions: [] };
  const uid = job.metadata.uid ?? '';
  if (isJobFinished(job)) {
    const left = o.pods.filter((p) => isControlledBy(p, uid) && hasTrackingFinalizer(p));
    return { actions: left.map(removeFinalizerAction) };
  }
  const mode = job.spec.completionMode;
  if (mode !== undefined && mode !== CompletionMode.NonIndexed && mode !== CompletionMode.Indexed) {
    const message = 'Skipped Job sync because completion mode is unknown';
    return {
      actions: [{ type: 'event', event: jobEvent(job, EventType.Warning, Reason.UnknownCompletionMode, message) }],
    };
  }
  const claim = claimPods(job, o.pods);
  if (claim.adopt.length > 0 && !canAdopt(job, o.adoptionRecheck)) return { actions: [], requeueAfter: 0 };
  const claims = claimActions(job, claim);
  if (claims.length > 0) return { actions: claims, requeueAfter: 0 };
  return syncJob(job, claim.claimed, now);
}

/** spec.managedBy names neither the built-in controller nor fleetq. */
export function isManagedElsewhere(job: Job): boolean {
  const by = job.spec.managedBy;
  return by !== undefined && by !== BUILT_IN_MANAGER && by !== FLEETQ_MANAGER;
}

/** Pods whose controller reference names a Job of this name that is gone: the tracking finalizer goes. */
function orphanFinalizerRemovals(o: ObservedJob): Action[] {
  return o.pods
    .filter((p) => {
      const ref = controllerRefOf(p);
      return ref?.kind === JOB_KIND && ref.name === o.name && hasTrackingFinalizer(p);
    })
    .map(removeFinalizerAction);
}

function syncJob(job: Job, pods: readonly V1Pod[], now: Date): PlanResult {
  const status: JobStatus = structuredClone(job.status ?? {});
  const indexed = isIndexedJob(job);
  const uncounted = uncountedOf(job);
  const active = pods.filter(isPodActive);
  let terminating = pods.filter(isPodTerminating).length;
  let ready = active.filter(isPodReady).length;
  const fresh = (p: V1Pod, set: ReadonlySet<string>) =>
    hasTrackingFinalizer(p) && !set.has(p.metadata?.uid ?? '') && (!indexed || hasValidIndex(job, p));
  const newSucceeded = pods.filter((p) => fresh(p, uncounted.succeeded) && isPodSucceeded(p)).length;
  const newFailed = pods.filter((p) => fresh(p, uncounted.failed) && isPodFailed(p, job)).length;
  let succeeded = (status.succeeded ?? 0) + newSucceeded + uncounted.succeeded.size;
  const failed = (status.failed ?? 0) + newFailed + uncounted.failed.size;

  if (status.startTime === undefined && !isSuspended(job)) status.startTime = wireTime(now);
  const requeues: number[] = [];
  const recorded: EventSpec[] = [];

  // The finished decision, in upstream's order.
  let finished: JobCondition | undefined = trueCondition(job, 'SuccessCriteriaMet');
  if (finished === undefined) {
    const target = trueCondition(job, 'FailureTarget');
    if (target) finished = newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', now);
  }
  if (finished === undefined) {
    if (failed > backoffLimitOf(job) || pastBackoffLimitOnFailure(job, pods)) {
      finished = failureTarget(
        ConditionReason.BackoffLimitExceeded,
        'Job has reached the specified backoff limit',
        now,
      );
    } else if (pastActiveDeadline(job, status, now)) {
      finished = failureTarget(ConditionReason.DeadlineExceeded, 'Job was active longer than specified deadline', now);
    } else if (job.spec.activeDeadlineSeconds !== undefined && !isSuspended(job)) {
      requeues.push(
        job.spec.activeDeadlineSeconds * 1000 - (now.getTime() - (timeMs(status.startTime) ?? now.getTime())),
      );
    }
  }
  let prevSucceededIndexes: Interval[] = [];
  let succeededIndexes: Interval[] = [];
  if (indexed) {
    prevSucceededIndexes = parseIntervals(status.completedIndexes, completionsOf(job));
    const done = pods.filter((p) => isPodSucceeded(p) && hasValidIndex(job, p) && hasTrackingFinalizer(p));
    succeededIndexes = withIndexes(prevSucceededIndexes, done.map(completionIndexOf));
    succeeded = totalOf(succeededIndexes);
  }

  const actions: Action[] = [];
  let activeCount = active.length;
  if (finished !== undefined) {
    // Finishing: delete every active pod, keeping its finalizer (tracking counts it).
    actions.push(...active.map((p) => deleteAction(job, p)));
    activeCount = 0;
    terminating += active.length;
    ready -= active.filter(isPodReady).length;
  } else {
    let manageCalled = false;
    if (!job.metadata.deletionTimestamp) {
      const m = manageJob({
        job,
        pods,
        active,
        succeeded,
        succeededIndexes,
        terminating,
        now,
        backoff: backoffRecordOf(job, pods),
      });
      actions.push(...m.actions);
      activeCount = m.active;
      terminating = m.terminating;
      ready -= m.readyDeleted;
      if (m.requeueAfter !== undefined) requeues.push(m.requeueAfter);
      manageCalled = true;
    }
    const complete =
      job.spec.completions === undefined
        ? succeeded > 0 && activeCount === 0
        : succeeded >= job.spec.completions && activeCount === 0;
    if (complete) {
      finished = newCondition(
        'SuccessCriteriaMet',
        'True',
        ConditionReason.CompletionsReached,
        'Reached expected number of succeeded pods',
        now,
      );
    } else if (manageCalled) {
      suspendCondition(job, status, now, recorded);
    }
  }
  status.active = activeCount;
  status.ready = ready;
  status.terminating = terminating;

  // The interim condition goes in first; the terminal one is what it becomes.
  let interimAdded = false;
  if (finished?.type === 'FailureTarget') {
    status.conditions = [...(status.conditions ?? []), finished];
    interimAdded = true;
    finished = newCondition('Failed', 'True', finished.reason ?? '', finished.message ?? '', now);
  } else if (finished?.type === 'SuccessCriteriaMet') {
    if (trueCondition(job, 'SuccessCriteriaMet') === undefined) {
      status.conditions = [...(status.conditions ?? []), finished];
      interimAdded = true;
    }
    finished = newCondition('Complete', 'True', finished.reason ?? '', finished.message ?? '', now);
  }
  const tracking = trackPods({
    job,
    pods,
    status,
    finishing: finished !== undefined,
    failing: finished?.type === 'Failed',
    prevSucceededIndexes,
    succeededIndexes,
    interimAdded,
  });
  actions.push(...tracking.actions);
  if (!indexed) delete status.completedIndexes;
  status.uncountedTerminatedPods ??= {};

  if (finished !== undefined && !tracking.reachedMaxUncounted && hasNoUncounted(status) && terminating === 0) {
    status.conditions = ensureCondition(
      status.conditions ?? [],
      finished.type,
      'True',
      finished.reason ?? '',
      finished.message ?? '',
      now,
    ).conditions;
    if (finished.type === 'Complete') {
      status.completionTime = findCondition(status.conditions, 'Complete')?.lastTransitionTime;
      if (job.spec.completions !== undefined && (status.succeeded ?? 0) > job.spec.completions) {
        recorded.push(
          jobEvent(
            job,
            EventType.Warning,
            Reason.TooManySucceededPods,
            'Too many succeeded pods running after completion count reached',
          ),
        );
      }
      recorded.push(jobEvent(job, EventType.Normal, Reason.Completed, 'Job completed'));
    } else {
      recorded.push(jobEvent(job, EventType.Warning, finished.reason ?? '', finished.message ?? ''));
    }
  }
  if (tracking.more) requeues.push(0);

  if (!isDeepStrictEqual(comparable(job.status), comparable(status))) {
    const object: Job = { ...job, status };
    actions.push({ type: 'updateStatus', object, ...(recorded.length > 0 && { events: { onSuccess: recorded } }) });
  } else {
    actions.push(...recorded.map((event): Action => ({ type: 'event', event })));
  }
  const requeueAfter = requeues.length > 0 ? Math.max(0, Math.min(...requeues)) : undefined;
  return requeueAfter === undefined ? { actions } : { actions, requeueAfter };
}

function trueCondition(job: Job, type: string): JobCondition | undefined {
  const c = findCondition(job.status?.conditions, type);
  return c?.status === 'True' ? c : undefined;
}

function failureTarget(reason: string, message: string, now: Date): JobCondition {
  return newCondition('FailureTarget', 'True', reason, message, now);
}

/** The Suspended condition after manageJob (a suspend drops startTime, a resume restarts it). */
function suspendCondition(job: Job, status: JobStatus, now: Date, recorded: EventSpec[]): void {
  const suspended = isSuspended(job);
  const next = suspended
    ? ensureCondition(status.conditions ?? [], 'Suspended', 'True', ConditionReason.JobSuspended, 'Job suspended', now)
    : ensureCondition(status.conditions ?? [], 'Suspended', 'False', ConditionReason.JobResumed, 'Job resumed', now);
  if (!next.changed) return;
  status.conditions = next.conditions;
  if (suspended) {
    recorded.push(jobEvent(job, EventType.Normal, Reason.Suspended, 'Job suspended'));
    delete status.startTime; // MutableSchedulingDirectivesForSuspendedJobs (beta, on in 1.37)
  } else {
    recorded.push(jobEvent(job, EventType.Normal, Reason.Resumed, 'Job resumed'));
    status.startTime = wireTime(now);
  }
}

/** pastBackoffLimitOnFailure: restartPolicy OnFailure, container restarts of running and pending pods. */
function pastBackoffLimitOnFailure(job: Job, pods: readonly V1Pod[]): boolean {
  if (job.spec.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    if (p.status?.phase !== 'Running' && p.status?.phase !== 'Pending') continue;
    for (const s of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) {
      restarts += s.restartCount ?? 0;
    }
  }
  const limit = backoffLimitOf(job);
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

function pastActiveDeadline(job: Job, status: JobStatus, now: Date): boolean {
  const start = timeMs(status.startTime);
  if (job.spec.activeDeadlineSeconds === undefined || start === undefined || isSuspended(job)) return false;
  return now.getTime() - start >= job.spec.activeDeadlineSeconds * 1000;
}

/** Omitted counts are 0 on the wire; ready and terminating are pointers (unset and 0 differ). */
function comparable(s: JobStatus | undefined) {
  const u = s?.uncountedTerminatedPods;
  return {
    ...s,
    active: s?.active ?? 0,
    succeeded: s?.succeeded ?? 0,
    failed: s?.failed ?? 0,
    completedIndexes: s?.completedIndexes ?? '',
    conditions: s?.conditions ?? [],
    uncountedTerminatedPods: { succeeded: u?.succeeded ?? [], failed: u?.failed ?? [] },
  };
}
