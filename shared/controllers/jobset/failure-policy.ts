// The JobSet failure policy (failure_policy.go, v0.12.0), run when a Job of the current attempt failed:
//   no failurePolicy          → Failed, reason FailedJobs, "jobset failed due to one or more job failures
//                               (first failed job: <job>)"
//   rules, in order           → the first rule that some failed Job matches wins (onJobFailureReasons: the Job's
//                               Failed condition reason; onJobFailureMessagePatterns: RE2 on its message, re2.ts;
//                               targetReplicatedJobs: its replicatedjob-name label); of the Jobs it matches, the
//                               one that failed first (Failed condition's lastTransitionTime) is named
//   no rule matches           → RestartJobSet, naming the Job that failed first
//   FailJobSet                → Failed, FailJobSetFailurePolicyAction
//   RestartJobSet             → at maxRestarts (restartsCountTowardsMax, plus every jobRestartsCountTowardsMax
//                               with RestartJob): Failed, ReachedMaxRestarts; else restarts+1,
//                               restartsCountTowardsMax+1, RestartingJobSet True (FailurePolicy_<rule> or
//                               DefaultFailurePolicy), event RestartJobSetFailurePolicyAction
//   RestartJobSetAndIgnoreMaxRestarts → restarts+1 only, never fails
//   RestartJob(AndIgnoreMaxRestarts)  → (RestartJob gate) jobRestarts[index]+1 of the failed Job's
//                               replicatedJob (and jobRestartsCountTowardsMax[index]+1, or Failed at maxRestarts)
// Messages end with " (first failed job: <job>)". The Jobs of the older attempt are deleted by a later pass.
import { ReconcileError } from '../../kube/errors.js';
import { EventType } from '../../kube/events/types.js';
import { timeMs } from '../common/wire-time.js';
import { atoi, jobRestartsCountTowardsMaxOf, jobRestartsOf, type ChildJobs } from './child-jobs.js';
import { JOB_INDEX_KEY, REPLICATED_JOB_NAME_KEY } from './labels.js';
import { re2Matches } from './re2.js';
import { jobSetEvent, setCondition, setFailed, type Pass } from './status.js';
import {
  ConditionType,
  FailurePolicyAction,
  failurePolicyRuleReason,
  Message,
  Reason,
  type FailurePolicyRule,
  type Job,
  type JobSet,
} from './types.js';

type JobCondition = NonNullable<NonNullable<Job['status']>['conditions']>[number];

/** findJobFailureCondition: the Failed=True condition. */
export function failureCondition(job: Job): JobCondition | undefined {
  return (job.status?.conditions ?? []).find((c) => c.type === 'Failed' && c.status === 'True');
}

/** The failure time; a missing one is Go's zero time, before every other. */
function failureTime(c: JobCondition): number {
  return timeMs(c.lastTransitionTime) ?? Number.NEGATIVE_INFINITY;
}

/** findFirstFailedJob: the Job whose Failed condition is earliest (the first of equals). */
export function firstFailedJob(failed: readonly Job[]): Job | undefined {
  let first: Job | undefined;
  let at = 0;
  for (const job of failed) {
    const c = failureCondition(job);
    if (c === undefined) continue;
    const t = failureTime(c);
    if (first === undefined || t < at) {
      first = job;
      at = t;
    }
  }
  return first;
}

/** messageWithFirstFailedJob. */
export function withFirstFailedJob(message: string, jobName: string): string {
  return `${message} (first failed job: ${jobName})`;
}

/** ruleIsApplicable. A pattern that is not valid RE2 (re2.ts) is skipped, as upstream logs and skips it. */
export function isRuleApplicable(rule: FailurePolicyRule, job: Job, reason: string, message: string): boolean {
  const reasons = rule.onJobFailureReasons ?? [];
  if (reasons.length > 0 && !reasons.includes(reason)) return false;
  const patterns = rule.onJobFailureMessagePatterns ?? [];
  if (patterns.length > 0 && !patterns.some((p) => re2Matches(p, message) === true)) return false;
  const parent = job.metadata.labels?.[REPLICATED_JOB_NAME_KEY];
  if (parent === undefined || parent === '') return false;
  const targets = rule.targetReplicatedJobs ?? [];
  return targets.length === 0 || targets.includes(parent);
}

