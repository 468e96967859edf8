// Kubernetes timestamps (metav1.Time) as planners read and write them: RFC 3339 strings, as the apiserver's JSON
// carries them (kube/api/objects.ts). A missing or unparsable time is Go's zero time, which upstream code treats
// specially (IsZero).
import type { Time } from '../../kube/api/objects.js';

export type KubeTime = Time | undefined | null;

/** Milliseconds since the epoch, or undefined for the zero time. */
export function timeMs(t: KubeTime): number | undefined {
  if (t === undefined || t === null) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** metav1.Time on the wire: RFC 3339 in whole seconds, UTC (`2025-01-01T00:00:00Z`). */
export function wireTime(t: Date | number): string {
  const ms = typeof t === 'number' ? t : t.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
