// The failure policy, from upstream's failure_policy_test.go (v0.12.0): TestFindFirstFailedJob,
// TestFailurePolicyRuleIsApplicable, TestFindFirstFailedPolicyRuleAndJob, TestApplyFailurePolicyRuleAction (the
// status each action leaves, conditions compared without time and message as upstream does), and the messages.
import { describe, expect, it } from '@jest/globals';
import {
  applyFailurePolicyAction,
  firstFailedJob,
  firstMatchingRule,
  isRuleApplicable,
} from '../../../../shared/controllers/jobset/failure-policy.js';
import { re2Matches } from '../../../../shared/controllers/jobset/re2.js';
import { startPass } from '../../../../shared/controllers/jobset/status.js';
import type {
  FailurePolicyRule,
  Job,
  JobSet,
  JobSetStatus,
  PlanOptions,
} from '../../../../shared/controllers/jobset/types.js';
import { aChildJob, aJobSet, aReplicatedJob, at, NOW } from './builders.js';

const failedAt = (rjob: string, idx: number, seconds: number, reason = 'r', message = 'm'): Job =>
  aChildJob(rjob, idx, { kind: 'failed', at: at(seconds), reason, message });

describe('findFirstFailedJob', () => {
  it.each([
    ['No failed jobs', [], undefined],
    ['Single failed job', [failedAt('a', 0, -3600)], 'test-jobset-a-0'],
    ['Multiple failed jobs, earliest first', [failedAt('a', 0, -3600), failedAt('a', 1, -18000)], 'test-jobset-a-1'],
    ['Jobs without failed condition', [aChildJob('a', 0), aChildJob('a', 1, { kind: 'succeeded' })], undefined],
  ] as const)('%s', (_name, jobs, want) => {
    expect(firstFailedJob(jobs)?.metadata.name).toBe(want);
  });
});

describe('ruleIsApplicable (upstream TestFailurePolicyRuleIsApplicable)', () => {
  const job = (rjob: string) => aChildJob(rjob, 0, { kind: 'failed' });
  const R1 = 'rjob-1';
  const R2 = 'rjob-2';
  const reason1 = 'BackoffLimitExceeded';
  const reason2 = 'DeadlineExceeded';
  it.each<[string, FailurePolicyRule, string, string, string, boolean]>([
    ['all replicatedJobs, all reasons', { name: 'r', action: 'FailJobSet' }, R1, reason1, '', true],
    [
      'all replicatedJobs, the reason',
      { name: 'r', action: 'x', onJobFailureReasons: [reason1] },
      R1,
      reason1,
      '',
      true,
    ],
    [
      'all replicatedJobs, not the reason',
      { name: 'r', action: 'x', onJobFailureReasons: [reason1] },
      R1,
      reason2,
      '',
      false,
    ],
    ['the parent, all reasons', { name: 'r', action: 'x', targetReplicatedJobs: [R1] }, R1, reason1, '', true],
    [
      'the parent and the reason',
      { name: 'r', action: 'x', targetReplicatedJobs: [R1], onJobFailureReasons: [reason1] },
      R1,
      reason1,
      '',
      true,
    ],
    [
      'the parent, not the reason',
      { name: 'r', action: 'x', targetReplicatedJobs: [R1], onJobFailureReasons: [reason1] },
      R1,
      reason2,
      '',
      false,
    ],
    ['not the parent, all reasons', { name: 'r', action: 'x', targetReplicatedJobs: [R1] }, R2, reason1, '', false],
    [
      'not the parent, the reason',
      { name: 'r', action: 'x', targetReplicatedJobs: [R1], onJobFailureReasons: [reason1] },
      R2,
      reason1,
      '',
      false,
    ],
    [
      'not the parent, not the reason',
      { name: 'r', action: 'x', targetReplicatedJobs: [R1], onJobFailureReasons: [reason1] },
      R2,
      reason2,
      '',
      false,
    ],
    [
      'the message pattern',
      { name: 'r', action: 'x', onJobFailureMessagePatterns: ['^job failed because.*'] },
      R1,
      '',
      'job failed because of a bug',
      true,
    ],
    [
      'not the message pattern',
      { name: 'r', action: 'x', onJobFailureMessagePatterns: ['^job failed because.*'] },
      R1,
      '',
      'another error message',
      false,
    ],
    [
      'reason and message pattern',
      { name: 'r', action: 'x', onJobFailureReasons: [reason1], onJobFailureMessagePatterns: ['.*bug.*'] },
      R1,
      reason1,
      'job failed because of a bug',
      true,
    ],
    [
      'reason but not the message pattern',
      { name: 'r', action: 'x', onJobFailureReasons: [reason1], onJobFailureMessagePatterns: ['.*bug.*'] },
      R1,
      reason1,
      'job failed due to something else',
      false,
    ],
  ])('%s', (_name, rule, rjob, reason, message, want) => {
    expect(isRuleApplicable(rule, job(rjob), reason, message)).toBe(want);
  });

  it('a Job without a replicatedjob-name label matches no rule', () => {
    const orphan = aChildJob('a', 0, { kind: 'failed' }, { labels: { 'jobset.sigs.k8s.io/replicatedjob-name': '' } });
    expect(isRuleApplicable({ name: 'r', action: 'x' }, orphan, 'r', 'm')).toBe(false);
  });

  it('an invalid pattern is skipped; another pattern of the rule can still match', () => {
    const rule = { name: 'r', action: 'x', onJobFailureMessagePatterns: ['(', 'bug'] };
    expect(isRuleApplicable(rule, job(R1), '', 'a bug')).toBe(true);
    expect(isRuleApplicable({ ...rule, onJobFailureMessagePatterns: ['('] }, job(R1), '', '(')).toBe(false);
  });
});

