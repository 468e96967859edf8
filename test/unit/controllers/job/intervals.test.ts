import { describe, expect, it } from '@jest/globals';
import {
  formatIntervals,
  hasIndex,
  mergeIntervals,
  parseIntervals,
  totalOf,
  withIndexes,
} from '../../../../shared/controllers/job/intervals.js';

const iv = (...pairs: [number, number][]) => pairs.map(([first, last]) => ({ first, last }));

describe('completed index intervals', () => {
  it.each([
    { name: 'empty', text: '', completions: 10, want: [] },
    { name: 'single', text: '3', completions: 10, want: iv([3, 3]) },
    { name: 'ranges', text: '1,3-5,7', completions: 10, want: iv([1, 1], [3, 5], [7, 7]) },
    { name: 'pair written as two numbers joins', text: '1,2', completions: 10, want: iv([1, 2]) },
    { name: 'adjacent ranges join', text: '0-2,3-4', completions: 10, want: iv([0, 4]) },
    { name: 'beyond completions dropped', text: '1,5-7,9', completions: 6, want: iv([1, 1], [5, 5]) },
    { name: 'last bound clipped', text: '2-20', completions: 5, want: iv([2, 4]) },
    { name: 'corrupt part skipped', text: 'x,2,a-3', completions: 5, want: iv([2, 2]) },
  ])('parse: $name', ({ text, completions, want }) => expect(parseIntervals(text, completions)).toEqual(want));

  it.each([
    { intervals: [], want: '' },
    { intervals: iv([0, 0]), want: '0' },
    { intervals: iv([1, 2]), want: '1,2' },
    { intervals: iv([1, 1], [3, 5]), want: '1,3-5' },
    { intervals: iv([0, 9], [11, 12], [20, 20]), want: '0-9,11,12,20' },
  ])('format $want', ({ intervals, want }) => expect(formatIntervals(intervals)).toBe(want));

  it('round trips', () => {
    for (const text of ['0', '1,3-5', '0-9,11,12,20', '2,4,6'])
      expect(formatIntervals(parseIntervals(text, 100))).toBe(text);
  });

  it('merges and adds indexes', () => {
    expect(mergeIntervals(iv([0, 1], [5, 6]), iv([2, 3], [9, 9]))).toEqual(iv([0, 3], [5, 6], [9, 9]));
    expect(withIndexes(iv([1, 1]), [4, 0, 2, 2, 3])).toEqual(iv([0, 4]));
    expect(totalOf(iv([0, 3], [5, 6]))).toBe(6);
    expect(hasIndex(iv([0, 3], [5, 6]), 4)).toBe(false);
    expect(hasIndex(iv([0, 3], [5, 6]), 6)).toBe(true);
  });
});
