// SurgeCount / UnavailableCount / updatedDesiredNodeCounts: both scaled against desiredNumberScheduled and both
// rounded UP; both 0 → maxUnavailable 1; OnDelete allows neither.
import { describe, expect, it } from '@jest/globals';
import { allowsSurge, rollingBudget } from '../../../../shared/controllers/daemonset/counts.js';
import { aDaemonSet } from './builders.js';

describe('rolling budget', () => {
  it.each([
    { name: 'defaults 1 / 0', strategy: {}, desired: 5, want: { maxSurge: 0, maxUnavailable: 1 } },
    {
      name: '10% of 5 rounds up to 1',
      strategy: { maxUnavailable: '10%' },
      desired: 5,
      want: { maxSurge: 0, maxUnavailable: 1 },
    },
    {
      name: '25% of 5 rounds up to 2',
      strategy: { maxUnavailable: '25%' },
      desired: 5,
      want: { maxSurge: 0, maxUnavailable: 2 },
    },
    {
      name: 'maxSurge 30% of 5 rounds up to 2',
      strategy: { maxUnavailable: 0, maxSurge: '30%' },
      desired: 5,
      want: { maxSurge: 2, maxUnavailable: 0 },
    },
    {
      name: '1% of 3 rounds up to 1',
      strategy: { maxUnavailable: 0, maxSurge: '1%' },
      desired: 3,
      want: { maxSurge: 1, maxUnavailable: 0 },
    },
    {
      name: 'both 0% of 3: maxUnavailable 1',
      strategy: { maxUnavailable: '0%', maxSurge: 0 },
      desired: 3,
      want: { maxSurge: 0, maxUnavailable: 1 },
    },
    {
      name: 'both 0 with no node: stays 0',
      strategy: { maxUnavailable: 0, maxSurge: 0 },
      desired: 0,
      want: { maxSurge: 0, maxUnavailable: 0 },
    },
    { name: '100% of 4', strategy: { maxUnavailable: '100%' }, desired: 4, want: { maxSurge: 0, maxUnavailable: 4 } },
    { name: 'an invalid value: no budget', strategy: { maxUnavailable: 'two' }, desired: 4, want: null },
  ])('$name', ({ strategy, desired, want }) => {
    expect(rollingBudget(aDaemonSet({ strategy }), desired)).toEqual(want);
  });

  it.each([
    { name: 'maxSurge 1', strategy: { maxUnavailable: 0, maxSurge: 1 }, want: true },
    { name: 'maxSurge 1% (of 1 node: rounds up to 1)', strategy: { maxUnavailable: 0, maxSurge: '1%' }, want: true },
    { name: 'maxSurge 0', strategy: { maxSurge: 0 }, want: false },
    { name: 'OnDelete', strategy: 'OnDelete' as const, want: false },
  ])('allowsSurge: $name', ({ strategy, want }) => {
    expect(allowsSurge(aDaemonSet({ strategy }))).toBe(want);
  });

  it('OnDelete: no budget needed, none given', () => {
    expect(rollingBudget(aDaemonSet({ strategy: 'OnDelete' }), 5)).toEqual({ maxSurge: 0, maxUnavailable: 1 });
  });
});
