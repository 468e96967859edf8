// Named pod-failure-policy rules, ahead of upstream (KEP-4443, alpha planned for 1.38 behind the
// PodFailurePolicyName gate). The 1.37 API has no `name` on a rule and the apiserver drops unknown fields, so
// fleetq reads the names from an annotation on the Job: a JSON list aligned with spec.podFailurePolicy.rules,
// a string naming the rule at that position or null leaving it unnamed, e.g.
//   fleetq.dev/pod-failure-policy-rule-names: '["ExitCode2", null, "Preempted"]'
// An unnamed rule is named by its index, as the KEP defaults the field. With a valid annotation, a Job that a
// FailJob rule fails gets the KEP's reason, PodFailurePolicy_<name> (PodFailurePolicy_<index> for an unnamed
// rule); without the annotation the reason stays upstream 1.37's PodFailurePolicy.
// Validation follows the KEP's: the list has one entry per rule; a name is a non-empty string, unique, and not the
// index of another rule (which is that rule's default name); PodFailurePolicy_<name> is a valid condition reason
// (metav1.Condition's pattern, CamelCase-style) of at most 128 characters. (The KEP's last check, no clash with
// the controller's own reasons, holds by construction: none of those starts with "PodFailurePolicy_".)
// A malformed annotation is reported (a Warning Event on each sync) and otherwise ignored: the Job runs as if it
// had none. Switching to the real field (README, "Named pod-failure-policy rules"): a rule's own `name`, once an
// apiserver serves it, is read first; the annotation only names rules without one.
import { ConditionReason, type Job } from './types.js';

export const RULE_NAMES_ANNOTATION = 'fleetq.dev/pod-failure-policy-rule-names';
/** The KEP's limit on the resulting reason. */
export const MAX_REASON_LENGTH = 128;
/** metav1.Condition's reason pattern. */
const REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

export type RuleNames =
  /** No annotation: upstream 1.37's behaviour. */
  | { readonly kind: 'absent' }
  /** One entry per rule: its name, or null (named by its index). */
  | { readonly kind: 'valid'; readonly names: readonly (string | null)[] }
  /** Present but malformed: ignored, with this problem reported. */
  | { readonly kind: 'invalid'; readonly problem: string };

export function ruleNamesOf(job: Job): RuleNames {
  const raw = job.metadata.annotations?.[RULE_NAMES_ANNOTATION];
  if (raw === undefined) return { kind: 'absent' };
  const problem = problemOf(raw, job.spec.podFailurePolicy?.rules?.length);
  if (typeof problem === 'string') return { kind: 'invalid', problem };
  return { kind: 'valid', names: problem };
}

/** The problem with the annotation's value, or the names when there is none. */
function problemOf(raw: string, ruleCount: number | undefined): string | (string | null)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'not valid JSON';
  }
  if (!Array.isArray(parsed)) return 'not a JSON list';
  if (ruleCount === undefined) return 'the Job has no podFailurePolicy';
  if (parsed.length !== ruleCount) return `${parsed.length} names for ${ruleCount} podFailurePolicy rules`;
  const seen = new Map<string, number>();
  for (let i = 0; i < parsed.length; i++) {
    const name: unknown = parsed[i];
    if (name === null) continue;
    if (typeof name !== 'string' || name === '') return `entry ${i} is neither a non-empty string nor null`;
    const reason = reasonWithName(name);
    if (reason.length > MAX_REASON_LENGTH)
      return `rule ${i}: reason ${reason} is longer than ${MAX_REASON_LENGTH} characters`;
    if (!REASON_PATTERN.test(reason)) return `rule ${i}: reason ${reason} is not a valid condition reason`;
    if (/^(0|[1-9][0-9]*)$/.test(name) && Number(name) !== i && Number(name) < ruleCount)
      return `rule ${i}: name ${name} is the index of rule ${name}`;
    const first = seen.get(name);
    if (first !== undefined) return `rules ${first} and ${i} are both named ${name}`;
    seen.set(name, i);
  }
  return parsed as (string | null)[];
}

function reasonWithName(name: string): string {
  return `${ConditionReason.PodFailurePolicy}_${name}`;
}

/**
 * The FailureTarget / Failed reason when the FailJob rule at `ruleIndex` fails the Job: the rule's own `name`
 * once the apiserver serves KEP-4443's field (it defaults it), else the annotation's name or index.
 */
export function failJobReason(names: RuleNames, ruleIndex: number, ruleName?: string): string {
  if (ruleName !== undefined && ruleName !== '') return reasonWithName(ruleName);
  if (names.kind !== 'valid') return ConditionReason.PodFailurePolicy;
  return reasonWithName(names.names[ruleIndex] ?? String(ruleIndex));
}

/** The Warning Event's message for a malformed annotation. */
export function invalidRuleNamesMessage(problem: string): string {
  return `Ignored annotation ${RULE_NAMES_ANNOTATION}: ${problem}; the failure reason stays ${ConditionReason.PodFailurePolicy}`;
}