/** findFirstFailedPolicyRuleAndJob: the first rule some failed Job matches, and the earliest of its Jobs. */
export function firstMatchingRule(
  rules: readonly FailurePolicyRule[],
  failed: readonly Job[],
): { rule: FailurePolicyRule; job: Job } | undefined {
  for (const rule of rules) {
    let matched: Job | undefined;
    let at = 0;
    for (const job of failed) {
      const c = failureCondition(job);
      if (c === undefined) continue;
      const t = failureTime(c);
      if (isRuleApplicable(rule, job, c.reason ?? '', c.message ?? '') && (matched === undefined || t < at)) {
        matched = job;
        at = t;
      }
    }
    if (matched !== undefined) return { rule, job: matched };
  }
  return undefined;
}

/** executeFailurePolicy. */
export function executeFailurePolicy(pass: Pass, owned: ChildJobs): void {
  const policy = pass.js.spec.failurePolicy;
  if (policy === undefined || policy === null) {
    const first = firstFailedJob(owned.failed);
    setFailed(pass, Reason.FailedJobs, withFirstFailedJob(Message.FailedJobs, first?.metadata.name ?? ''));
    return;
  }
  const match = firstMatchingRule(policy.rules ?? [], owned.failed);
  const job = match?.job ?? firstFailedJob(owned.failed);
  applyFailurePolicyAction(pass, match?.rule.action ?? FailurePolicyAction.RestartJobSet, job, match?.rule);
}

/** applyFailurePolicyRuleAction: an unknown action, or a RestartJob one with the gate off, fails the pass. */
export function applyFailurePolicyAction(
  pass: Pass,
  action: string,
  job: Job | undefined,
  rule: FailurePolicyRule | undefined,
): void {
  const jobName = job?.metadata.name ?? '';
  const max = pass.js.spec.failurePolicy?.maxRestarts ?? 0;
  const status = (pass.js.status ??= {});
  const reachedMax = (): void =>
    setFailed(pass, Reason.ReachedMaxRestarts, withFirstFailedJob(Message.ReachedMaxRestarts, jobName));
  switch (action) {
    case FailurePolicyAction.FailJobSet:
      setFailed(pass, Reason.FailJobSetAction, withFirstFailedJob(Message.FailJobSetAction, jobName));
      return;
    case FailurePolicyAction.RestartJobSet:
      if (
        (pass.options.restartJob === true && totalRestartsCountTowardsMax(pass.js) >= max) ||
        (status.restartsCountTowardsMax ?? 0) >= max
      ) {
        reachedMax();
        return;
      }
      recreateAll(
        pass,
        rule,
        true,
        Reason.RestartJobSetAction,
        withFirstFailedJob(Message.RestartJobSetAction, jobName),
      );
      return;
    case FailurePolicyAction.RestartJobSetAndIgnoreMaxRestarts:
      recreateAll(
        pass,
        rule,
        false,
        Reason.RestartJobSetAndIgnoreMaxRestartsAction,
        withFirstFailedJob(Message.RestartJobSetAndIgnoreMaxRestartsAction, jobName),
      );
      return;
    case FailurePolicyAction.RestartJob:
      requireRestartJobGate(pass, action);
      if (totalRestartsCountTowardsMax(pass.js) >= max) {
        reachedMax();
        return;
      }
      recreateJob(pass, job, true, Reason.RestartJobAction, withFirstFailedJob(Message.RestartJobAction, jobName));
      return;
    case FailurePolicyAction.RestartJobAndIgnoreMaxRestarts:
      requireRestartJobGate(pass, action);
      recreateJob(
        pass,
        job,
        false,
        Reason.RestartJobAndIgnoreMaxRestartsAction,
        withFirstFailedJob(Message.RestartJobAndIgnoreMaxRestartsAction, jobName),
      );
      return;
    default:
      throw new ReconcileError(
        'PlanFailed',
        `failed to find a corresponding action for the FailurePolicyRuleAction ${action}`,
      );
  }
}

