// The CronJob planner against cronjob_controllerv2.go (1.37) sync/syncCronJob, with a fixed clock: whole plan
// results (actions in order, status writes, events, requeue). NOW is 10:00:30; the default schedule is */5.
import { describe, expect, it } from '@jest/globals';
import type { Action } from '../../../../shared/kube/actions.js';
import type { EventSpec } from '../../../../shared/kube/events/types.js';
import { ERROR_RETRY_MS, planCronJob } from '../../../../shared/controllers/cronjob/plan.js';
import type { CronJob, CronJobStatus, Job } from '../../../../shared/controllers/cronjob/types.js';
import { CJ, CJ_UID, NOW, NS, aCronJob, aJob, ms, observed, ref, runName, wire } from './builders.js';

const RUN = '2026-03-10T10:00:00Z';
/** Until 10:05, plus nextScheduleDelta. */
const UNTIL_NEXT = ms('2026-03-10T10:05:00Z') + 100 - NOW.getTime();

function event(cj: CronJob, type: 'Normal' | 'Warning', reason: string, message: string): EventSpec {
  return {
    regarding: {
      kind: 'CronJob',
      apiVersion: 'batch/v1',
      namespace: NS,
      name: CJ,
      uid: CJ_UID,
      resourceVersion: cj.metadata.resourceVersion ?? '',
    },
    source: 'cronjob-controller',
    type,
    reason,
    message,
  };
}
const eventAction = (cj: CronJob, type: 'Normal' | 'Warning', reason: string, message: string): Action => ({
  type: 'event',
  event: event(cj, type, reason, message),
});

function createRun(cj: CronJob, run: string, scheduledAnnotation = wire(run)): Action {
  const name = runName(run);
  return {
    type: 'create',
    object: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: NS,
        labels: { app: 'backup' },
        annotations: { team: 'ops', 'batch.kubernetes.io/cronjob-scheduled-timestamp': scheduledAnnotation },
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'CronJob',
            name: CJ,
            uid: CJ_UID,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: cj.spec.jobTemplate.spec,
    } as Job,
    reason: 'SuccessfulCreate',
    events: {
      onSuccess: [event(cj, 'Normal', 'SuccessfulCreate', `Created job ${name}`)],
      onFailure: {
        ...event(cj, 'Warning', 'FailedCreate', 'Error creating job: '),
        detail: 'error',
        quietOn: ['AlreadyExists'],
      },
    },
  };
}

