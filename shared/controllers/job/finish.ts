// Whether the Job is finishing, and how (syncJob's "end state" evaluation, kube-controller-manager 1.37), in
// upstream's order, the first that applies winning:
//   1. a SuccessCriteriaMet condition already written stands (podFailurePolicy is then not looked at);
//   2. a FailureTarget already written becomes Failed with its reason and message;
//   3. a failed pod matching a FailJob rule of podFailurePolicy: FailureTarget, reason PodFailurePolicy (or, with
//      valid rule names, PodFailurePolicy_<name>: rule-names.ts);
//   4. failed > backoffLimit (or, restartPolicy OnFailure, too many container restarts): BackoffLimitExceeded;
//   5. activeDeadlineSeconds passed: DeadlineExceeded (else look again when it will have);
//   6. Indexed with backoffLimitPerIndex: more failed indexes than maxFailedIndexes: MaxFailedIndexesExceeded;
//      else every index succeeded or failed with at least one failed: FailedIndexes;
//   7. Indexed with a successPolicy that holds: SuccessCriteriaMet, reason SuccessPolicy.
// Completion by count (CompletionsReached) is decided after manageJob, in plan.ts. And once the sync is done,
// enactFinished writes the terminal condition (Complete / Failed) and its events, when nothing is left uncounted
// or terminating.
import type { Pod } from '../../kube/api/objects.js';
import { EventType, type EventSpec } from '../../kube/events/types.js';
import { timeMs } from '../common/wire-time.js';
import { ensureCondition, findCondition, newCondition } from './conditions.js';
import { jobEvent } from './events.js';
import { failJobMatch } from './failure-policy.js';
import { totalOf, type Intervals } from './intervals.js';
import { backoffLimitOf, completionsOf, hasBackoffLimitPerIndex, isSuspended } from './job-pods.js';
import { failJobReason, type RuleNames } from './rule-names.js';
import { matchSuccessPolicy } from './success-policy.js';
import { ConditionReason, Reason, type Job, type JobCondition, type JobStatus } from './types.js';

export type FinishInput = {
  readonly job: Job;
  readonly pods: readonly Pod[];
  /** Failures counted so far (status, uncounted, new; Ignore'd ones left out). */
  readonly failed: number;
  readonly status: JobStatus;
  readonly ruleNames: RuleNames;
  readonly now: Date;
  /** Indexed Jobs: succeeded indexes (with the new ones) and, with backoffLimitPerIndex, failed indexes. */
  readonly succeededIndexes?: Intervals;
  readonly failedIndexes?: Intervals;
};

export type FinishDecision = {
  /** SuccessCriteriaMet or FailureTarget to add, or Failed when a FailureTarget was already written. */
  readonly finished?: JobCondition;
  /** activeDeadlineSeconds not passed yet: look again then (ms). */
  readonly requeueAfter?: number;
};

export function decideFinished(f: FinishInput): FinishDecision {
  const { job, now } = f;
  const met = trueCondition(job, 'SuccessCriteriaMet');
  if (met) return { finished: met };
  const target = trueCondition(job, 'FailureTarget');
  if (target) return { finished: newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', now) };
  const failJob = failJobMatch(job, f.pods);
  if (failJob?.failJobMessage !== undefined) {
    const index = failJob.ruleIndex ?? 0;
    const reason = failJobReason(f.ruleNames, index, job.spec.podFailurePolicy?.rules?.[index]?.name);
    return { finished: failureTarget(reason, failJob.failJobMessage, now) };
  }
  let requeueAfter: number | undefined;
  if (f.failed > backoffLimitOf(job) || pastBackoffLimitOnFailure(job, f.pods)) {
    return {
      finished: failureTarget(ConditionReason.BackoffLimitExceeded, 'Job has reached the specified backoff limit', now),
    };
  }
  if (pastActiveDeadline(job, f.status, now)) {
    return {
      finished: failureTarget(ConditionReason.DeadlineExceeded, 'Job was active longer than specified deadline', now),
    };
  }
  if (job.spec.activeDeadlineSeconds !== undefined && !isSuspended(job)) {
    const start = timeMs(f.status.startTime) ?? now.getTime();
    requeueAfter = job.spec.activeDeadlineSeconds * 1000 - (now.getTime() - start);
  }
  const decided = (finished: JobCondition) => ({ finished, ...(requeueAfter !== undefined && { requeueAfter }) });
  const succeeded = f.succeededIndexes;
  if (succeeded === undefined) return requeueAfter === undefined ? {} : { requeueAfter };
  if (hasBackoffLimitPerIndex(job) && f.failedIndexes !== undefined) {
    const failedCount = totalOf(f.failedIndexes);
    if (job.spec.maxFailedIndexes !== undefined && failedCount > job.spec.maxFailedIndexes) {
      return decided(
        failureTarget(
          ConditionReason.MaxFailedIndexesExceeded,
          'Job has exceeded the specified maximal number of failed indexes',
          now,
        ),
      );
    }
    if (failedCount > 0 && failedCount + totalOf(succeeded) >= completionsOf(job)) {
      return decided(failureTarget(ConditionReason.FailedIndexes, 'Job has failed indexes', now));
    }
  }
  const message = matchSuccessPolicy(job.spec.successPolicy, completionsOf(job), succeeded);
  if (message !== undefined) {
    return decided(newCondition('SuccessCriteriaMet', 'True', ConditionReason.SuccessPolicy, message, now));
  }
  return requeueAfter === undefined ? {} : { requeueAfter };
}

/**
 * enactJobFinished + recordJobFinished: the terminal condition (and completionTime for Complete) into `status`,
 * and the events that go out once it is written.
 */
export function enactFinished(job: Job, status: JobStatus, finished: JobCondition, now: Date): EventSpec[] {
  status.conditions = ensureCondition(
    status.conditions ?? [],
    finished.type,
    'True',
    finished.reason ?? '',
    finished.message ?? '',
    now,
  ).conditions;
  if (finished.type !== 'Complete') {
    return [jobEvent(job, EventType.Warning, finished.reason ?? '', finished.message ?? '')];
  }
  status.completionTime = findCondition(status.conditions, 'Complete')?.lastTransitionTime;
  const events: EventSpec[] = [];
  if (job.spec.completions !== undefined && (status.succeeded ?? 0) > job.spec.completions) {
    events.push(
      jobEvent(
        job,
        EventType.Warning,
        Reason.TooManySucceededPods,
        'Too many succeeded pods running after completion count reached',
      ),
    );
  }
  events.push(jobEvent(job, EventType.Normal, Reason.Completed, 'Job completed'));
  return events;
}

export function trueCondition(job: Job, type: string): JobCondition | undefined {
  const c = findCondition(job.status?.conditions, type);
  return c?.status === 'True' ? c : undefined;
}

function failureTarget(reason: string, message: string, now: Date): JobCondition {
  return newCondition('FailureTarget', 'True', reason, message, now);
}

/** pastBackoffLimitOnFailure: restartPolicy OnFailure, container restarts of running and pending pods. */
function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[]): boolean {
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