describe('findFirstFailedPolicyRuleAndJob', () => {
  const rule1: FailurePolicyRule = { name: 'rule1', action: 'FailJobSet', onJobFailureReasons: ['reason1'] };
  const rule2: FailurePolicyRule = { name: 'rule2', action: 'RestartJobSet', onJobFailureReasons: ['reason2'] };
  const rule3: FailurePolicyRule = { name: 'rule3', action: 'RestartJobSet', onJobFailureReasons: ['reason3'] };
  const job1 = failedAt('a', 0, -100, 'reason1');
  const job1Earlier = failedAt('a', 1, -200, 'reason1');
  const job2 = failedAt('a', 2, -100, 'reason2');
  const job3 = failedAt('a', 3, -100, 'reason3');
  it.each<[string, FailurePolicyRule[], Job[], FailurePolicyRule | undefined, Job | undefined]>([
    ['0 failed jobs, 0 rules', [], [], undefined, undefined],
    ['1 failed job, 0 rules', [], [job1], undefined, undefined],
    ['1 failed job, 1 rule not matching', [rule2], [job1], undefined, undefined],
    ['1 failed job matching the first of 3 rules', [rule1, rule2, rule3], [job1], rule1, job1],
    ['1 failed job matching the second of 3 rules', [rule1, rule2, rule3], [job2], rule2, job2],
    ['1 failed job matching the third of 3 rules', [rule1, rule2, rule3], [job3], rule3, job3],
    ['2 failed jobs, 0 rules', [], [job1, job1Earlier], undefined, undefined],
    ['2 failed jobs, 1 rule matching neither', [rule2], [job1, job1Earlier], undefined, undefined],
    ['2 failed jobs matching 1 rule: the earlier failure', [rule1], [job1, job1Earlier], rule1, job1Earlier],
    ['2 rules, the first matching: the earlier failure', [rule1, rule2], [job1, job1Earlier], rule1, job1Earlier],
    [
      'first rule wins even when a later rule matches an earlier failure',
      [rule1, rule2],
      [job1, failedAt('a', 5, -999, 'reason2')],
      rule1,
      job1,
    ],
  ])('%s', (_name, rules, failed, wantRule, wantJob) => {
    const got = firstMatchingRule(rules, failed);
    expect(got?.rule).toEqual(wantRule);
    expect(got?.job).toEqual(wantJob);
  });
});

