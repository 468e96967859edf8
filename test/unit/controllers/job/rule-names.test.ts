import { describe, expect, it } from '@jest/globals';
import { planJob } from '../../../../shared/controllers/job/plan.js';
import { RULE_NAMES_ANNOTATION, failJobReason, ruleNamesOf } from '../../../../shared/controllers/job/rule-names.js';
import type { PodFailurePolicy } from '../../../../shared/controllers/job/types.js';
import { NOW, NS, aJob, aPod, ago, conditionsOf, eventsOf, observed, statusOf } from './builders.js';

const policy = (n: number): PodFailurePolicy => ({
  rules: Array.from({ length: n }, (_, i) => ({ action: 'FailJob', onExitCodes: { operator: 'In', values: [i + 1] } })),
});
const named = (value: string, rules = 3) =>
  aJob({ podFailurePolicy: policy(rules), annotations: { [RULE_NAMES_ANNOTATION]: value } });

describe('rule names annotation: validation', () => {
  it.each([
    { name: 'absent', job: aJob({ podFailurePolicy: policy(2) }), want: { kind: 'absent' } },
    {
      name: 'named and unnamed rules',
      job: named('["ExitCode2", null, "Disrupted"]'),
      want: { kind: 'valid', names: ['ExitCode2', null, 'Disrupted'] },
    },
    {
      name: 'a name equal to its own index',
      job: named('["0", null, null]'),
      want: { kind: 'valid', names: ['0', null, null] },
    },
    {
      name: 'a number past the rules is no index',
      job: named('["7", null, null]'),
      want: { kind: 'valid', names: ['7', null, null] },
    },
    { name: 'not JSON', job: named('[ExitCode2]'), want: { kind: 'invalid', problem: 'not valid JSON' } },
    { name: 'not a list', job: named('{"0": "a"}'), want: { kind: 'invalid', problem: 'not a JSON list' } },
    {
      name: 'not aligned with the rules',
      job: named('["a", "b"]'),
      want: { kind: 'invalid', problem: '2 names for 3 podFailurePolicy rules' },
    },
    {
      name: 'no podFailurePolicy',
      job: aJob({ annotations: { [RULE_NAMES_ANNOTATION]: '[]' } }),
      want: { kind: 'invalid', problem: 'the Job has no podFailurePolicy' },
    },
    {
      name: 'duplicate names',
      job: named('["Same", null, "Same"]'),
      want: { kind: 'invalid', problem: 'rules 0 and 2 are both named Same' },
    },
    {
      name: "another rule's index",
      job: named('[null, null, "1"]'),
      want: { kind: 'invalid', problem: 'rule 2: name 1 is the index of rule 1' },
    },
    {
      name: 'a space makes no valid reason',
      job: named('["exit code", null, null]'),
      want: { kind: 'invalid', problem: 'rule 0: reason PodFailurePolicy_exit code is not a valid condition reason' },
    },
    {
      name: 'a reason may not end with a colon',
      job: named('["a:", null, null]'),
      want: { kind: 'invalid', problem: 'rule 0: reason PodFailurePolicy_a: is not a valid condition reason' },
    },
    {
      name: 'reason longer than 128 characters',
      job: named(`["${'x'.repeat(112)}", null, null]`),
      want: {
        kind: 'invalid',
        problem: `rule 0: reason PodFailurePolicy_${'x'.repeat(112)} is longer than 128 characters`,
      },
    },
    {
      name: 'exactly 128 characters is fine',
      job: named(`["${'x'.repeat(111)}", null, null]`),
      want: { kind: 'valid', names: ['x'.repeat(111), null, null] },
    },
    {
      name: 'an empty name',
      job: named('["", null, null]'),
      want: { kind: 'invalid', problem: 'entry 0 is neither a non-empty string nor null' },
    },
    {
      name: 'a number entry',
      job: named('[1, null, null]'),
      want: { kind: 'invalid', problem: 'entry 0 is neither a non-empty string nor null' },
    },
  ])('$name', ({ job, want }) => {
    expect(ruleNamesOf(job)).toEqual(want);
  });

  it.each([
    { names: { kind: 'absent' as const }, index: 1, want: 'PodFailurePolicy' },
    { names: { kind: 'invalid' as const, problem: 'x' }, index: 1, want: 'PodFailurePolicy' },
    { names: { kind: 'valid' as const, names: ['ExitCode2', null] }, index: 0, want: 'PodFailurePolicy_ExitCode2' },
    { names: { kind: 'valid' as const, names: ['ExitCode2', null] }, index: 1, want: 'PodFailurePolicy_1' },
  ])('reason of rule $index with $names.kind names: $want', ({ names, index, want }) => {
    expect(failJobReason(names, index)).toBe(want);
  });

  it("the rule's own name (KEP-4443's field, once served) comes before the annotation", () => {
    expect(failJobReason({ kind: 'valid', names: ['FromAnnotation'] }, 0, 'FromField')).toBe(
      'PodFailurePolicy_FromField',
    );
    expect(failJobReason({ kind: 'absent' }, 3, 'FromField')).toBe('PodFailurePolicy_FromField');
  });
});

