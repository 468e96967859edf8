// The cron wrapper (shared/controllers/cronjob/schedule.ts) against robfig/cron v3.0.1, the library
// kube-controller-manager 1.37 parses CronJob schedules with: every expected time and error message below was
// printed by robfig itself (robfig-reference/main.go, run on these inputs). UTC, and New York, Berlin and Sydney
// across their 2026 daylight-saving changes (a time in a spring-forward gap is skipped that day; a time in a
// fall-back repeat runs twice), plus mostRecentScheduleTime over the same changes and the >100 missed boundary.
import { describe, expect, it } from '@jest/globals';
import { Missed, mostRecentScheduleTime } from '../../../../shared/controllers/cronjob/schedule-times.js';
import { parseStandard, type Schedule } from '../../../../shared/controllers/cronjob/schedule.js';
import type { CronJob } from '../../../../shared/controllers/cronjob/types.js';

type NextCase = { name: string; spec: string; from: string; want: readonly (string | null)[] };
type ParseErrorCase = { name: string; spec: string; error: string };
type RecentCase = { name: string; spec: string; from: string; now: string; mostRecent: string; times: number };

const NEXT_CASES: readonly NextCase[] = [
  {
    name: 'UTC every minute, from mid-minute',
    spec: '* * * * *',
    from: '2026-01-01T00:00:30Z',
    want: ['2026-01-01T00:01:00Z', '2026-01-01T00:02:00Z', '2026-01-01T00:03:00Z'],
  },
  {
    name: 'UTC */15, a second before the quarter',
    spec: '*/15 * * * *',
    from: '2026-01-01T00:14:59Z',
    want: ['2026-01-01T00:15:00Z', '2026-01-01T00:30:00Z', '2026-01-01T00:45:00Z'],
  },
  {
    name: '@hourly, strictly after a run time',
    spec: '@hourly',
    from: '2026-01-01T01:00:00Z',
    want: ['2026-01-01T02:00:00Z', '2026-01-01T03:00:00Z'],
  },
  {
    name: '@daily',
    spec: '@daily',
    from: '2026-01-01T00:00:00Z',
    want: ['2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z'],
  },
  {
    name: '@midnight',
    spec: '@midnight',
    from: '2026-01-01T12:00:00Z',
    want: ['2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z'],
  },
  {
    name: '@weekly runs on Sundays',
    spec: '@weekly',
    from: '2026-01-01T00:00:00Z',
    want: ['2026-01-04T00:00:00Z', '2026-01-11T00:00:00Z'],
  },
  {
    name: '@monthly',
    spec: '@monthly',
    from: '2026-01-15T00:00:00Z',
    want: ['2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z'],
  },
  {
    name: '@yearly',
    spec: '@yearly',
    from: '2026-01-01T00:00:00Z',
    want: ['2027-01-01T00:00:00Z', '2028-01-01T00:00:00Z'],
  },
  { name: '@annually', spec: '@annually', from: '2026-06-01T00:00:00Z', want: ['2027-01-01T00:00:00Z'] },
  {
    name: '*/1 day of month counts as a wildcard: Mondays only (both must match)',
    spec: '0 0 */1 * 1',
    from: '2026-03-01T00:00:00Z',
    want: ['2026-03-02T00:00:00Z', '2026-03-09T00:00:00Z', '2026-03-16T00:00:00Z'],
  },
  {
    name: '*/1 day of week counts as a wildcard: the 1st only',
    spec: '0 0 1 * */1',
    from: '2026-03-01T00:00:00Z',
    want: ['2026-04-01T00:00:00Z', '2026-05-01T00:00:00Z', '2026-06-01T00:00:00Z'],
  },
  {
    name: '1-31 is no wildcard: either day field matches (every day)',
    spec: '0 0 1-31 * 1',
    from: '2026-03-01T00:00:00Z',
    want: ['2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z', '2026-03-04T00:00:00Z'],
  },
  {
    name: '13th or Friday (either matches)',
    spec: '0 0 13 * 5',
    from: '2026-03-01T00:00:00Z',
    want: ['2026-03-06T00:00:00Z', '2026-03-13T00:00:00Z', '2026-03-20T00:00:00Z', '2026-03-27T00:00:00Z'],
  },
  {
    name: '? is a wildcard: weekdays',
    spec: '0 0 ? * MON-FRI',
    from: '2026-03-06T00:00:00Z',
    want: ['2026-03-09T00:00:00Z', '2026-03-10T00:00:00Z', '2026-03-11T00:00:00Z'],
  },
  {
    name: '5/15 is 5-59/15',
    spec: '5/15 * * * *',
    from: '2026-01-01T00:00:00Z',
    want: ['2026-01-01T00:05:00Z', '2026-01-01T00:20:00Z', '2026-01-01T00:35:00Z', '2026-01-01T00:50:00Z'],
  },
  {
    name: 'month and weekday names, any case',
    spec: '0 12 * JAN,jul sun',
    from: '2026-01-20T00:00:00Z',
    want: ['2026-01-25T12:00:00Z', '2026-07-05T12:00:00Z', '2026-07-12T12:00:00Z'],
  },
  {
    name: '@every 90m keeps the start second',
    spec: '@every 90m',
    from: '2026-01-01T00:00:30Z',
    want: ['2026-01-01T01:30:30Z', '2026-01-01T03:00:30Z'],
  },
  {
    name: '@every 500ms is at least one second',
    spec: '@every 500ms',
    from: '2026-01-01T00:00:30Z',
    want: ['2026-01-01T00:00:31Z', '2026-01-01T00:00:32Z'],
  },
  {
    name: '29 February: leap years only',
    spec: '0 0 29 2 *',
    from: '2026-01-01T00:00:00Z',
    want: ['2028-02-29T00:00:00Z', '2032-02-29T00:00:00Z'],
  },
  {
    name: "29 February from 2097: 2104 is past robfig's five years (null)",
    spec: '0 0 29 2 *',
    from: '2097-03-01T00:00:00Z',
    want: [null],
  },
  { name: '30 February never comes (null)', spec: '0 0 30 2 *', from: '2026-01-01T00:00:00Z', want: [null] },
  {
    name: 'TZ= prefix: 09:00 New York',
    spec: 'TZ=America/New_York 0 9 * * *',
    from: '2026-01-01T00:00:00Z',
    want: ['2026-01-01T14:00:00Z', '2026-01-02T14:00:00Z'],
  },
  {
    name: 'New York spring forward: 02:30 is skipped on 8 March',
    spec: 'TZ=America/New_York 30 2 * * *',
    from: '2026-03-06T12:00:00Z',
    want: ['2026-03-07T07:30:00Z', '2026-03-09T06:30:00Z', '2026-03-10T06:30:00Z', '2026-03-11T06:30:00Z'],
  },
  {
    name: 'New York fall back: 01:30 runs twice on 1 November (EDT, then EST)',
    spec: 'TZ=America/New_York 30 1 * * *',
    from: '2026-10-30T12:00:00Z',
    want: ['2026-10-31T05:30:00Z', '2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z', '2026-11-02T06:30:00Z'],
  },
  {
    name: 'New York hourly across the spring-forward gap',
    spec: 'TZ=America/New_York 0 * * * *',
    from: '2026-03-08T05:30:00Z',
    want: ['2026-03-08T06:00:00Z', '2026-03-08T07:00:00Z', '2026-03-08T08:00:00Z', '2026-03-08T09:00:00Z'],
  },
  {
    name: 'New York hourly across the fall-back repeat (01:00 twice)',
    spec: 'TZ=America/New_York 0 * * * *',
    from: '2026-11-01T04:30:00Z',
    want: ['2026-11-01T05:00:00Z', '2026-11-01T06:00:00Z', '2026-11-01T07:00:00Z', '2026-11-01T08:00:00Z'],
  },
  {
    name: 'New York 03:00 exists on the spring-forward day',
    spec: 'TZ=America/New_York 0 3 * * *',
    from: '2026-03-07T12:00:00Z',
    want: ['2026-03-08T07:00:00Z', '2026-03-09T07:00:00Z'],
  },
  {
    name: 'CRON_TZ= prefix, @daily across spring forward',
    spec: 'CRON_TZ=America/New_York @daily',
    from: '2026-03-07T00:00:00Z',
    want: ['2026-03-07T05:00:00Z', '2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z'],
  },
  {
    name: 'Berlin spring forward: 02:30 is skipped on 29 March',
    spec: 'TZ=Europe/Berlin 30 2 * * *',
    from: '2026-03-27T12:00:00Z',
    want: ['2026-03-28T01:30:00Z', '2026-03-30T00:30:00Z', '2026-03-31T00:30:00Z', '2026-04-01T00:30:00Z'],
  },
  {
    name: 'Berlin fall back: 02:30 runs twice on 25 October',
    spec: 'TZ=Europe/Berlin 30 2 * * *',
    from: '2026-10-23T12:00:00Z',
    want: ['2026-10-24T00:30:00Z', '2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z', '2026-10-26T01:30:00Z'],
  },
  {
    name: 'Berlin */30 in the repeated hour: four runs',
    spec: 'TZ=Europe/Berlin */30 2 * * *',
    from: '2026-10-25T00:00:00Z',
    want: [
      '2026-10-25T00:30:00Z',
      '2026-10-25T01:00:00Z',
      '2026-10-25T01:30:00Z',
      '2026-10-26T01:00:00Z',
      '2026-10-26T01:30:00Z',
    ],
  },
  {
    name: 'Sydney fall back (5 April): 02:30 runs twice (AEDT, then AEST)',
    spec: 'TZ=Australia/Sydney 30 2 * * *',
    from: '2026-04-03T00:00:00Z',
    want: ['2026-04-03T15:30:00Z', '2026-04-04T15:30:00Z', '2026-04-04T16:30:00Z', '2026-04-05T16:30:00Z'],
  },
  {
    name: 'Sydney spring forward (4 October): 02:30 is skipped',
    spec: 'TZ=Australia/Sydney 30 2 * * *',
    from: '2026-10-02T00:00:00Z',
    want: ['2026-10-02T16:30:00Z', '2026-10-04T15:30:00Z', '2026-10-05T15:30:00Z', '2026-10-06T15:30:00Z'],
  },
  {
    name: 'Sydney hourly across the spring-forward gap',
    spec: 'TZ=Australia/Sydney 0 * * * *',
    from: '2026-10-03T14:30:00Z',
    want: ['2026-10-03T15:00:00Z', '2026-10-03T16:00:00Z', '2026-10-03T17:00:00Z', '2026-10-03T18:00:00Z'],
  },
];

