// `fleetq describe`'s rendering (shared/ops/describe.ts): one line per fact, "not recorded" for what fleetq does
// not keep, values from Redis printed inert; and the backoff a count gives, as retry.lua computes it.
import { describe, expect, it } from '@jest/globals';
import { backoffAfter, formatDescription, type KeyDescription } from '../../../shared/ops/describe.js';

const base: KeyDescription = {
  key: 'eu-1/Deployment/shop/web',
  queue: 'fleetq',
  at: '2026-12-03T12:00:00.000Z',
  state: 'delayed',
  queued: { readyAt: '2026-12-03T12:00:04.000Z', delayed: true, inMs: 4_000 },
  held: null,
  failures: { count: 3, backoffMs: 20 },
  conflicts: { count: 0, backoffMs: null },
  deadLetter: null,
  lastError: null,
  lastReconcile: null,
  cache: { kind: 'Deployment', resourceVersion: '812', watermark: '900' },
  notRecorded: ['lastReconcile', 'lastError'],
};

describe('formatDescription', () => {
  it('says each fact on its own line, and "not recorded" for what is not kept', () => {
    expect(formatDescription(base).split('\n')).toEqual([
      'Key:             eu-1/Deployment/shop/web',
      'Queue:           fleetq',
      'At:              2026-12-03T12:00:00.000Z',
      'State:           delayed',
      'Queued:          delayed until 2026-12-03T12:00:04.000Z (in 4s)',
      'Held:            no',
      'Failures:        3 (backoff 20ms)',
      'Conflicts:       0',
      'Dead letter:     none',
      'Last error:      not recorded',
      'Last reconcile:  not recorded',
      'Cached object:   Deployment resourceVersion 812 (cache current at 900)',
    ]);
  });

  it('shows a held key with its lease, and prints a hostile dead-letter reason inert', () => {
    const text = formatDescription({
      ...base,
      state: 'held',
      queued: null,
      held: {
        holder: 'a1b2',
        token: 'a1b2.7.0',
        leaseExpiresAt: '2026-12-03T12:00:25.000Z',
        leaseExpiresInMs: 25_000,
        rerunAt: null,
      },
      deadLetter: { reason: 'bad\u001b[2J\nthing', failures: 2, parkedAt: '2026-12-03T11:00:00.000Z' },
      lastError: 'bad\u001b[2J\nthing',
      cache: { kind: 'Job', resourceVersion: null, watermark: null },
    });
    expect(text).toContain(
      'Held:            by a1b2 (token a1b2.7.0), lease expires 2026-12-03T12:00:25.000Z (in 25s)',
    );
    expect(text).toContain('Dead letter:     parked 2026-12-03T11:00:00.000Z after 2 failure(s): bad\\x1b[2J thing');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('Cached object:   Job not in the cache (cache not current');
  });
});

describe('backoffAfter', () => {
  it.each([
    { count: 0, want: null },
    { count: 1, want: 5 },
    { count: 3, want: 20 },
    { count: 60, want: 1_000_000 },
  ])('$count failure(s): $want ms', ({ count, want }) => expect(backoffAfter(count, 5, 1_000_000)).toBe(want));
});
