// The Job planner (syncJob of kube-controller-manager 1.37's job-controller), pure: what was observed and `now`
// in, actions out. Order of a pass:
//   gone Job → remove the tracking finalizer from pods that still name it (upstream's orphan-pod worker), and so
//   for a Job's terminating pods that name a Job of its name under another uid (it was deleted and created again);
//   managed by another controller → nothing; finished → remove finalizers left behind, nothing else;
//   unknown completion mode → a Warning event; adoption/release → only that, then look again;
//   then the sync: counts (Ignore'd failures left out), startTime, for Indexed Jobs the succeeded and (with
//   backoffLimitPerIndex, per-index.ts) failed indexes, the finished decision (finish.ts: existing conditions,
//   podFailurePolicy, backoffLimit, activeDeadlineSeconds, failed indexes, successPolicy), delete every active
//   pod when finishing, else manageJob and the Suspended condition; then pod tracking (tracking.ts) and, once
//   nothing is uncounted and nothing terminates, the terminal condition. One status write at the end, when
//   anything differs from what was observed. A malformed rule-names annotation (rule-names.ts) adds a Warning.
import { isDeepStrictEqual } from 'node:util';
import type { Pod } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { controllerRefOf, isControlledBy } from '../../kube/meta/controller-ref.js';
import { EventType, type EventSpec } from '../../kube/events/types.js';
import { canAdopt } from '../common/claim.js';
import { isJobFinished } from '../common/job-api.js';
import { wireTime } from '../common/wire-time.js';
import type { PlanResult } from '../controller.js';
import { isPodActive, isPodReady, isPodTerminating } from '../pod-utils/pod-state.js';
import { backoffRecordOf } from './backoff.js';
import { ensureCondition, newCondition } from './conditions.js';
import { jobEvent } from './events.js';
import { isFailureCounted } from './failure-policy.js';
import { decideFinished, enactFinished, trueCondition } from './finish.js';
import { parseIntervals, withIndexes, totalOf, type Interval } from './intervals.js';
import {
  claimJobPods,
  completionIndexOf,
  completionsOf,
  hasBackoffLimitPerIndex,
  hasTrackingFinalizer,
  hasValidIndex,
  isIndexedJob,
  isPodFailed,
  isPodSucceeded,
  isSuspended,
  jobClaimActions,
  removeFinalizerAction,
} from './job-pods.js';
import { deleteAction, manageJob } from './manage.js';
import { failedIndexesOf, podsWithDelayedDeletion } from './per-index.js';
import { invalidRuleNamesMessage, ruleNamesOf } from './rule-names.js';
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
  const result = planExistingJob(o, job, now);
  // Apart from the Job's own sync, as upstream's orphan-pod worker: a replaced Job's pods lose the finalizer.
  const replaced = (o.replacedJobPods ?? []).map(removeFinalizerAction);
  return replaced.length === 0 ? result : { ...result, actions: [...replaced, ...result.actions] };
}

function planExistingJob(o: ObservedJob, job: Job, now: Date): PlanResult {
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
  const claim = claimJobPods(job, o.pods);
  if (claim.adopt.length > 0 && !canAdopt(job, o.adoptionRecheck)) return { actions: [], requeueAfter: 0 };
  const claims = jobClaimActions(job, claim);
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

function syncJob(job: Job, pods: readonly Pod[], now: Date): PlanResult {
  const status: JobStatus = structuredClone(job.status ?? {});
  const indexed = isIndexedJob(job);
  const uncounted = uncountedOf(job);
  const active = pods.filter(isPodActive);
  let terminating = pods.filter(isPodTerminating).length;
  let ready = active.filter(isPodReady).length;
  const fresh = (p: Pod, set: ReadonlySet<string>) =>
    hasTrackingFinalizer(p) && !set.has(p.metadata?.uid ?? '') && (!indexed || hasValidIndex(job, p));
  const newSucceeded = pods.filter((p) => fresh(p, uncounted.succeeded) && isPodSucceeded(p)).length;
  const newFailed = pods.filter((p) => fresh(p, uncounted.failed) && isPodFailed(p, job) && isFailureCounted(job, p));
  let succeeded = (status.succeeded ?? 0) + newSucceeded + uncounted.succeeded.size;
  const failed = (status.failed ?? 0) + newFailed.length + uncounted.failed.size;

  if (status.startTime === undefined && !isSuspended(job)) status.startTime = wireTime(now);
  const requeues: number[] = [];
  const recorded: EventSpec[] = [];
  const ruleNames = ruleNamesOf(job);
  if (ruleNames.kind === 'invalid') {
    const message = invalidRuleNamesMessage(ruleNames.problem);
    recorded.push(jobEvent(job, EventType.Warning, Reason.InvalidPodFailurePolicyRuleNames, message));
  }

  // Upstream removes every finalizer in the sync that writes FailureTarget / SuccessCriteriaMet; here a later
  // pass does (tracking.ts). In that pass the pods the finishing deleted must count as upstream saw them, before
  // their deletion: a pod being deleted is not failed, nor does it fail its index.
  const afterInterim = !!(trueCondition(job, 'FailureTarget') || trueCondition(job, 'SuccessCriteriaMet'));
  let prevSucceededIndexes: Interval[] = [];
  let succeededIndexes: Interval[] = [];
  let failedIndexes: Interval[] | undefined;
  let delayed: ReadonlyMap<number, Pod> = new Map();
  if (indexed) {
    prevSucceededIndexes = parseIntervals(status.completedIndexes, completionsOf(job));
    const done = pods.filter((p) => isPodSucceeded(p) && hasValidIndex(job, p) && hasTrackingFinalizer(p));
    succeededIndexes = withIndexes(prevSucceededIndexes, done.map(completionIndexOf));
    succeeded = totalOf(succeededIndexes);
    if (hasBackoffLimitPerIndex(job)) {
      failedIndexes = failedIndexesOf(job, pods, afterInterim);
      delayed = podsWithDelayedDeletion(job, pods, active, succeededIndexes, failedIndexes);
    }
  }
  const decision = decideFinished({
    job,
    pods,
    failed,
    status,
    ruleNames,
    now,
    ...(indexed && { succeededIndexes }),
    ...(failedIndexes !== undefined && { failedIndexes }),
  });
  let finished: JobCondition | undefined = decision.finished;
  if (decision.requeueAfter !== undefined) requeues.push(decision.requeueAfter);

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
        ...(failedIndexes !== undefined && { failedIndexes }),
        delayed,
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
    afterInterim,
    finishing: finished !== undefined,
    failing: finished?.type === 'Failed',
    prevSucceededIndexes,
    succeededIndexes,
    ...(failedIndexes !== undefined && { failedIndexes }),
    delayed,
    interimAdded,
  });
  actions.push(...tracking.actions);
  if (!indexed) delete status.completedIndexes;
  status.uncountedTerminatedPods ??= {};

  if (finished !== undefined && !tracking.reachedMaxUncounted && hasNoUncounted(status) && terminating === 0) {
    recorded.push(...enactFinished(job, status, finished, now));
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