function deleteJob(cj: CronJob, job: Job): Action {
  const name = job.metadata.name ?? '';
  return {
    type: 'delete',
    target: { kind: 'Job', namespace: NS, name },
    uid: job.metadata.uid ?? '',
    propagationPolicy: 'Background',
    reason: 'SuccessfulDelete',
    events: {
      onSuccess: [event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${name}`)],
      onFailure: { ...event(cj, 'Warning', 'FailedDelete', 'Deleted job: '), detail: 'error' },
    },
  };
}

function status(cj: CronJob, s: CronJobStatus): Action {
  const object: CronJob = { ...cj, status: s };
  return { type: 'updateStatus', object };
}

const plan = (o: Parameters<typeof planCronJob>[0]) => planCronJob(o, NOW);

describe('CronJob planner: running on schedule', () => {
  it('gone: nothing', () => {
    expect(plan(observed(null))).toEqual({ actions: [] });
  });

  it('a run due (10:00, 30 s ago): its Job created, lastScheduleTime set, back at once to put it into active', () => {
    const cj = aCronJob({ lastSchedule: '2026-03-10T09:55:00Z' });
    expect(plan(observed(cj))).toEqual({
      actions: [createRun(cj, RUN), status(cj, { lastScheduleTime: wire(RUN) })],
      requeueAfter: 0,
    });
  });

  it('the pass after: the run just created goes into status.active (no UnexpectedJob), requeue until 10:05 + 100 ms', () => {
    const cj = aCronJob({ lastSchedule: RUN });
    const job = aJob(runName(RUN), { start: RUN });
    expect(plan(observed(cj, [job]))).toEqual({
      actions: [status(cj, { lastScheduleTime: wire(RUN), active: [ref(job)] })],
      requeueAfter: UNTIL_NEXT,
    });
  });

  it('between runs: nothing written, requeue for the next run (never a poll)', () => {
    const job = aJob(runName(RUN), { start: RUN });
    const cj = aCronJob({ lastSchedule: RUN, active: [ref(job)] });
    expect(plan(observed(cj, [job]))).toEqual({ actions: [], requeueAfter: UNTIL_NEXT });
  });

  it('a new CronJob (created 09:58:10): the first run is 10:00', () => {
    const cj = aCronJob({ created: '2026-03-10T09:58:10Z' });
    expect(plan(observed(cj))).toEqual({
      actions: [createRun(cj, RUN), status(cj, { lastScheduleTime: wire(RUN) })],
      requeueAfter: 0,
    });
  });

  it('created after the last slot (10:00:10): nothing due, requeue until 10:05', () => {
    const cj = aCronJob({ created: '2026-03-10T10:00:10Z' });
    expect(plan(observed(cj))).toEqual({ actions: [], requeueAfter: UNTIL_NEXT });
  });

  it('spec.timeZone: the run at 06:00 New York time, the annotation in that zone', () => {
    const cj = aCronJob({ schedule: '0 6 * * *', timeZone: 'America/New_York', lastSchedule: '2026-03-09T10:00:00Z' });
    const run = '2026-03-10T10:00:00Z'; // 06:00 EDT (DST began on 8 March)
    expect(plan(observed(cj))).toEqual({
      actions: [createRun(cj, run, '2026-03-10T06:00:00-04:00'), status(cj, { lastScheduleTime: wire(run) })],
      requeueAfter: 0,
    });
  });

  it('a run whose Job already exists, ours but not in active (a lost status write): into active, no create', () => {
    const cj = aCronJob({ lastSchedule: '2026-03-10T09:55:00Z' });
    const job = aJob(runName(RUN), { start: RUN });
    const o = observed(cj, [], { existing: job });
    expect(plan(o)).toEqual({
      actions: [status(cj, { lastScheduleTime: wire(RUN), active: [ref(job)] })],
      requeueAfter: UNTIL_NEXT,
    });
  });

  it("a run whose name another actor's Job has: nothing, no requeue (upstream's AlreadyExists branch)", () => {
    const cj = aCronJob({ lastSchedule: '2026-03-10T09:55:00Z' });
    const foreign = aJob(runName(RUN), { owner: null });
    expect(plan(observed(cj, [], { existing: foreign }))).toEqual({ actions: [] });
  });

  it("due by plan's clock but not observe's (existing not read): read again at once", () => {
    const cj = aCronJob({ lastSchedule: '2026-03-10T09:55:00Z' });
    expect(plan({ ...observed(cj), existing: undefined })).toEqual({ actions: [], requeueAfter: 0 });
  });
});

describe('CronJob planner: concurrency policies', () => {
  const running = aJob(runName('2026-03-10T09:55:00Z'), { start: '2026-03-10T09:55:00Z' });

  it('Allow: a second Job while the first runs', () => {
    const cj = aCronJob({ lastSchedule: '2026-03-10T09:55:00Z', active: [ref(running)] });
    expect(plan(observed(cj, [running]))).toEqual({
      actions: [createRun(cj, RUN), status(cj, { lastScheduleTime: wire(RUN), active: [ref(running)] })],
      requeueAfter: 0,
    });
  });

  it('Forbid with a Job active: JobAlreadyActive, no Job, requeue for the next run', () => {
    const cj = aCronJob({ policy: 'Forbid', lastSchedule: '2026-03-10T09:55:00Z', active: [ref(running)] });
    expect(plan(observed(cj, [running]))).toEqual({
      actions: [
        eventAction(
          cj,
          'Normal',
          'JobAlreadyActive',
          'Not starting job because prior execution is running and concurrency policy is Forbid',
        ),
      ],
      requeueAfter: UNTIL_NEXT,
    });
  });

  it('Forbid once the active Job finished: SawCompletedJob, then the run starts', () => {
    const done = aJob(running.metadata.name ?? '', {
      start: '2026-03-10T09:55:00Z',
      finished: 'Complete',
      completion: '2026-03-10T09:58:00Z',
    });
    const cj = aCronJob({ policy: 'Forbid', lastSchedule: '2026-03-10T09:55:00Z', active: [ref(done)] });
    expect(plan(observed(cj, [done]))).toEqual({
      actions: [
        eventAction(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${done.metadata.name}, condition: Complete`),
        createRun(cj, RUN),
        status(cj, { lastScheduleTime: wire(RUN), lastSuccessfulTime: wire('2026-03-10T09:58:00Z') }),
      ],
      requeueAfter: 0,
    });
  });

  it('Replace: the active Job (read live) deleted first, out of active; the next pass creates', () => {
    const cj = aCronJob({ policy: 'Replace', lastSchedule: '2026-03-10T09:55:00Z', active: [ref(running)] });
    const o = observed(cj, [running], { jobsByName: { [running.metadata.name ?? '']: running } });
    expect(plan(o)).toEqual({
      actions: [deleteJob(cj, running), status(cj, { lastScheduleTime: wire('2026-03-10T09:55:00Z') })],
      requeueAfter: 0,
    });
  });

  it('Replace, nothing active: the run is created', () => {
    const cj = aCronJob({ policy: 'Replace', lastSchedule: '2026-03-10T09:55:00Z' });
    expect(plan(observed(cj))).toEqual({
      actions: [createRun(cj, RUN), status(cj, { lastScheduleTime: wire(RUN) })],
      requeueAfter: 0,
    });
  });

  it('Replace, the active Job not found by its live GET: FailedGet, retried', () => {
    const cj = aCronJob({ policy: 'Replace', lastSchedule: '2026-03-10T09:55:00Z', active: [ref(running)] });
    const o = observed(cj, [running], { jobsByName: { [running.metadata.name ?? '']: null } });
    expect(plan(o)).toEqual({
      actions: [eventAction(cj, 'Warning', 'FailedGet', `Get job: jobs.batch "${running.metadata.name}" not found`)],
      requeueAfter: ERROR_RETRY_MS,
    });
  });
});

