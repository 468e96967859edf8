import { describe, expect, it } from '@jest/globals';
import { wireTime } from '../../../../shared/controllers/common/wire-time.js';
import {
  backoffDelayMs,
  backoffRecordOf,
  finishedTimeMs,
  remainingBackoffMs,
} from '../../../../shared/controllers/job/backoff.js';
import { NOW, aJob, aPod } from './builders.js';

describe('pod re-creation backoff', () => {
  it.each([
    { failures: 0, want: 0 },
    { failures: 1, want: 10_000 },
    { failures: 2, want: 20_000 },
    { failures: 3, want: 40_000 },
    { failures: 6, want: 320_000 },
    { failures: 7, want: 600_000 },
    { failures: 50, want: 600_000 },
  ])('$failures failures wait $want ms', ({ failures, want }) => expect(backoffDelayMs(failures)).toBe(want));

  const job = aJob();
  it.each([
    { name: 'no pods', pods: [], want: { failuresAfterLastSuccess: 0, lastFailureTime: undefined }, remaining: 0 },
    {
      name: 'one failure 4 s ago: 6 s left',
      pods: [aPod('a', { phase: 'Failed', finishedAgo: 4 })],
      want: { failuresAfterLastSuccess: 1, lastFailureTime: NOW.getTime() - 4000 },
      remaining: 6000,
    },
    {
      name: 'two failures, latest 5 s ago: 15 s left',
      pods: [aPod('a', { phase: 'Failed', finishedAgo: 30 }), aPod('b', { phase: 'Failed', finishedAgo: 5 })],
      want: { failuresAfterLastSuccess: 2, lastFailureTime: NOW.getTime() - 5000 },
      remaining: 15_000,
    },
    {
      name: 'failures before the last success do not count',
      pods: [
        aPod('a', { phase: 'Failed', finishedAgo: 30 }),
        aPod('s', { phase: 'Succeeded', finishedAgo: 20 }),
        aPod('b', { phase: 'Failed', finishedAgo: 3 }),
      ],
      want: { failuresAfterLastSuccess: 1, lastFailureTime: NOW.getTime() - 3000 },
      remaining: 7000,
    },
    {
      name: 'backoff passed',
      pods: [aPod('a', { phase: 'Failed', finishedAgo: 11 })],
      want: { failuresAfterLastSuccess: 1, lastFailureTime: NOW.getTime() - 11_000 },
      remaining: 0,
    },
    {
      name: 'a running pod is no failure',
      pods: [aPod('r')],
      want: { failuresAfterLastSuccess: 0, lastFailureTime: undefined },
      remaining: 0,
    },
  ])('$name', ({ pods, want, remaining }) => {
    const record = backoffRecordOf(job, pods);
    expect(record).toEqual(want);
    expect(remainingBackoffMs(record, NOW)).toBe(remaining);
  });

  it('finish time falls back to Ready=False, then deletion less grace, then creation', () => {
    const p = aPod('p', { phase: 'Failed' });
    p.status!.containerStatuses = [];
    p.status!.conditions = [{ type: 'Ready', status: 'False', lastTransitionTime: wireTime(NOW.getTime() - 7000) }];
    expect(finishedTimeMs(p)).toBe(NOW.getTime() - 7000);
    p.status!.conditions = [];
    p.metadata!.deletionTimestamp = wireTime(NOW.getTime() - 1000);
    p.metadata!.deletionGracePeriodSeconds = 30;
    expect(finishedTimeMs(p)).toBe(NOW.getTime() - 31_000);
    delete p.metadata!.deletionTimestamp;
    expect(finishedTimeMs(p)).toBe(NOW.getTime() - 600_000);
  });
});
