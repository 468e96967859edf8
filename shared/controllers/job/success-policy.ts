// successPolicy (success_policy.go; KEP-3998, GA 1.33), Indexed Jobs only: the rules are tried in order once any
// index has succeeded, and the first that holds declares the Job successful (SuccessCriteriaMet, reason
// SuccessPolicy, message "Matched rules at index <i>"); its remaining pods are deleted and, once none is left,
// Complete follows. A rule holds when
//   - succeededIndexes alone: every index it lists has succeeded;
//   - succeededIndexes with succeededCount: every listed index, or at least succeededCount of them, has succeeded;
//   - succeededCount alone: at least that many indexes have succeeded.
// A rule whose succeededIndexes parses to nothing (bad format, or only indexes ≥ completions) is skipped.
import { parseIntervals, totalOf, type Intervals } from './intervals.js';
import type { SuccessPolicy } from './types.js';

/** matchSuccessPolicy: the SuccessCriteriaMet message of the first rule that holds, else undefined. */
export function matchSuccessPolicy(
  policy: SuccessPolicy | undefined,
  completions: number,
  succeeded: Intervals,
): string | undefined {
  if (policy === undefined || policy === null || succeeded.length === 0) return undefined;
  const rules = policy.rules ?? [];
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index]!;
    if (rule.succeededIndexes !== undefined && rule.succeededIndexes !== null) {
      const required = parseIntervals(rule.succeededIndexes, completions);
      if (required.length === 0) continue;
      if (holds(required, succeeded, rule.succeededCount)) return `Matched rules at index ${index}`;
    } else if (rule.succeededCount !== undefined && totalOf(succeeded) >= rule.succeededCount) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}

/** matchSucceededIndexesRule: how many required indexes succeeded, against all of them or succeededCount. */
function holds(required: Intervals, succeeded: Intervals, succeededCount: number | undefined): boolean {
  let contains = 0;
  for (const r of required) {
    for (const s of succeeded) {
      const overlap = Math.min(r.last, s.last) - Math.max(r.first, s.first) + 1;
      if (overlap > 0) contains += overlap;
    }
  }
  return contains === totalOf(required) || (succeededCount !== undefined && contains >= succeededCount);
}