const PARSE_ERRORS: readonly ParseErrorCase[] = [
  { name: 'empty', spec: '', error: 'empty spec string' },
  { name: 'four fields', spec: '* * * *', error: 'expected exactly 5 fields, found 4: [* * * *]' },
  {
    name: 'six fields (no seconds field)',
    spec: '0 0 * * * *',
    error: 'expected exactly 5 fields, found 6: [0 0 * * * *]',
  },
  { name: '7 is no day of week', spec: '0 0 * * 7', error: 'end of range (7) above maximum (6): 7' },
  { name: 'step 0', spec: '*/0 * * * *', error: 'step of range should be a positive number: */0' },
  {
    name: 'L is not robfig syntax',
    spec: '0 0 L * *',
    error: 'failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax',
  },
  { name: 'range backwards', spec: '10-5 * * * *', error: 'beginning of range (10) beyond end of range (5): 10-5' },
  { name: 'too many hyphens', spec: '1-2-3 * * * *', error: 'too many hyphens: 1-2-3' },
  { name: 'too many slashes', spec: '1/2/3 * * * *', error: 'too many slashes: 1/2/3' },
  { name: 'unknown descriptor', spec: '@reboot', error: 'unrecognized descriptor: @reboot' },
  {
    name: '@every with a unit Go does not know',
    spec: '@every 1d',
    error: 'failed to parse duration @every 1d: time: unknown unit "d" in duration "1d"',
  },
  {
    name: 'unknown TZ= location',
    spec: 'TZ=Mars/Base 0 0 * * *',
    error: 'provided bad location Mars/Base: unknown time zone Mars/Base',
  },
];

