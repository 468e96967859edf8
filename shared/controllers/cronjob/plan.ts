// The CronJob planner (sync and syncCronJob of cronjob_controllerv2.go, 1.37), pure: what was observed and `now` in,
// actions and a requeue out. In upstream's order:
//   1  cleanupFinishedJobs: finished Jobs past the history limits are deleted (history.ts)
//   2  each Job it controls: unfinished and not in status.active → UnexpectedJob, unless the CronJob read fresh
//      has it there (then the fresh copy is the one planned on); finished → out of status.active with
//      SawCompletedJob (if it was in); succeeded → status.lastSuccessfulTime (the latest completionTime)
//   3  each active reference whose Job is not among them: a live GET; gone → MissingJob, out of status.active
//   4  being deleted, an unknown timeZone (UnknownTimeZone), suspended, a schedule that does not parse
//      (UnparseableSchedule) or never comes (InvalidSchedule) → only the status; no requeue
//   5  the run due now (schedule-times.ts; more than 100 missed → TooManyMissedTimes, the latest runs); none →
//      requeue for the next; past startingDeadlineSeconds → MissSchedule, requeue; already run (its Job active, or
//      it is status.lastScheduleTime) → requeue; Forbid with a Job active → JobAlreadyActive, requeue
//   6  Replace: every active Job (read live) is deleted first
//   7  the Job is created (job-template.ts), status.lastScheduleTime set, requeue for the next run
// The requeue is upstream's: the time until the next run plus 100 ms (nextScheduleTimeDuration). Never a poll.
//
// Where fleetq differs, and why (the runtime applies creates before deletes and knows a Job's uid only from the
// create's answer, where upstream's sync goes on with the answer):
//  - The run's Job is created in one pass, with status.lastScheduleTime; the next pass (requeueAfter 0, once the
//    cache has the Job) puts its reference into status.active. A Job that is not yet in status.active but has the
//    name of the run in status.lastScheduleTime is that Job: it goes into status.active without UnexpectedJob.
//    (Upstream writes both at once; a Job whose status write was lost is an UnexpectedJob there, and here.)
//  - Replace deletes the active Jobs in one pass and creates the new Job in the next, so the old and the new Job
//    never overlap, as upstream's order (delete, then create) ensures.
//  - A Job of the run's name that already exists (upstream: create → AlreadyExists → GET) is known from observe:
//    not controlled by this CronJob → nothing more, no requeue; controlled and not active → into status.active.
//  - After the switch to the fresh copy (2), upstream writes the status of the copy it had before the switch,
//    dropping what it changed after; fleetq writes what it planned, on the fresh copy's resourceVersion.
//  - A step that upstream fails with an error (retried with backoff) after changing the status writes that status
//    and looks again after ERROR_RETRY_MS; with nothing to write it throws a retryable ReconcileError.
import { ReconcileError } from '../../kube/errors.js';
import { EventType, type EventSpec } from '../../kube/events/types.js';
import { isControlledBy } from '../../kube/meta/controller-ref.js';
import type { PlanResult } from '../controller.js';
import { isJobFinished } from '../common/job-api.js';
import { timeMs, wireTime } from '../common/wire-time.js';
import { jobCreateEvents } from './events.js';
import { cleanupFinishedJobs, deleteJobAction, finishedType, isSucceeded, removeFromActive } from './history.js';
import { jobFromTemplate, jobNameFor, jobReference } from './job-template.js';
import {
  event,
  eventsOf,
  finish,
  recordSuccess,
  start,
  switchTo,
  withStatus,
  type Outcome,
  type Pass,
} from './pass.js';
import { goQuote, nextScheduleTime, nextScheduleTimeDuration, scheduleOf } from './schedule-times.js';
import { isKnownTimeZone } from './time-zone.js';
import { ConcurrencyPolicy, Reason, type CronJob, type Job, type ObservedCronJob } from './types.js';

export { ERROR_RETRY_MS } from './pass.js';

