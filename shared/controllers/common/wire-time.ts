// Kubernetes timestamps (metav1.Time) as planners read and write them. Objects read through the live view carry
// RFC 3339 strings (JSON), objects built in tests or by client-node carry Dates; both mean the same instant. A
// missing or unparsable time is Go's zero time, which upstream code treats specially (IsZero).
export type KubeTime = Date | string | undefined | null;

/** Milliseconds since the epoch, or undefined for the zero time. */
export function timeMs(t: KubeTime): number | undefined {
  if (t === undefined || t === null) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** metav1.Now() as it is serialized: whole seconds. */
export function wholeSeconds(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 1000) * 1000);
}

/** metav1.Time on the wire: RFC 3339 in whole seconds, UTC (`2025-01-01T00:00:00Z`). */
export function wireTime(t: Date | number): string {
  const ms = typeof t === 'number' ? t : t.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