const RECENT_CASES: readonly RecentCase[] = [
  {
    name: 'New York spring forward: the skipped day is no missed time',
    spec: 'TZ=America/New_York 30 2 * * *',
    from: '2026-03-06T12:00:00Z',
    now: '2026-03-09T12:00:00Z',
    mostRecent: '2026-03-09T06:30:00Z',
    times: 2,
  },
  {
    name: 'New York fall back: both 01:30 runs',
    spec: 'TZ=America/New_York 30 1 * * *',
    from: '2026-10-31T00:00:00Z',
    now: '2026-11-01T07:00:00Z',
    mostRecent: '2026-11-01T06:30:00Z',
    times: 3,
  },
  {
    name: 'New York fall back, between the two 01:30 runs',
    spec: 'TZ=America/New_York 30 1 * * *',
    from: '2026-10-31T00:00:00Z',
    now: '2026-11-01T06:00:00Z',
    mostRecent: '2026-11-01T05:30:00Z',
    times: 2,
  },
  {
    name: 'Berlin spring forward',
    spec: 'TZ=Europe/Berlin 30 2 * * *',
    from: '2026-03-27T12:00:00Z',
    now: '2026-03-30T12:00:00Z',
    mostRecent: '2026-03-30T00:30:00Z',
    times: 2,
  },
  {
    name: 'Berlin fall back, after the second 02:30',
    spec: 'TZ=Europe/Berlin 30 2 * * *',
    from: '2026-10-24T12:00:00Z',
    now: '2026-10-25T02:00:00Z',
    mostRecent: '2026-10-25T01:30:00Z',
    times: 2,
  },
  {
    name: 'Sydney fall back: the second 02:30',
    spec: 'TZ=Australia/Sydney 30 2 * * *',
    from: '2026-04-03T12:00:00Z',
    now: '2026-04-04T17:00:00Z',
    mostRecent: '2026-04-04T16:30:00Z',
    times: 3,
  },
  {
    name: 'Sydney spring forward',
    spec: 'TZ=Australia/Sydney 30 2 * * *',
    from: '2026-10-02T12:00:00Z',
    now: '2026-10-04T18:00:00Z',
    mostRecent: '2026-10-04T15:30:00Z',
    times: 2,
  },
  {
    name: '*/5: 100 missed is few',
    spec: '*/5 * * * *',
    from: '2026-01-01T00:00:00Z',
    now: '2026-01-01T08:20:00Z',
    mostRecent: '2026-01-01T08:20:00Z',
    times: 100,
  },
  {
    name: '*/5: 101 missed is many',
    spec: '*/5 * * * *',
    from: '2026-01-01T00:00:00Z',
    now: '2026-01-01T08:25:00Z',
    mostRecent: '2026-01-01T08:25:00Z',
    times: 101,
  },
  {
    name: '*/5: a second before the 101st',
    spec: '*/5 * * * *',
    from: '2026-01-01T00:00:00Z',
    now: '2026-01-01T08:24:59Z',
    mostRecent: '2026-01-01T08:20:00Z',
    times: 100,
  },
];

