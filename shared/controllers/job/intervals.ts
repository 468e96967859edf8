// Completion indexes as upstream keeps them (indexed_job_utils.go): ordered, disjoint, non-adjacent intervals,
// written in the compressed form of status.completedIndexes and status.failedIndexes: "1,3-5", where an interval
// of two is written as two numbers ("1,2", not "1-2").
export type Interval = { readonly first: number; readonly last: number };
export type Intervals = readonly Interval[];

/**
 * parseIndexesFromString: intervals at or past `completions` are dropped, a last bound past it is clipped, a
 * part that is not a number is skipped, and an interval starting right after the previous one joins it.
 */
export function parseIntervals(text: string | undefined, completions: number): Interval[] {
  if (!text) return [];
  const result: { first: number; last: number }[] = [];
  for (const part of text.split(',')) {
    const limits = part.split('-');
    const first = atoi(limits[0] ?? '');
    if (first === undefined) continue;
    if (first >= completions) break;
    let last = first;
    if (limits.length > 1) {
      const parsed = atoi(limits[1] ?? '');
      if (parsed === undefined) continue;
      last = Math.min(parsed, completions - 1);
    }
    const previous = result[result.length - 1];
    if (previous !== undefined && previous.last === first - 1) previous.last = last;
    else result.push({ first, last });
  }
  return result;
}

/** orderedIntervals.String. */
export function formatIntervals(intervals: Intervals): string {
  return intervals
    .map(({ first, last }) => (last > first ? `${first}${last === first + 1 ? ',' : '-'}${last}` : `${first}`))
    .join(',');
}

/** orderedIntervals.merge: both ordered; overlapping or adjacent intervals join. */
export function mergeIntervals(a: Intervals, b: Intervals): Interval[] {
  const result: { first: number; last: number }[] = [];
  const add = (x: Interval) => {
    const last = result[result.length - 1];
    if (last === undefined || x.first > last.last + 1) result.push({ ...x });
    else if (last.last < x.last) last.last = x.last;
  };
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]!.first < b[j]!.first) add(a[i++]!);
    else add(b[j++]!);
  }
  while (i < a.length) add(a[i++]!);
  while (j < b.length) add(b[j++]!);
  return result;
}

/** withOrderedIndexes: the intervals plus single indexes (sorted ascending). */
export function withIndexes(intervals: Intervals, indexes: Iterable<number>): Interval[] {
  const sorted = [...new Set(indexes)].sort((x, y) => x - y);
  return mergeIntervals(
    intervals,
    sorted.map((ix) => ({ first: ix, last: ix })),
  );
}

export function totalOf(intervals: Intervals): number {
  return intervals.reduce((n, { first, last }) => n + last - first + 1, 0);
}

export function hasIndex(intervals: Intervals, ix: number): boolean {
  return intervals.some(({ first, last }) => first <= ix && ix <= last);
}

/** strconv.Atoi, as far as index strings go: an optional sign and decimal digits, within int64. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}