describe('applyFailurePolicyRuleAction (upstream TestApplyFailurePolicyRuleAction)', () => {
  const matching = failedAt('rjob', 0, 0);
  const rjs = (jobRestarts: number[], counted: number[]) => ({
    name: 'rjob',
    ready: 0,
    succeeded: 0,
    failed: 0,
    active: 0,
    suspended: 0,
    jobRestarts,
    jobRestartsCountTowardsMax: counted,
  });
  type Case = [string, PlanOptions, JobSet, string, FailurePolicyRule | undefined, JobSetStatus];
  const withRjob = (max: number, status: JobSetStatus) =>
    aJobSet({ replicatedJobs: [aReplicatedJob('rjob', 1)], failurePolicy: { maxRestarts: max } }, status);
  it.each<Case>([
    [
      'FailJobSet action',
      {},
      aJobSet({ failurePolicy: {} }),
      'FailJobSet',
      undefined,
      {
        restarts: 0,
        terminalState: 'Failed',
        conditions: [{ type: 'Failed', status: 'True', reason: 'FailJobSetFailurePolicyAction' }],
      } as JobSetStatus,
    ],
    [
      'RestartJobSet when restarts < maxRestarts increments restarts count and counts towards max',
      { restartJob: true },
      aJobSet({ failurePolicy: { maxRestarts: 5 } }, { restarts: 1, restartsCountTowardsMax: 1 }),
      'RestartJobSet',
      undefined,
      {
        restarts: 2,
        restartsCountTowardsMax: 2,
        conditions: [{ type: 'RestartingJobSet', status: 'True', reason: 'DefaultFailurePolicy' }],
      } as JobSetStatus,
    ],
    [
      'RestartJobSet when restarts < maxRestarts with matching rule sets FailurePolicy_{RuleName} reason',
      { restartJob: true },
      aJobSet({ failurePolicy: { maxRestarts: 5 } }, { restarts: 1, restartsCountTowardsMax: 1 }),
      'RestartJobSet',
      { name: 'Rule1', action: 'RestartJobSet' },
      {
        restarts: 2,
        restartsCountTowardsMax: 2,
        conditions: [{ type: 'RestartingJobSet', status: 'True', reason: 'FailurePolicy_Rule1' }],
      } as JobSetStatus,
    ],
    [
      'RestartJobSet action when restarts >= maxRestarts fails the jobset',
      { restartJob: true },
      aJobSet({ failurePolicy: { maxRestarts: 2 } }, { restarts: 2, restartsCountTowardsMax: 2 }),
      'RestartJobSet',
      undefined,
      {
        restarts: 2,
        restartsCountTowardsMax: 2,
        terminalState: 'Failed',
        conditions: [{ type: 'Failed', status: 'True', reason: 'ReachedMaxRestarts' }],
      } as JobSetStatus,
    ],
    [
      'RestartJobSetAndIgnoreMaxRestarts action does not count toward max restarts',
      { restartJob: true },
      aJobSet({ failurePolicy: { maxRestarts: 1 } }, { restarts: 1, restartsCountTowardsMax: 1 }),
      'RestartJobSetAndIgnoreMaxRestarts',
      undefined,
      {
        restarts: 2,
        restartsCountTowardsMax: 1,
        conditions: [{ type: 'RestartingJobSet', status: 'True', reason: 'DefaultFailurePolicy' }],
      } as JobSetStatus,
    ],
    [
      'RestartJob action when combined restarts < maxRestarts increments jobRestart count and counts towards max',
      { restartJob: true },
      withRjob(5, { restarts: 0, restartsCountTowardsMax: 0, replicatedJobsStatus: [rjs([0], [0])] }),
      'RestartJob',
      undefined,
      { restarts: 0, restartsCountTowardsMax: 0, replicatedJobsStatus: [rjs([1], [1])] },
    ],
    [
      'RestartJob action when combined restarts >= maxRestarts fails the jobset',
      { restartJob: true },
      withRjob(2, { restarts: 1, restartsCountTowardsMax: 1, replicatedJobsStatus: [rjs([1], [1])] }),
      'RestartJob',
      undefined,
      {
        restarts: 1,
        restartsCountTowardsMax: 1,
        replicatedJobsStatus: [rjs([1], [1])],
        terminalState: 'Failed',
        conditions: [{ type: 'Failed', status: 'True', reason: 'ReachedMaxRestarts' }],
      } as JobSetStatus,
    ],
    [
      'RestartJobSet action when combined restarts >= maxRestarts and a previous individual restart fails the jobset',
      { restartJob: true },
      withRjob(2, { restarts: 1, restartsCountTowardsMax: 1, replicatedJobsStatus: [rjs([1], [1])] }),
      'RestartJobSet',
      undefined,
      {
        restarts: 1,
        restartsCountTowardsMax: 1,
        replicatedJobsStatus: [rjs([1], [1])],
        terminalState: 'Failed',
        conditions: [{ type: 'Failed', status: 'True', reason: 'ReachedMaxRestarts' }],
      } as JobSetStatus,
    ],
    [
      'RestartJobAndIgnoreMaxRestarts action does not count toward max restarts',
      { restartJob: true },
      withRjob(1, { restarts: 0, restartsCountTowardsMax: 0, replicatedJobsStatus: [rjs([1], [0])] }),
      'RestartJobAndIgnoreMaxRestarts',
      undefined,
      { restarts: 0, restartsCountTowardsMax: 0, replicatedJobsStatus: [rjs([2], [0])] },
    ],
  ])('%s', (_name, options, js, action, rule, want) => {
    const pass = startPass(js, NOW, options);
    applyFailurePolicyAction(pass, action, matching, rule);
    expect(pass.shouldUpdate).toBe(true);
    const conditions = (pass.js.status?.conditions ?? []).map(({ type, status, reason }) => ({ type, status, reason }));
    expect({ ...pass.js.status, conditions: conditions.length > 0 ? conditions : undefined }).toEqual({
      ...want,
      conditions: want.conditions,
    });
  });

  it('the messages and events of a restart and of reaching maxRestarts', () => {
    const pass = startPass(aJobSet({ failurePolicy: { maxRestarts: 1 } }), NOW, {});
    applyFailurePolicyAction(pass, 'RestartJobSet', matching, undefined);
    const message = 'applying RestartJobSet failure policy action (first failed job: test-jobset-rjob-0)';
    expect(pass.js.status?.conditions).toEqual([
      {
        type: 'RestartingJobSet',
        status: 'True',
        reason: 'DefaultFailurePolicy',
        message,
        lastTransitionTime: '2026-03-10T10:00:30Z',
      },
    ]);
    expect(pass.statusEvents.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Warning', 'DefaultFailurePolicy', message],
      ['Warning', 'RestartJobSetFailurePolicyAction', message],
    ]);

    const full = startPass(
      aJobSet({ failurePolicy: { maxRestarts: 1 } }, { restarts: 1, restartsCountTowardsMax: 1 }),
      NOW,
      {},
    );
    applyFailurePolicyAction(full, 'RestartJobSet', matching, undefined);
    expect(full.statusEvents.map((e) => [e.type, e.reason, e.message])).toEqual([
      [
        'Warning',
        'ReachedMaxRestarts',
        'jobset failed due to reaching max number of restarts (first failed job: test-jobset-rjob-0)',
      ],
    ]);
  });

  it('RestartJob actions with the RestartJob gate off, and an unknown action, fail the pass', () => {
    const js = aJobSet({ replicatedJobs: [aReplicatedJob('rjob', 1)], failurePolicy: { maxRestarts: 3 } });
    expect(() => applyFailurePolicyAction(startPass(js, NOW, {}), 'RestartJob', matching, undefined)).toThrow(
      'RestartJob failure policy action cannot be used when the feature gate RestartJob is disabled',
    );
    expect(() => applyFailurePolicyAction(startPass(js, NOW, {}), 'Nope', matching, undefined)).toThrow(
      'failed to find a corresponding action for the FailurePolicyRuleAction Nope',
    );
  });
});

describe('onJobFailureMessagePatterns as RE2', () => {
  it.each<[string, string, boolean | undefined]>([
    ['^job failed because.*', 'job failed because of a bug', true],
    ['bug', 'a bug here', true], // unanchored, as regexp.MatchString
    ['(?i)OOM', 'container oom killed', true],
    ['(?P<code>\\d+) exit', 'code 137 exit', true],
    ['\\Afoo\\z', 'foo', true],
    ['\\Afoo\\z', 'foo\n', false],
    ['[[:digit:]]+', 'exit 1', true],
    ['[[:upper:]]', 'abc', false],
    ['a\\sb', 'a\u00a0b', false], // RE2's \s is ASCII whitespace only
    ['a\\sb', 'a\tb', true],
    ['(?=x)', 'x', undefined], // lookahead: not RE2
    ['(a)\\1', 'aa', undefined], // backreference: not RE2
    ['(', 'x', undefined],
    ['(?:ab)+', 'abab', true],
    ['a.b', 'a\rb', true], // RE2's . stops only at \n
    ['a.b', 'a\nb', false],
    ['(?s)a.b', 'a\nb', true],
  ])('%s on %j', (pattern, text, want) => {
    expect(re2Matches(pattern, text)).toBe(want);
  });
});
