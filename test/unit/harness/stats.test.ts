// The tests' and benches' statistics: nearest-rank percentiles, the median, extremes and the slope, against
// values worked out by hand.
import { describe, expect, it } from '@jest/globals';
import { ascending, leastSquaresSlope, max, mean, median, min, nearestRank, percentile } from '../../helpers/stats.js';

// 10 samples, given out of order; ascending they are 10, 20, ..., 100.
const TEN = [70, 10, 100, 40, 90, 20, 60, 30, 80, 50];

describe('percentile (nearest rank)', () => {
  it.each([
    { name: 'p10 of 10 samples is the 1st', q: 0.1, want: 10 },
    { name: 'p50 of 10 samples is the 5th', q: 0.5, want: 50 },
    { name: 'p70 of 10 samples is the 7th (0.7 × 10 is not rounded up to 8)', q: 0.7, want: 70 },
    { name: 'p90 of 10 samples is the 9th, not the maximum', q: 0.9, want: 90 },
    { name: 'p91 of 10 samples is the 10th', q: 0.91, want: 100 },
    { name: 'p99 of 10 samples is the 10th', q: 0.99, want: 100 },
    { name: 'p100 is the maximum', q: 1, want: 100 },
    { name: 'a tiny q is the minimum', q: 0.001, want: 10 },
  ])('$name', ({ q, want }) => expect(percentile(TEN, q)).toBe(want));

  it('of 200 samples 1..200: p50 is 100, p99 is 198, p99.5 is 199', () => {
    const xs = Array.from({ length: 200 }, (_, i) => 200 - i);
    expect([percentile(xs, 0.5), percentile(xs, 0.99), percentile(xs, 0.995)]).toEqual([100, 198, 199]);
  });

  it('of 3 samples: p50 is the 2nd, p90 the 3rd', () => {
    expect([percentile([3, 1, 2], 0.5), percentile([3, 1, 2], 0.9)]).toEqual([2, 3]);
  });

  it('of one sample is that sample; of none, undefined', () => {
    expect([percentile([7], 0.01), percentile([7], 0.99), percentile([], 0.5)]).toEqual([7, 7, undefined]);
  });

  it('refuses a q outside (0, 1], such as a percentage', () => {
    expect(() => percentile(TEN, 90)).toThrow(RangeError);
    expect(() => percentile(TEN, 0)).toThrow(RangeError);
  });

  it('leaves its input unsorted', () => {
    const xs = [3, 1, 2];
    percentile(xs, 0.5);
    expect(xs).toEqual([3, 1, 2]);
  });

  it('nearestRank: ceil(q·n), at least 1', () => {
    expect([nearestRank(0.9, 10), nearestRank(0.7, 10), nearestRank(0.5, 3), nearestRank(0.01, 3)]).toEqual([
      9, 7, 2, 1,
    ]);
  });
});

describe('median, max, min, mean', () => {
  it.each([
    { name: 'an odd count: the middle sample', xs: [5, 1, 3], want: 3 },
    { name: 'an even count: the mean of the two middle samples', xs: TEN, want: 55 },
    { name: 'two samples', xs: [4, 1], want: 2.5 },
    { name: 'one sample', xs: [9], want: 9 },
    { name: 'no samples', xs: [], want: undefined },
  ])('median of $name', ({ xs, want }) => expect(median(xs)).toBe(want));

  it('max, min and mean of 10 samples; undefined of none', () => {
    expect([max(TEN), min(TEN), mean(TEN)]).toEqual([100, 10, 55]);
    expect([max([]), min([]), mean([])]).toEqual([undefined, undefined, undefined]);
  });

  it('ascending sorts numerically, not as strings', () => {
    expect(ascending([10, 9, 100, 1])).toEqual([1, 9, 10, 100]);
  });
});

describe('leastSquaresSlope', () => {
  it('fits y = 2x + 1 exactly, and the mean slope of scattered points', () => {
    expect(
      leastSquaresSlope([
        [0, 1],
        [1, 3],
        [2, 5],
      ]),
    ).toBe(2);
    // x mean 1, y mean 2; Σ(x−x̄)(y−ȳ) = (−1)(−2) + 0 + (1)(1) = 3, Σ(x−x̄)² = 2: slope 1.5.
    expect(
      leastSquaresSlope([
        [0, 0],
        [1, 3],
        [2, 3],
      ]),
    ).toBe(1.5);
  });

  it('is 0 when there is nothing to fit', () => {
    expect(leastSquaresSlope([])).toBe(0);
    expect(
      leastSquaresSlope([
        [1, 1],
        [1, 5],
      ]),
    ).toBe(0);
  });
});
