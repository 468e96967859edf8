// Summary statistics for tests and benches: one definition of each figure, so that every report's "p90" or
// "median" means the same thing.
//
// Percentiles are nearest-rank: the q-th percentile of n samples is the smallest sample with at least q·n of the
// samples at or below it, i.e. the ceil(q·n)-th smallest. It is always one of the samples (never interpolated):
// of 10 samples, p50 is the 5th smallest, p90 the 9th and p99 the 10th (the maximum).

/** The samples in ascending order (a copy; the input is left as it was). */
export function ascending(xs: readonly number[]): number[] {
  return [...xs].sort((a, b) => a - b);
}

/** The 1-based nearest rank of q (0 < q ≤ 1) among n samples; q·n is rounded to 9 decimals first, so 0.7 × 10 is 7. */
export function nearestRank(q: number, n: number): number {
  if (!(q > 0 && q <= 1)) throw new RangeError(`percentile ${q} is not in (0, 1]`);
  return Math.max(1, Math.ceil(Math.round(q * n * 1e9) / 1e9));
}

/** Nearest-rank percentile (q in (0, 1]: 0.9 for p90); undefined when there are no samples. */
export function percentile(xs: readonly number[], q: number): number | undefined {
  const rank = nearestRank(q, xs.length);
  return xs.length === 0 ? undefined : ascending(xs)[rank - 1];
}

/** The median: the middle sample, or the mean of the two middle samples of an even count; undefined when empty. */
export function median(xs: readonly number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = ascending(xs);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** The largest sample; undefined when empty (Math.max of nothing is -Infinity). */
export function max(xs: readonly number[]): number | undefined {
  return xs.length === 0 ? undefined : xs.reduce((a, b) => (b > a ? b : a));
}

/** The smallest sample; undefined when empty. */
export function min(xs: readonly number[]): number | undefined {
  return xs.length === 0 ? undefined : xs.reduce((a, b) => (b < a ? b : a));
}

/** The arithmetic mean; undefined when empty. */
export function mean(xs: readonly number[]): number | undefined {
  return xs.length === 0 ? undefined : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The least-squares slope of y over x; 0 when every x is the same (no slope to fit). */
export function leastSquaresSlope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n === 0) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  return sxx === 0 ? 0 : sxy / sxx;
}
