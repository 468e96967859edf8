// Comparing resourceVersions. Kubernetes 1.35+ guarantees they are comparable within one resource of one
// cluster (KEP-5504): decimal integers without leading zeros, so a longer one is larger and equal lengths
// compare as strings. Anything else is not comparable, and a reader that needs an order must read live.
const DECIMAL = /^(0|[1-9][0-9]*)$/;

export function isComparableResourceVersion(rv: string | undefined): rv is string {
  return rv !== undefined && DECIMAL.test(rv);
}

/** -1, 0 or 1; undefined when either side is not comparable. */
export function compareResourceVersions(a: string | undefined, b: string | undefined): -1 | 0 | 1 | undefined {
  if (!isComparableResourceVersion(a) || !isComparableResourceVersion(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** The larger of two resourceVersions; a non-comparable one never wins over a comparable one. */
export function maxResourceVersion(a: string | undefined, b: string | undefined): string | undefined {
  const c = compareResourceVersions(a, b);
  if (c === undefined) return isComparableResourceVersion(a) ? a : isComparableResourceVersion(b) ? b : (b ?? a);
  return c >= 0 ? a : b;
}
