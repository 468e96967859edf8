// A changed spec.schedule or spec.timeZone (docs/controllers/cronjob.md): upstream's updateCronJob requeues the CronJob for the new
// schedule's next time (nextScheduleTimeDuration + 100 ms). fleetq's forwarder enqueues the changed CronJob at
// once, and the pass it runs must requeue for the new schedule's next time, as a requeueAfter, creating nothing
// while no time of the new schedule has passed since the last run. NOW is 10:00:30 on 2026-03-10 (UTC); the last
// run was 10:00.
import { describe, expect, it } from '@jest/globals';
import { planCronJob } from '../../../../shared/controllers/cronjob/plan.js';
import { NOW, aCronJob, ms, observed } from './builders.js';

const LAST = '2026-03-10T10:00:00Z';
const until = (iso: string): number => ms(iso) + 100 - NOW.getTime();

describe('CronJob: a schedule or time zone change requeues for the new next run', () => {
  it.each([
    ['*/5 * * * *', undefined, '2026-03-10T10:05:00Z'],
    ['*/2 * * * *', undefined, '2026-03-10T10:02:00Z'],
    ['0 12 * * *', undefined, '2026-03-10T12:00:00Z'],
    ['0 0 1 1 *', undefined, '2027-01-01T00:00:00Z'],
    // 12:00 in Tokyo (UTC+9) is 03:00 UTC the next day; in New York (EDT since 2026-03-08, UTC-4) 16:00 UTC.
    ['0 12 * * *', 'Asia/Tokyo', '2026-03-11T03:00:00Z'],
    ['0 12 * * *', 'America/New_York', '2026-03-10T16:00:00Z'],
    ['0 12 * * *', 'Etc/UTC', '2026-03-10T12:00:00Z'],
  ])('schedule %s, timeZone %s: nothing created, requeued for %s', (schedule, timeZone, next) => {
    const cj = aCronJob({ schedule, ...(timeZone !== undefined && { timeZone }), lastSchedule: LAST });
    const r = planCronJob(observed(cj), NOW);
    expect(r.actions).toEqual([]);
    expect(r.requeueAfter).toBe(until(next));
  });

  it('the same CronJob before and after the change: the requeue follows the spec it reads, never the old one', () => {
    const before = planCronJob(observed(aCronJob({ schedule: '0 0 1 1 *', lastSchedule: LAST })), NOW);
    const after = planCronJob(observed(aCronJob({ schedule: '* * * * *', lastSchedule: LAST })), NOW);
    expect(before.requeueAfter).toBe(until('2027-01-01T00:00:00Z'));
    expect(after.requeueAfter).toBe(until('2026-03-10T10:01:00Z'));
    expect(after.actions).toEqual([]);
  });
});