describe('CronJob planner: deadline, missed runs, suspend, schedule errors', () => {
  it('startingDeadlineSeconds passed (run 10:00, deadline 20 s, now 10:00:30): no run, no event, requeue', () => {
    // Upstream counts from now − deadline, so the late run is never found: its MissSchedule event cannot fire.
    const cj = aCronJob({ lastSchedule: '2026-03-10T09:55:00Z', deadline: 20 });
    expect(plan(observed(cj))).toEqual({ actions: [], requeueAfter: UNTIL_NEXT });
  });

  it('within startingDeadlineSeconds (60 s): the run starts', () => {
    const cj = aCronJob({ lastSchedule: '2026-03-10T09:55:00Z', deadline: 60 });
    expect(plan(observed(cj))).toEqual({
      actions: [createRun(cj, RUN), status(cj, { lastScheduleTime: wire(RUN) })],
      requeueAfter: 0,
    });
  });

  it('more than 100 missed (last run 8 h 25 min ago: 101): TooManyMissedTimes, then the latest runs', () => {
    const cj = aCronJob({ lastSchedule: '2026-03-10T01:35:00Z' });
    expect(plan(observed(cj))).toEqual({
      actions: [
        eventAction(
          cj,
          'Warning',
          'TooManyMissedTimes',
          'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
        ),
        createRun(cj, RUN),
        status(cj, { lastScheduleTime: wire(RUN) }),
      ],
      requeueAfter: 0,
    });
  });

  it('100 missed (8 h 20 min): no warning, the latest runs', () => {
    const cj = aCronJob({ lastSchedule: '2026-03-10T01:40:00Z' });
    expect(plan(observed(cj))).toEqual({
      actions: [createRun(cj, RUN), status(cj, { lastScheduleTime: wire(RUN) })],
      requeueAfter: 0,
    });
  });

  it('suspended: no run and no requeue, but finished Jobs still leave status.active', () => {
    const done = aJob('old', { start: '2026-03-10T09:50:00Z', finished: 'Failed' });
    const cj = aCronJob({ suspend: true, lastSchedule: '2026-03-10T09:50:00Z', active: [ref(done)] });
    expect(plan(observed(cj, [done]))).toEqual({
      actions: [
        eventAction(cj, 'Normal', 'SawCompletedJob', 'Saw completed job: old, condition: Failed'),
        status(cj, { lastScheduleTime: wire('2026-03-10T09:50:00Z') }),
      ],
    });
  });

  it('being deleted: status only, no run, no requeue', () => {
    const cj = aCronJob({ deleting: true, lastSchedule: '2026-03-10T09:55:00Z' });
    expect(plan(observed(cj))).toEqual({ actions: [] });
  });

  it('an unknown timeZone: UnknownTimeZone, no run, no requeue', () => {
    const cj = aCronJob({ timeZone: 'Mars/Olympus', lastSchedule: '2026-03-10T09:55:00Z' });
    expect(plan(observed(cj))).toEqual({
      actions: [
        eventAction(
          cj,
          'Warning',
          'UnknownTimeZone',
          'invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus',
        ),
      ],
    });
  });

  it('TZ= in the schedule (an old object): UnsupportedSchedule warning, and the run in that zone', () => {
    const cj = aCronJob({ schedule: 'TZ=Europe/Berlin 0 11 * * *', lastSchedule: '2026-03-09T10:00:00Z' });
    expect(plan(observed(cj))).toEqual({
      actions: [
        eventAction(
          cj,
          'Warning',
          'UnsupportedSchedule',
          'CRON_TZ or TZ used in schedule "TZ=Europe/Berlin 0 11 * * *" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details',
        ),
        createRun(cj, RUN), // 11:00 CET; the annotation stays in UTC (no spec.timeZone)
        status(cj, { lastScheduleTime: wire(RUN) }),
      ],
      requeueAfter: 0,
    });
  });

  it('a schedule robfig refuses: UnparseableSchedule, no requeue', () => {
    const cj = aCronJob({ schedule: '0 0 * * 7' });
    expect(plan(observed(cj))).toEqual({
      actions: [
        eventAction(
          cj,
          'Warning',
          'UnparseableSchedule',
          'unparseable schedule: "0 0 * * 7" : end of range (7) above maximum (6): 7',
        ),
      ],
    });
  });

  it('a schedule that never comes (30 February): InvalidSchedule, no requeue', () => {
    const cj = aCronJob({ schedule: '0 0 30 2 *' });
    expect(plan(observed(cj))).toEqual({
      actions: [
        eventAction(
          cj,
          'Warning',
          'InvalidSchedule',
          'invalid schedule: 0 0 30 2 * : time difference between two schedules is less than 1 second',
        ),
      ],
    });
  });
});

