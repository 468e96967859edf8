// How many pods a rolling update may surge or lose (util.SurgeCount, util.UnavailableCount, AllowsSurge and
// update.go's updatedDesiredNodeCounts): both are scaled against desiredNumberScheduled and both round UP
// (intstr.GetScaledValueFromIntOrPercent(..., true)); if the DaemonSet wants pods somewhere and both come out
// 0, maxUnavailable is 1. OnDelete (or no rollingUpdate) allows neither.
import type { IntOrString, DaemonSet } from '../../kube/api/objects.js';
import { scaledValue } from '../common/int-or-percent.js';
import { Strategy } from './types.js';

function rollingUpdateOf(ds: DaemonSet) {
  return ds.spec?.updateStrategy?.type === Strategy.RollingUpdate ? ds.spec.updateStrategy.rollingUpdate : undefined;
}

/** SurgeCount; null for a value that is not an int or "N%". */
export function surgeCount(ds: DaemonSet, numberToSchedule: number): number | null {
  const r = rollingUpdateOf(ds);
  if (r?.maxSurge === undefined) return 0;
  return scaledValue(r.maxSurge as IntOrString as number | string, numberToSchedule, true);
}

/** UnavailableCount; null for a value that is not an int or "N%" (absent: the apiserver defaults it to 1). */
export function unavailableCount(ds: DaemonSet, numberToSchedule: number): number | null {
  const r = rollingUpdateOf(ds);
  if (r === undefined) return 0;
  if (r.maxUnavailable === undefined) return null; // GetScaledValueFromIntOrPercent(nil): an error upstream
  return scaledValue(r.maxUnavailable as IntOrString as number | string, numberToSchedule, true);
}

/** AllowsSurge: maxSurge scaled against 1 node is positive. */
export function allowsSurge(ds: DaemonSet): boolean {
  return (surgeCount(ds, 1) ?? 0) > 0;
}

export type Budget = { readonly maxSurge: number; readonly maxUnavailable: number };

/** updatedDesiredNodeCounts' limits for `desired` nodes; null when a value is invalid (the update waits). */
export function rollingBudget(ds: DaemonSet, desired: number): Budget | null {
  const maxUnavailable = unavailableCount(ds, desired);
  const maxSurge = surgeCount(ds, desired);
  if (maxUnavailable === null || maxSurge === null) return null;
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) return { maxSurge, maxUnavailable: 1 };
  return { maxSurge, maxUnavailable };
}
