import { describe, expect, it } from '@jest/globals';
import { parseIntervals } from '../../../../shared/controllers/job/intervals.js';
import { planJob } from '../../../../shared/controllers/job/plan.js';
import { matchSuccessPolicy } from '../../../../shared/controllers/job/success-policy.js';
import type { JobStatus, SuccessPolicy } from '../../../../shared/controllers/job/types.js';
import { NOW, aJob, aPod, ago, conditionsOf, eventsOf, observed, ofType, statusOf, wire } from './builders.js';

describe('matchSuccessPolicy', () => {
  it.each([
    { name: 'no policy', policy: undefined, succeeded: '0-4', want: undefined },
    { name: 'nothing succeeded yet', policy: { rules: [{ succeededCount: 0 }] }, succeeded: '', want: undefined },
    {
      name: 'succeededIndexes all done',
      policy: { rules: [{ succeededIndexes: '0,2-3' }] },
      succeeded: '0-3',
      want: 'Matched rules at index 0',
    },
    {
      name: 'succeededIndexes one missing',
      policy: { rules: [{ succeededIndexes: '0,2-3' }] },
      succeeded: '0,2',
      want: undefined,
    },
    {
      name: 'succeededIndexes with succeededCount: enough of them',
      policy: { rules: [{ succeededIndexes: '1-4', succeededCount: 2 }] },
      succeeded: '0,2,4',
      want: 'Matched rules at index 0',
    },
    {
      name: 'succeededIndexes with succeededCount: indexes outside the list do not count',
      policy: { rules: [{ succeededIndexes: '1-2', succeededCount: 2 }] },
      succeeded: '0,2-4',
      want: undefined,
    },
    {
      name: 'succeededCount alone',
      policy: { rules: [{ succeededIndexes: '4' }, { succeededCount: 3 }] },
      succeeded: '0-1,3',
      want: 'Matched rules at index 1',
    },
    {
      name: 'a rule whose indexes parse to nothing is skipped',
      policy: { rules: [{ succeededIndexes: '9' }, { succeededIndexes: '0' }] },
      succeeded: '0',
      want: 'Matched rules at index 1',
    },
  ] as { name: string; policy: SuccessPolicy | undefined; succeeded: string; want: string | undefined }[])(
    '$name',
    ({ policy, succeeded, want }) => {
      expect(matchSuccessPolicy(policy, 5, parseIntervals(succeeded, 5))).toBe(want);
    },
  );
});

describe('Job planner: successPolicy', () => {
  const job = (policy: SuccessPolicy, status: JobStatus) =>
    aJob({
      completions: 4,
      parallelism: 4,
      indexed: true,
      successPolicy: policy,
      status: { startTime: ago(60), ...status },
    });

  it('index 0 succeeded (the leader): SuccessCriteriaMet SuccessPolicy, the other pods deleted keeping finalizers', () => {
    const pods = [
      aPod('p0', { index: 0, phase: 'Succeeded' }),
      aPod('p1', { index: 1, ready: true }),
      aPod('p2', { index: 2 }),
      aPod('p3', { index: 3 }),
    ];
    const r = planJob(observed(job({ rules: [{ succeededIndexes: '0' }] }, { active: 4 }), pods), NOW);
    expect(ofType(r.actions, 'delete').map((a) => a.type === 'delete' && a.target.name)).toEqual(['p1', 'p2', 'p3']);
    expect(ofType(r.actions, 'patch')).toEqual([]);
    expect(ofType(r.actions, 'create')).toEqual([]);
    expect(statusOf(r.actions)).toMatchObject({
      active: 0,
      ready: 0,
      terminating: 3,
      completedIndexes: '0',
      succeeded: 1,
      conditions: [
        {
          type: 'SuccessCriteriaMet',
          status: 'True',
          reason: 'SuccessPolicy',
          message: 'Matched rules at index 0',
          lastTransitionTime: wire(),
        },
      ],
    });
    expect(r.requeueAfter).toBe(0);
  });

  it('SuccessCriteriaMet stands; Complete follows once nothing terminates, with reason SuccessPolicy', () => {
    const met = {
      type: 'SuccessCriteriaMet',
      status: 'True' as const,
      reason: 'SuccessPolicy',
      message: 'Matched rules at index 0',
    };
    const status: JobStatus = {
      active: 0,
      ready: 0,
      terminating: 0,
      completedIndexes: '0',
      succeeded: 1,
      conditions: [met],
    };
    const r = planJob(
      observed(job({ rules: [{ succeededIndexes: '0' }] }, status), [
        aPod('p0', { index: 0, phase: 'Succeeded', finalizer: false }),
      ]),
      NOW,
    );
    expect(conditionsOf(r.actions)).toEqual(['SuccessCriteriaMet/SuccessPolicy', 'Complete/SuccessPolicy']);
    expect(statusOf(r.actions)?.completionTime).toBe(wire());
    expect(eventsOf(r.actions)).toEqual(['Normal Completed: Job completed']);
  });

  it('the pass after SuccessCriteriaMet: the pods it deleted lose their finalizers uncounted (not failed)', () => {
    const met = {
      type: 'SuccessCriteriaMet',
      status: 'True' as const,
      reason: 'SuccessPolicy',
      message: 'Matched rules at index 0',
    };
    const status: JobStatus = { active: 0, terminating: 2, completedIndexes: '0', succeeded: 1, conditions: [met] };
    const pods = [
      aPod('p0', { index: 0, phase: 'Succeeded', finalizer: false }),
      aPod('p1', { index: 1, deleting: true }),
      aPod('p2', { index: 2, deleting: true }),
    ];
    const r = planJob(observed(job({ rules: [{ succeededIndexes: '0' }] }, status), pods), NOW);
    expect(ofType(r.actions, 'patch').map((a) => a.type === 'patch' && a.target.name)).toEqual(['p1', 'p2']);
    expect(statusOf(r.actions)).toMatchObject({ succeeded: 1, failed: 0, terminating: 2, uncountedTerminatedPods: {} });
    expect(conditionsOf(r.actions)).toEqual(['SuccessCriteriaMet/SuccessPolicy']);
  });

  it('succeededCount 2 reached by indexes 1 and 3', () => {
    const pods = [
      aPod('p0', { index: 0 }),
      aPod('p1', { index: 1, phase: 'Succeeded' }),
      aPod('p2', { index: 2 }),
      aPod('p3', { index: 3, phase: 'Succeeded' }),
    ];
    const r = planJob(observed(job({ rules: [{ succeededCount: 2 }] }, { active: 2 }), pods), NOW);
    expect(conditionsOf(r.actions)).toEqual(['SuccessCriteriaMet/SuccessPolicy']);
    expect(statusOf(r.actions)).toMatchObject({ completedIndexes: '1,3', succeeded: 2 });
  });

  it('not met: the Job keeps running', () => {
    const pods = [
      aPod('p0', { index: 0 }),
      aPod('p1', { index: 1, phase: 'Succeeded' }),
      aPod('p2', { index: 2 }),
      aPod('p3', { index: 3 }),
    ];
    const r = planJob(observed(job({ rules: [{ succeededIndexes: '0-1' }] }, { active: 4 }), pods), NOW);
    expect(conditionsOf(r.actions)).toEqual([]);
    expect(ofType(r.actions, 'delete')).toEqual([]);
  });
});
