// When a CronJob runs (utils.go of pkg/controller/cronjob, 1.37: mostRecentScheduleTime, nextScheduleTime,
// nextScheduleTimeDuration; and formatSchedule of cronjob_controllerv2.go). Pure: `now` is given; times are ms
// since the epoch; Go's zero time (robfig's "never") is null.
import type { EventSpec } from '../../kube/events/types.js';
import { timeMs } from '../common/wire-time.js';
import { cronJobEvent } from './events.js';
import { parseStandard, type ParsedSchedule, type Schedule } from './schedule.js';
import { isKnownTimeZone } from './time-zone.js';
import { MANY_MISSED, NEXT_SCHEDULE_DELTA_MS, Reason, type CronJob } from './types.js';

export const Missed = { None: 'none', Few: 'few', Many: 'many' } as const;
export type Missed = (typeof Missed)[keyof typeof Missed];

export type MostRecent = {
  /** The last schedule time, the creation time, or now − startingDeadlineSeconds (whichever is latest). */
  readonly earliest: number;
  /** The most recent time a Job should have been created, null when none is due by now. */
  readonly mostRecent: number | null;
  readonly missed: Missed;
  /** robfig parsed a schedule that never comes (30 February): two runs less than a second apart. */
  readonly error?: string;
};

/** Go's zero time in ms: what a never-firing Next returns, in the arithmetic below. */
const GO_ZERO_MS = -62_135_596_800_000; // 0001-01-01T00:00:00Z

/** mostRecentScheduleTime. */
export function mostRecentScheduleTime(
  cj: CronJob,
  now: number,
  schedule: Schedule,
  includeStartingDeadlineSeconds: boolean,
): MostRecent {
  let earliest = timeMs(cj.status?.lastScheduleTime) ?? timeMs(cj.metadata.creationTimestamp) ?? GO_ZERO_MS;
  const deadline = cj.spec.startingDeadlineSeconds;
  if (includeStartingDeadlineSeconds && typeof deadline === 'number') {
    // The controller is not going to schedule anything below this point.
    earliest = Math.max(earliest, now - deadline * 1000);
  }
  const t1 = schedule.next(earliest);
  const t2 = t1 === null ? null : schedule.next(t1);
  if (t1 !== null && now < t1) return { earliest, mostRecent: null, missed: Missed.None };
  if (t1 !== null && t2 !== null && now < t2) return { earliest, mostRecent: t1, missed: Missed.None };

  // "59 23 31 2 *" parses; its two next times are both the zero time.
  const between = Math.round(((t2 ?? GO_ZERO_MS) - (t1 ?? GO_ZERO_MS)) / 1000);
  if (between < 1 || t1 === null) {
    return {
      earliest,
      mostRecent: null,
      missed: Missed.None,
      error: 'time difference between two schedules is less than 1 second',
    };
  }
  // A rough count: how many intervals between the first two runs fit between the first and now.
  const elapsed = Math.trunc((now - t1) / 1000);
  const missedCount = Math.trunc(elapsed / between) + 1;
  // Start one interval before the estimated last one and let the schedule find the real times (@every, and
  // schedules whose intervals differ, such as "30 6-16/4 * * 1-5").
  const potentialEarliest = t1 + (missedCount - 2) * between * 1000;
  let mostRecent: number | null = null;
  for (let t = schedule.next(potentialEarliest); t !== null && t <= now; t = schedule.next(t)) mostRecent = t;
  const missed = missedCount > MANY_MISSED ? Missed.Many : missedCount > 0 ? Missed.Few : Missed.None;
  return { earliest, mostRecent, missed };
}

/**
 * nextScheduleTimeDuration: how long until the run after the most recent one (or after `earliest` when none was
 * missed, after now when some were), plus nextScheduleDelta. 0 when the schedule has no next time (upstream's
 * duration is then hugely negative: the key comes back at once).
 */
export function nextScheduleTimeDuration(cj: CronJob, now: number, schedule: Schedule): number {
  const r = mostRecentScheduleTime(cj, now, schedule, false);
  const from = r.error !== undefined ? now : (r.mostRecent ?? (r.missed === Missed.None ? r.earliest : now));
  const next = schedule.next(from);
  return next === null ? 0 : Math.max(0, next + NEXT_SCHEDULE_DELTA_MS - now);
}

/**
 * nextScheduleTime: the time of the run to start now (the most recent unmet one), null when none is due; its
 * TooManyMissedTimes warning goes into `events` when more than 100 were missed.
 */
export function nextScheduleTime(
  cj: CronJob,
  now: number,
  schedule: Schedule,
  events: EventSpec[],
): { readonly time: number | null; readonly error?: string } {
  const r = mostRecentScheduleTime(cj, now, schedule, true);
  if (r.mostRecent === null || r.mostRecent > now)
    return { time: null, ...(r.error !== undefined && { error: r.error }) };
  if (r.missed === Missed.Many) {
    events.push(
      cronJobEvent(
        cj,
        'Warning',
        Reason.TooManyMissedTimes,
        'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      ),
    );
  }
  return { time: r.mostRecent };
}

/**
 * formatSchedule: the schedule robfig parses. A schedule naming TZ itself (only a CronJob older than the
 * apiserver's check, which refuses TZ and CRON_TZ in a new schedule) is used as written, with an
 * UnsupportedSchedule warning when `events` is given; a known spec.timeZone becomes a TZ= prefix.
 */
export function formatSchedule(cj: CronJob, events?: EventSpec[]): string {
  const { schedule, timeZone } = cj.spec;
  if (schedule.includes('TZ')) {
    events?.push(
      cronJobEvent(
        cj,
        'Warning',
        Reason.UnsupportedSchedule,
        `CRON_TZ or TZ used in schedule ${goQuote(schedule)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`,
      ),
    );
    return schedule;
  }
  if (typeof timeZone === 'string') return isKnownTimeZone(timeZone) ? `TZ=${timeZone} ${schedule}` : schedule;
  return schedule;
}

/** The CronJob's schedule parsed (formatSchedule, then ParseCronScheduleWithPanicRecovery). */
export function scheduleOf(cj: CronJob, events?: EventSpec[]): ParsedSchedule {
  return parseStandard(formatSchedule(cj, events));
}

/** Go's %q of a string: JSON's quoting agrees for the printable text a schedule holds. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