describe('CronJob planner: Jobs, history and status', () => {
  it('history limits: the oldest succeeded (by startTime) beyond 1 and failed beyond 0 deleted, in that order', () => {
    const s1 = aJob('s1', { start: '2026-03-10T09:40:00Z', finished: 'Complete', completion: '2026-03-10T09:41:00Z' });
    const s2 = aJob('s2', { start: '2026-03-10T09:45:00Z', finished: 'Complete', completion: '2026-03-10T09:46:00Z' });
    const s3 = aJob('s3', { start: '2026-03-10T09:50:00Z', finished: 'Complete', completion: '2026-03-10T09:51:00Z' });
    const f1 = aJob('f1', { start: '2026-03-10T09:35:00Z', finished: 'Failed' });
    const cj = aCronJob({
      lastSchedule: RUN,
      succeededLimit: 1,
      failedLimit: 0,
      lastSuccessful: '2026-03-10T09:46:00Z',
    });
    expect(plan(observed(cj, [s3, f1, s1, s2]))).toEqual({
      actions: [
        deleteJob(cj, s1),
        deleteJob(cj, s2),
        deleteJob(cj, f1),
        status(cj, { lastScheduleTime: wire(RUN), lastSuccessfulTime: wire('2026-03-10T09:51:00Z') }),
      ],
      requeueAfter: UNTIL_NEXT,
    });
  });

  it('history: a Job without startTime is the newest; equal times go by name', () => {
    const a = aJob('a', { start: '2026-03-10T09:40:00Z', finished: 'Failed' });
    const b = aJob('b', { start: '2026-03-10T09:40:00Z', finished: 'Failed' });
    const none = aJob('none', { finished: 'Failed' });
    const cj = aCronJob({ lastSchedule: RUN, failedLimit: 1 });
    expect(plan(observed(cj, [none, b, a])).actions).toEqual([deleteJob(cj, a), deleteJob(cj, b)]);
  });

  it('no limits set: nothing deleted', () => {
    const f = ['f1', 'f2', 'f3'].map((n) => aJob(n, { start: '2026-03-10T09:40:00Z', finished: 'Failed' }));
    const cj = aCronJob({ lastSchedule: RUN, failedLimit: null, succeededLimit: null });
    expect(plan(observed(cj, f))).toEqual({ actions: [], requeueAfter: UNTIL_NEXT });
  });

  it('an active Job deleted by the history limit as it finishes: SuccessfulDelete but no SawCompletedJob (upstream order)', () => {
    const done = aJob('d', { start: '2026-03-10T09:55:00Z', finished: 'Complete', completion: '2026-03-10T09:59:00Z' });
    const cj = aCronJob({ lastSchedule: RUN, succeededLimit: 0, active: [ref(done)] });
    expect(plan(observed(cj, [done]))).toEqual({
      actions: [
        deleteJob(cj, done),
        status(cj, { lastScheduleTime: wire(RUN), lastSuccessfulTime: wire('2026-03-10T09:59:00Z') }),
      ],
      requeueAfter: UNTIL_NEXT,
    });
  });

  it('lastSuccessfulTime: the latest completionTime of a succeeded Job, active or not; never earlier', () => {
    const newer = aJob('n', {
      start: '2026-03-10T09:50:00Z',
      finished: 'Complete',
      completion: '2026-03-10T09:52:00Z',
    });
    const older = aJob('o', {
      start: '2026-03-10T09:40:00Z',
      finished: 'Complete',
      completion: '2026-03-10T09:42:00Z',
    });
    const cj = aCronJob({ lastSchedule: RUN, lastSuccessful: '2026-03-10T09:45:00Z' });
    expect(plan(observed(cj, [older, newer]))).toEqual({
      actions: [status(cj, { lastScheduleTime: wire(RUN), lastSuccessfulTime: wire('2026-03-10T09:52:00Z') })],
      requeueAfter: UNTIL_NEXT,
    });
  });

  it('a Job created by hand from the CronJob (kubectl create job --from): UnexpectedJob, never active, the schedule goes on', () => {
    const manual = aJob('backup-manual', { start: '2026-03-10T10:00:10Z' });
    const cj = aCronJob({ lastSchedule: RUN });
    expect(plan(observed(cj, [manual], { fresh: cj }))).toEqual({
      actions: [
        eventAction(
          cj,
          'Warning',
          'UnexpectedJob',
          'Saw a job that the controller did not create or forgot: backup-manual',
        ),
      ],
      requeueAfter: UNTIL_NEXT,
    });
  });

  it('...and once it succeeds: counted in lastSuccessfulTime, and by the history limit (no SawCompletedJob)', () => {
    const manual = aJob('backup-manual', {
      start: '2026-03-10T09:58:00Z',
      finished: 'Complete',
      completion: '2026-03-10T10:00:20Z',
    });
    const s = aJob('s', { start: '2026-03-10T09:50:00Z', finished: 'Complete', completion: '2026-03-10T09:51:00Z' });
    const cj = aCronJob({ lastSchedule: RUN, succeededLimit: 1 });
    expect(plan(observed(cj, [manual, s]))).toEqual({
      actions: [
        deleteJob(cj, s),
        status(cj, { lastScheduleTime: wire(RUN), lastSuccessfulTime: wire('2026-03-10T10:00:20Z') }),
      ],
      requeueAfter: UNTIL_NEXT,
    });
  });

  it('an unfinished Job missing from the cached active list but in the fresh copy: planned on the fresh copy, no event', () => {
    const job = aJob(runName('2026-03-10T09:55:00Z'), { start: '2026-03-10T09:55:00Z' });
    const cached = aCronJob({ lastSchedule: '2026-03-10T09:50:00Z' });
    const fresh = {
      ...aCronJob({ lastSchedule: '2026-03-10T09:55:00Z', active: [ref(job)] }),
      metadata: { ...cached.metadata, resourceVersion: '11' },
    };
    expect(plan(observed(cached, [job], { fresh }))).toEqual({
      actions: [createRun(fresh, RUN), status(fresh, { lastScheduleTime: wire(RUN), active: [ref(job)] })],
      requeueAfter: 0,
    });
  });

  it('an active Job gone (not cached, not found live): MissingJob, out of active, and the run starts', () => {
    const gone = aJob('gone');
    const cj = aCronJob({ lastSchedule: '2026-03-10T09:55:00Z', active: [ref(gone)] });
    expect(plan(observed(cj, [], { jobsByName: { gone: null } }))).toEqual({
      actions: [
        eventAction(cj, 'Normal', 'MissingJob', 'Active job went missing: gone'),
        createRun(cj, RUN),
        status(cj, { lastScheduleTime: wire(RUN) }),
      ],
      requeueAfter: 0,
    });
  });

  it('an active Job not yet in the cache but found live: kept', () => {
    const late = aJob('late');
    const cj = aCronJob({ lastSchedule: RUN, active: [ref(late)] });
    expect(plan(observed(cj, [], { jobsByName: { late } }))).toEqual({ actions: [], requeueAfter: UNTIL_NEXT });
  });
});
