// The state one JobSet pass works on, and the status it computes (updateCondition, setCondition and the
// set*Condition helpers, calculateReplicatedJobStatuses, updateReplicatedJobsStatuses and allJobsReady of
// jobset_controller.go, v0.12.0). As upstream, the pass changes a copy of the JobSet's status in place and flags
// `shouldUpdate` when something changed; each condition it changes queues an event, recorded only once the one
// status write at the end succeeded.
import { isDeepStrictEqual } from 'node:util';
import type { Action } from '../../kube/actions.js';
import { EventType, type EventSpec, regardingObject, type InvolvedObject } from '../../kube/events/types.js';
import { jsonCopy } from '../common/json-copy.js';
import { wireTime } from '../common/wire-time.js';
import type { ChildJobs } from './child-jobs.js';
import { REPLICATED_JOB_NAME_KEY } from './labels.js';
import {
  ConditionType,
  JOBSET_API_VERSION,
  JOBSET_EVENT_SOURCE,
  JOBSET_KIND,
  Message,
  Reason,
  type Condition,
  type Job,
  type JobSet,
  type PlanOptions,
  type ReplicatedJobStatus,
} from './types.js';

/** One pass: the JobSet with its status as the pass changes it, the writes so far, and the events of the status. */
export type Pass = {
  readonly js: JobSet;
  readonly now: Date;
  readonly options: PlanOptions;
  shouldUpdate: boolean;
  readonly actions: Action[];
  /** Recorded after the status write succeeds (statusUpdateOpts.events). */
  readonly statusEvents: EventSpec[];
};

export function startPass(observed: JobSet, now: Date, options: PlanOptions): Pass {
  const js = jsonCopy(observed);
  // As Go decodes it: `restarts` has no omitempty, so upstream's status writes always carry it.
  js.status = { restarts: 0, ...js.status };
  return { js, now, options, shouldUpdate: false, actions: [], statusEvents: [] };
}

export function regardingJobSet(js: JobSet): InvolvedObject {
  return regardingObject(JOBSET_KIND, JOBSET_API_VERSION, js.metadata);
}

export function jobSetEvent(js: JobSet, type: EventType, reason: string, message: string): EventSpec {
  return { regarding: regardingJobSet(js), source: JOBSET_EVENT_SOURCE, type, reason, message };
}

type ConditionChange = { readonly eventType: EventType; readonly condition: Omit<Condition, 'lastTransitionTime'> };

/** StartupPolicyInProgress and StartupPolicyCompleted exclude each other. */
function exclusive(a: string, b: string): boolean {
  const { StartupPolicyInProgress: p, StartupPolicyCompleted: c } = ConditionType;
  return (a === p && b === c) || (a === c && b === p);
}

/**
 * updateCondition: a condition of the same type whose status changes is replaced (transition time now); one whose
 * reason or message changes is replaced keeping its transition time; a True condition excludes its opposite; a
 * new condition is added only when True. Returns whether anything changed.
 */
export function updateCondition(js: JobSet, change: ConditionChange, now: Date): boolean {
  const status = (js.status ??= {});
  const conditions = (status.conditions ??= []);
  const next: Condition = { ...change.condition, lastTransitionTime: wireTime(now) };
  let found = false;
  let changed = false;
  conditions.forEach((current, i) => {
    if (current.type === next.type) {
      if (current.status !== next.status) {
        conditions[i] = next;
        changed = true;
      } else if (current.reason !== next.reason || current.message !== next.message) {
        conditions[i] = { ...next, lastTransitionTime: current.lastTransitionTime ?? next.lastTransitionTime };
        changed = true;
      }
      found = true;
    } else if (exclusive(current.type, next.type) && current.status === 'True' && next.status === 'True') {
      conditions[i] = { ...current, status: 'False' };
      changed = true;
    }
  });
  if (!found && next.status === 'True') {
    conditions.push(next);
    changed = true;
  }
  if (conditions.length === 0) delete status.conditions;
  return changed;
}