function parsed(spec: string): Schedule {
  const p = parseStandard(spec);
  if ('error' in p) throw new Error(p.error);
  return p.schedule;
}

const iso = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString().replace('.000Z', 'Z');

describe('schedule: Next as robfig/cron computes it', () => {
  it.each(NEXT_CASES)('$name ($spec)', ({ spec, from, want }) => {
    const schedule = parsed(spec);
    const got: (string | null)[] = [];
    let t: number | null = Date.parse(from);
    for (let i = 0; i < want.length && t !== null; i++) {
      t = schedule.next(t);
      got.push(iso(t));
    }
    expect(got).toEqual(want);
  });

  it('starts at the next whole second, as robfig does (sub-second input)', () => {
    expect(iso(parsed('* * * * *').next(Date.parse('2026-01-01T00:00:59.999Z')))).toBe('2026-01-01T00:01:00Z');
    expect(iso(parsed('@every 1m').next(Date.parse('2026-01-01T00:00:10.750Z')))).toBe('2026-01-01T00:01:10Z');
  });
});

describe('schedule: what robfig refuses, with its messages', () => {
  it.each(PARSE_ERRORS)('$name ($spec)', ({ spec, error }) => {
    expect(parseStandard(spec)).toEqual({ error });
  });

  it('TZ= without a schedule: the panic upstream recovers from', () => {
    expect(parseStandard('TZ=UTC')).toEqual({
      error: 'invalid schedule format: runtime error: slice bounds out of range [:-1]',
    });
  });
});

describe('mostRecentScheduleTime across DST changes', () => {
  const cronJob = (spec: string, last: string): CronJob => ({
    metadata: { name: 'c', namespace: 'ns', creationTimestamp: '2025-01-01T00:00:00Z' },
    spec: { schedule: spec, jobTemplate: {} },
    status: { lastScheduleTime: last },
  });

  it.each(RECENT_CASES)('$name ($spec)', ({ spec, from, now, mostRecent, times }) => {
    const r = mostRecentScheduleTime(cronJob(spec, from), Date.parse(now), parsed(spec), true);
    expect(iso(r.mostRecent)).toBe(mostRecent);
    expect(r.missed).toBe(times === 1 ? Missed.None : times > 100 ? Missed.Many : Missed.Few);
  });

  it('none due: no most recent time, nothing missed', () => {
    const r = mostRecentScheduleTime(
      cronJob('0 * * * *', '2026-01-01T00:00:00Z'),
      Date.parse('2026-01-01T00:59:59Z'),
      parsed('0 * * * *'),
      true,
    );
    expect(r).toEqual({ earliest: Date.parse('2026-01-01T00:00:00Z'), mostRecent: null, missed: Missed.None });
  });

  it('startingDeadlineSeconds moves the earliest time up to now − deadline', () => {
    const cj = { ...cronJob('*/5 * * * *', '2026-01-01T00:00:00Z') };
    cj.spec = { ...cj.spec, startingDeadlineSeconds: 200 };
    const r = mostRecentScheduleTime(cj, Date.parse('2026-01-01T10:01:00Z'), parsed('*/5 * * * *'), true);
    expect(r).toEqual({
      earliest: Date.parse('2026-01-01T09:57:40Z'),
      mostRecent: Date.parse('2026-01-01T10:00:00Z'),
      missed: Missed.None,
    });
  });

  it('a schedule that never comes is an error (InvalidSchedule)', () => {
    const r = mostRecentScheduleTime(
      cronJob('0 0 30 2 *', '2026-01-01T00:00:00Z'),
      Date.parse('2026-06-01T00:00:00Z'),
      parsed('0 0 30 2 *'),
      true,
    );
    expect(r.error).toBe('time difference between two schedules is less than 1 second');
  });
});