export function planCronJob(o: ObservedCronJob, now: Date): PlanResult {
  if (o.cronJob === null) return { actions: [] };
  const pass = start(o.cronJob);
  pass.actions.push(...cleanupFinishedJobs(pass.cj, o.jobs, pass.active));
  const outcome = syncCronJob(pass, o, now.getTime());
  if (outcome === 'gone') return { actions: [] };
  return finish(pass, outcome);
}

function syncCronJob(pass: Pass, o: ObservedCronJob, now: number): Outcome {
  const children = new Set(o.jobs.map((j) => j.metadata.uid ?? ''));
  for (const job of o.jobs) {
    const uid = job.metadata.uid ?? '';
    const found = pass.active.some((r) => r.uid === uid);
    if (!found && !isJobFinished(job)) {
      if (isRunJustCreated(pass.cj, job)) {
        pass.active.push(jobReference(job));
        continue;
      }
      if (o.fresh === undefined) throw unobserved('the CronJob read fresh');
      if (o.fresh === null) return 'gone';
      if ((o.fresh.status?.active ?? []).some((r) => r.uid === uid)) {
        switchTo(pass, o.fresh);
        continue;
      }
      event(
        pass,
        EventType.Warning,
        Reason.UnexpectedJob,
        `Saw a job that the controller did not create or forgot: ${name(job)}`,
      );
    } else if (isJobFinished(job)) {
      if (found) {
        removeFromActive(pass.active, uid);
        event(
          pass,
          EventType.Normal,
          Reason.SawCompletedJob,
          `Saw completed job: ${name(job)}, condition: ${finishedType(job)}`,
        );
      }
      if (isSucceeded(job)) recordSuccess(pass, job);
    }
  }

  // Active references whose Job the jobs lack: gone, or only not yet in the cache?
  for (const ref of [...pass.active]) {
    if (children.has(ref.uid ?? '')) continue;
    const live = o.jobsByName?.[ref.name ?? ''];
    if (live === undefined) throw unobserved(`the active Job ${ref.name}`);
    if (live === null) {
      event(pass, EventType.Normal, Reason.MissingJob, `Active job went missing: ${ref.name}`);
      removeFromActive(pass.active, ref.uid ?? '');
    }
  }

  const cj = pass.cj;
  if (cj.metadata.deletionTimestamp) return {};
  const zone = cj.spec.timeZone;
  if (typeof zone === 'string' && !isKnownTimeZone(zone)) {
    event(
      pass,
      EventType.Warning,
      Reason.UnknownTimeZone,
      `invalid timeZone: ${goQuote(zone)}: unknown time zone ${zone}`,
    );
    return {};
  }
  if (cj.spec.suspend === true) return {};
  const events: EventSpec[] = [];
  const parsed = scheduleOf(cj, events);
  eventsOf(pass, events);
  if ('error' in parsed) {
    event(
      pass,
      EventType.Warning,
      Reason.UnparseableSchedule,
      `unparseable schedule: ${goQuote(cj.spec.schedule)} : ${parsed.error}`,
    );
    return {};
  }
  const schedule = parsed.schedule;
  const next = nextScheduleTime(cj, now, schedule, events);
  eventsOf(pass, events);
  if (next.error !== undefined) {
    event(pass, EventType.Warning, Reason.InvalidSchedule, `invalid schedule: ${cj.spec.schedule} : ${next.error}`);
    return {};
  }
  const requeue = () => ({ requeueAfter: nextScheduleTimeDuration(withStatus(pass), now, schedule) });
  const scheduled = next.time;
  if (scheduled === null) return requeue();

  const deadline = cj.spec.startingDeadlineSeconds;
  if (typeof deadline === 'number' && scheduled + deadline * 1000 < now) {
    event(pass, EventType.Warning, Reason.MissSchedule, `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
    return requeue();
  }
  const runName = jobNameFor(cj, scheduled);
  const last = timeMs(pass.status.lastScheduleTime);
  if (pass.active.some((r) => r.name === runName && r.namespace === cj.metadata.namespace) || last === scheduled) {
    return requeue();
  }
  if (cj.spec.concurrencyPolicy === ConcurrencyPolicy.Forbid && pass.active.length > 0) {
    event(
      pass,
      EventType.Normal,
      Reason.JobAlreadyActive,
      'Not starting job because prior execution is running and concurrency policy is Forbid',
    );
    return requeue();
  }
  if (cj.spec.concurrencyPolicy === ConcurrencyPolicy.Replace && pass.active.length > 0) {
    for (const ref of [...pass.active]) {
      const live = o.jobsByName?.[ref.name ?? ''];
      if (live === undefined) return { requeueAfter: 0 }; // due by this clock, not by observe's: read again
      if (live === null) {
        event(pass, EventType.Warning, Reason.FailedGet, `Get job: jobs.batch ${goQuote(ref.name ?? '')} not found`);
        return 'error';
      }
      pass.actions.push(deleteJobAction(cj, live, pass.active));
    }
    return { requeueAfter: 0 }; // the next pass creates the run's Job
  }

  if (o.existing === undefined) return { requeueAfter: 0 }; // due by this clock, not by observe's: read again
  if (o.existing !== null) {
    // upstream's AlreadyExists: another actor's Job (nothing more), or ours whose status write was lost.
    if (!isControlledBy(o.existing, cj.metadata.uid ?? '')) return {};
    if (pass.active.some((r) => r.uid === o.existing?.metadata.uid)) return {};
    pass.active.push(jobReference(o.existing));
    pass.status.lastScheduleTime = wireTime(scheduled);
    return requeue();
  }
  pass.actions.push({
    type: 'create',
    object: jobFromTemplate(cj, scheduled),
    reason: Reason.SuccessfulCreate,
    events: jobCreateEvents(cj, runName),
  });
  pass.status.lastScheduleTime = wireTime(scheduled);
  return { requeueAfter: 0 }; // the next pass puts the Job into status.active, then waits for the next run
}

/**
 * The Job this controller created for the run in status.lastScheduleTime, whose reference the next pass adds to
 * status.active (see the head of this file). Observe skips the fresh read of the CronJob for it.
 */
export function isRunJustCreated(cj: CronJob, job: Job): boolean {
  const last = timeMs(cj.status?.lastScheduleTime);
  return last !== undefined && job.metadata.name === jobNameFor(cj, last);
}

/** A controlled, unfinished Job missing from status.active that is not the run just created: read the CronJob fresh. */
export function needsFreshCronJob(cj: CronJob, jobs: readonly Job[]): boolean {
  const active = new Set((cj.status?.active ?? []).map((r) => r.uid));
  return jobs.some((j) => !active.has(j.metadata.uid) && !isJobFinished(j) && !isRunJustCreated(cj, j));
}

/**
 * The run due now, as far as observe needs to know (to read what Replace deletes and whether the run's Job
 * exists): null when the sync would stop before creating anything on the CronJob as cached.
 */
export function dueRun(cj: CronJob, now: number): number | null {
  if (cj.metadata.deletionTimestamp || cj.spec.suspend === true) return null;
  if (typeof cj.spec.timeZone === 'string' && !isKnownTimeZone(cj.spec.timeZone)) return null;
  const parsed = scheduleOf(cj);
  if ('error' in parsed) return null;
  const next = nextScheduleTime(cj, now, parsed.schedule, []);
  if (next.time === null) return null;
  const deadline = cj.spec.startingDeadlineSeconds;
  if (typeof deadline === 'number' && next.time + deadline * 1000 < now) return null;
  return timeMs(cj.status?.lastScheduleTime) === next.time ? null : next.time;
}

function unobserved(what: string): ReconcileError {
  return new ReconcileError('PlanFailed', `CronJob plan needs ${what}, which observe did not read`);
}

function name(job: Job): string {
  return job.metadata.name ?? '';
}

/** Go's time.RFC1123Z of a UTC time: "Mon, 02 Jan 2006 15:04:05 +0000". */
function rfc1123z(ms: number): string {
  return new Date(ms).toUTCString().replace(/GMT$/, '+0000');
}