/** setCondition: a changed condition flags the status write and queues its event. */
export function setCondition(pass: Pass, change: ConditionChange): void {
  if (!updateCondition(pass.js, change, pass.now)) return;
  pass.shouldUpdate = true;
  pass.statusEvents.push(jobSetEvent(pass.js, change.eventType, change.condition.reason, change.condition.message));
}

function condition(
  eventType: EventType,
  type: string,
  status: 'True' | 'False',
  reason: string,
  message: string,
): ConditionChange {
  return { eventType, condition: { type, status, reason, message } };
}

export function setRestartingConditionFalse(pass: Pass, reason: string, message: string): void {
  setCondition(pass, condition(EventType.Normal, ConditionType.Restarting, 'False', reason, message));
}

export function setRestartingConditionTrue(pass: Pass, reason: string, message: string): void {
  setCondition(pass, condition(EventType.Warning, ConditionType.Restarting, 'True', reason, message));
}

/** setJobSetCompletedCondition: Completed, RestartingJobSet False, terminalState Completed. */
export function setCompleted(pass: Pass): void {
  setCondition(
    pass,
    condition(EventType.Normal, ConditionType.Completed, 'True', Reason.AllJobsCompleted, Message.AllJobsCompleted),
  );
  setRestartingConditionFalse(pass, Reason.RestartingJobSetCompleted, Message.AllJobsCompleted);
  setTerminalState(pass, ConditionType.Completed);
}

/** setJobSetFailedCondition: Failed, RestartingJobSet False, terminalState Failed. */
export function setFailed(pass: Pass, reason: string, message: string): void {
  setCondition(pass, condition(EventType.Warning, ConditionType.Failed, 'True', reason, message));
  setRestartingConditionFalse(pass, Reason.RestartingJobSetFailed, Message.RestartingJobSetFailed);
  setTerminalState(pass, ConditionType.Failed);
}

/** Set beside the condition, whose change flags the write (upstream flags nothing of its own here). */
function setTerminalState(pass: Pass, state: string): void {
  (pass.js.status ??= {}).terminalState = state;
}

/** setJobSetSuspendedCondition. */
export function setSuspended(pass: Pass): void {
  setCondition(
    pass,
    condition(EventType.Normal, ConditionType.Suspended, 'True', Reason.SuspendedJobs, Message.Suspended),
  );
  setRestartingConditionFalse(pass, Reason.RestartingJobSetSuspended, Message.Suspended);
}

/** setJobSetResumedCondition: Suspended becomes False (never added False). */
export function setResumed(pass: Pass): void {
  setCondition(pass, condition(EventType.Normal, ConditionType.Suspended, 'False', Reason.ResumeJobs, Message.Resumed));
}

export function setInOrderInProgress(pass: Pass): void {
  setCondition(
    pass,
    condition(
      EventType.Normal,
      ConditionType.StartupPolicyInProgress,
      'True',
      Reason.InOrderStartupPolicyInProgress,
      Message.InOrderStartupPolicyInProgress,
    ),
  );
}

export function setInOrderCompleted(pass: Pass): void {
  setCondition(
    pass,
    condition(
      EventType.Normal,
      ConditionType.StartupPolicyCompleted,
      'True',
      Reason.InOrderStartupPolicyCompleted,
      Message.InOrderStartupPolicyCompleted,
    ),
  );
}

/** jobSetFinished: Completed or Failed is True. */
export function isJobSetFinished(js: JobSet): boolean {
  return (js.status?.conditions ?? []).some(
    (c) => (c.type === ConditionType.Completed || c.type === ConditionType.Failed) && c.status === 'True',
  );
}

/**
 * calculateReplicatedJobStatuses: per replicatedJob of the spec, from the Jobs of the current attempt: active Jobs
 * are ready when succeeded + ready pods reach min(parallelism, completions), active when they have an active pod,
 * suspended when spec.suspend; succeeded and failed count finished Jobs. Jobs without a known replicatedJob label
 * are skipped. With RestartJob the per-Job restart counts are kept from the status. Upstream builds them from a Go
 * map (no order); they are in the order upstream writes them: by name, descending (replicatedJobStatusesEqual
 * sorts both lists in place, and the new one is what it writes).
 */