function requireRestartJobGate(pass: Pass, action: string): void {
  if (pass.options.restartJob !== true) {
    throw new ReconcileError(
      'PlanFailed',
      `${action} failure policy action cannot be used when the feature gate RestartJob is disabled`,
    );
  }
}

/** failurePolicyRecreateAll: a new attempt of the whole JobSet. */
function recreateAll(
  pass: Pass,
  rule: FailurePolicyRule | undefined,
  countsTowardsMax: boolean,
  eventReason: string,
  message: string,
): void {
  const status = (pass.js.status ??= {});
  status.restarts = (status.restarts ?? 0) + 1;
  if (countsTowardsMax) status.restartsCountTowardsMax = (status.restartsCountTowardsMax ?? 0) + 1;
  pass.shouldUpdate = true;
  const reason = rule !== undefined ? failurePolicyRuleReason(rule.name) : Reason.RestartingDefaultFailurePolicy;
  setCondition(pass, {
    eventType: EventType.Warning,
    condition: { type: ConditionType.Restarting, status: 'True', reason, message },
  });
  pass.statusEvents.push(jobSetEvent(pass.js, EventType.Warning, eventReason, message));
}

/** failurePolicyRecreateJob: a new attempt of the failed Job alone (RestartJob gate). */
function recreateJob(
  pass: Pass,
  job: Job | undefined,
  countsTowardsMax: boolean,
  eventReason: string,
  message: string,
): void {
  const name = job?.metadata.name ?? '';
  const labels = job?.metadata.labels ?? {};
  const rjobName = labels[REPLICATED_JOB_NAME_KEY];
  if (rjobName === undefined) throw failed(`failed job ${name} missing ${REPLICATED_JOB_NAME_KEY} label`);
  const indexLabel = labels[JOB_INDEX_KEY];
  if (indexLabel === undefined) throw failed(`failed job ${name} missing ${JOB_INDEX_KEY} label`);
  const index = atoi(indexLabel);
  if (index === undefined) throw failed(`failed job ${name} has invalid ${JOB_INDEX_KEY} label: ${indexLabel}`);
  const restarts = jobRestartsOf(pass.js, rjobName);
  if (index < 0 || index >= restarts.length) {
    throw failed(`failed job ${name} has index ${index} out of bounds for replicated job ${rjobName}`);
  }
  restarts[index] = (restarts[index] ?? 0) + 1;
  const entry = (pass.js.status?.replicatedJobsStatus ?? []).find((s) => s.name === rjobName);
  if (entry) entry.jobRestarts = restarts;
  if (countsTowardsMax) {
    const counted = jobRestartsCountTowardsMaxOf(pass.js, rjobName);
    if (index >= counted.length) {
      throw failed(`failed job ${name} has index ${index} out of bounds for replicated job ${rjobName}`);
    }
    counted[index] = (counted[index] ?? 0) + 1;
    if (entry) entry.jobRestartsCountTowardsMax = counted;
  }
  pass.shouldUpdate = true;
  pass.statusEvents.push(jobSetEvent(pass.js, EventType.Warning, eventReason, message));
}

function failed(message: string): ReconcileError {
  return new ReconcileError('PlanFailed', message);
}

/** totalRestartsCountTowardsMax: the JobSet's, plus every replicatedJob's per-Job counts. */
export function totalRestartsCountTowardsMax(js: JobSet): number {
  let total = js.status?.restartsCountTowardsMax ?? 0;
  for (const s of js.status?.replicatedJobsStatus ?? []) {
    for (const n of s.jobRestartsCountTowardsMax ?? []) total += n;
  }
  return total;
}