describe('Job planner: named pod-failure-policy rules', () => {
  const failedWith = (code: number) => [aPod('bad', { phase: 'Failed', exitCode: code })];
  const job = (annotation?: string) =>
    aJob({
      podFailurePolicy: policy(2),
      ...(annotation !== undefined && { annotations: { [RULE_NAMES_ANNOTATION]: annotation } }),
      status: { startTime: ago(60), active: 0 },
    });
  const message = (code: number, index: number) =>
    `Container c for pod ${NS}/bad failed with exit code ${code} matching FailJob rule at index ${index}`;

  it('a named FailJob rule: FailureTarget reason PodFailurePolicy_<name>, upstream message', () => {
    const r = planJob(observed(job('["ExitCode1", null]'), failedWith(1)), NOW);
    expect(conditionsOf(r.actions)).toEqual(['FailureTarget/PodFailurePolicy_ExitCode1']);
    expect(statusOf(r.actions)?.conditions?.[0]?.message).toBe(message(1, 0));
    expect(eventsOf(r.actions)).toEqual([]);
  });

  it('an unnamed rule under a valid annotation: PodFailurePolicy_<index>', () => {
    const r = planJob(observed(job('["ExitCode1", null]'), failedWith(2)), NOW);
    expect(conditionsOf(r.actions)).toEqual(['FailureTarget/PodFailurePolicy_1']);
  });

  it('a named onPodConditions FailJob rule: PodFailurePolicy_<name>, the condition message', () => {
    const j = aJob({
      podFailurePolicy: {
        rules: [
          { action: 'Ignore', onExitCodes: { operator: 'In', values: [1] } },
          { action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget' }] },
        ],
      },
      annotations: { [RULE_NAMES_ANNOTATION]: '[null, "Preempted"]' },
      status: { startTime: ago(60), active: 0 },
    });
    const pods = [
      aPod('bad', { phase: 'Failed', exitCode: 137, conditions: [{ type: 'DisruptionTarget', status: 'True' }] }),
    ];
    const r = planJob(observed(j, pods), NOW);
    expect(conditionsOf(r.actions)).toEqual(['FailureTarget/PodFailurePolicy_Preempted']);
    expect(statusOf(r.actions)?.conditions?.[0]?.message).toBe(
      `Pod ${NS}/bad has condition DisruptionTarget matching FailJob rule at index 1`,
    );
  });

  it('no annotation: upstream 1.37 reason PodFailurePolicy', () => {
    const r = planJob(observed(job(), failedWith(2)), NOW);
    expect(conditionsOf(r.actions)).toEqual(['FailureTarget/PodFailurePolicy']);
  });

  it('a malformed annotation: a Warning, and the Job fails as if it had none', () => {
    const r = planJob(observed(job('["Same", "Same"]'), failedWith(1)), NOW);
    expect(conditionsOf(r.actions)).toEqual(['FailureTarget/PodFailurePolicy']);
    expect(eventsOf(r.actions)).toEqual([
      `Warning InvalidPodFailurePolicyRuleNames: Ignored annotation ${RULE_NAMES_ANNOTATION}: rules 0 and 1 are both named Same; the failure reason stays PodFailurePolicy`,
    ]);
  });

  it('a malformed annotation never stalls the Job: pods are still created, the Warning is recorded', () => {
    const fresh = aJob({ podFailurePolicy: policy(2), annotations: { [RULE_NAMES_ANNOTATION]: 'nope' } });
    const r = planJob(observed(fresh), NOW);
    expect(r.actions.filter((a) => a.type === 'create')).toHaveLength(1);
    expect(eventsOf(r.actions)).toEqual([
      'Normal SuccessfulCreate: Created pod: ',
      `Warning InvalidPodFailurePolicyRuleNames: Ignored annotation ${RULE_NAMES_ANNOTATION}: not valid JSON; the failure reason stays PodFailurePolicy`,
    ]);
  });
});