export function replicatedJobStatuses(js: JobSet, jobs: ChildJobs, options: PlanOptions): ReplicatedJobStatus[] {
  const counts = new Map<string, ReplicatedJobStatus>();
  for (const rjob of js.spec.replicatedJobs ?? []) {
    counts.set(rjob.name, { name: rjob.name, ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0 });
  }
  const entry = (job: Job): ReplicatedJobStatus | undefined => {
    const name = job.metadata.labels?.[REPLICATED_JOB_NAME_KEY] ?? '';
    return name === '' ? undefined : counts.get(name);
  };
  for (const job of jobs.active) {
    const s = entry(job);
    if (s === undefined) continue;
    const ready = job.status?.ready ?? 0;
    let pods = job.spec.parallelism ?? 1; // defaulted by the apiserver
    if (job.spec.completions !== undefined && job.spec.completions !== null && job.spec.completions < pods) {
      pods = job.spec.completions;
    }
    if ((job.status?.succeeded ?? 0) + ready >= pods) s.ready++;
    if ((job.status?.active ?? 0) > 0) s.active++;
    if (job.spec.suspend === true) s.suspended++;
  }
  for (const job of jobs.successful) {
    const s = entry(job);
    if (s) s.succeeded++;
  }
  for (const job of jobs.failed) {
    const s = entry(job);
    if (s) s.failed++;
  }
  const out = [...counts.values()];
  if (options.restartJob === true) {
    for (const s of out) {
      const existing = (js.status?.replicatedJobsStatus ?? []).find((e) => e.name === s.name);
      if (existing?.jobRestarts !== undefined) s.jobRestarts = existing.jobRestarts;
      if (existing?.jobRestartsCountTowardsMax !== undefined) {
        s.jobRestartsCountTowardsMax = existing.jobRestartsCountTowardsMax;
      }
    }
  }
  return byNameDescending(out);
}

function byNameDescending(statuses: ReplicatedJobStatus[]): ReplicatedJobStatus[] {
  return [...statuses].sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

/** Semantic equality as apiequality.Semantic has it: order by name, and an empty list is no list. */
function normalized(statuses: readonly ReplicatedJobStatus[] | undefined): unknown[] {
  return byNameDescending([...(statuses ?? [])]).map((s) => {
    const out: Record<string, unknown> = {
      name: s.name,
      ready: s.ready ?? 0,
      succeeded: s.succeeded ?? 0,
      failed: s.failed ?? 0,
      active: s.active ?? 0,
      suspended: s.suspended ?? 0,
    };
    if (s.jobRestarts && s.jobRestarts.length > 0) out.jobRestarts = s.jobRestarts;
    if (s.jobRestartsCountTowardsMax && s.jobRestartsCountTowardsMax.length > 0) {
      out.jobRestartsCountTowardsMax = s.jobRestartsCountTowardsMax;
    }
    return out;
  });
}

/** updateReplicatedJobsStatuses: replaced (and the status written) only when they differ. */
export function updateReplicatedJobsStatuses(pass: Pass, statuses: ReplicatedJobStatus[]): void {
  const status = (pass.js.status ??= {});
  if (isDeepStrictEqual(normalized(status.replicatedJobsStatus), normalized(statuses))) return;
  status.replicatedJobsStatus = statuses;
  pass.shouldUpdate = true;
}

/** allJobsReady: ready + succeeded Jobs reach the replicas of every replicatedJob. */
export function allJobsReady(js: JobSet, statuses: readonly ReplicatedJobStatus[]): boolean {
  const total = (js.spec.replicatedJobs ?? []).reduce((sum, r) => sum + (r.replicas ?? 0), 0);
  const ready = statuses.reduce((sum, s) => sum + s.ready + s.succeeded, 0);
  return total === ready;
}

/** findReplicatedJobStatus. */
export function statusOf(
  statuses: readonly ReplicatedJobStatus[],
  replicatedJobName: string,
): ReplicatedJobStatus | undefined {
  return statuses.find((s) => s.name === replicatedJobName);
}
