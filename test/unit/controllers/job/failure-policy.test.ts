import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../../../shared/kube/api/objects.js';
import { failJobMatch, matchPodFailurePolicy } from '../../../../shared/controllers/job/failure-policy.js';
import { planJob } from '../../../../shared/controllers/job/plan.js';
import type { Job, JobStatus, PodFailurePolicy } from '../../../../shared/controllers/job/types.js';
import type { Action } from '../../../../shared/kube/actions.js';
import { plannedEvents } from '../../../../shared/kube/actions.js';
import { NOW, NS, aJob, aPod, ago, observed, wire } from './builders.js';

const DISRUPTED = { type: 'DisruptionTarget', status: 'True' as const, reason: 'EvictionByEvictionAPI' };
const onExit = (action: string, operator: string, values: number[], containerName?: string) => ({
  action,
  onExitCodes: { operator, values, ...(containerName !== undefined && { containerName }) },
});
const onCondition = (action: string, type = 'DisruptionTarget', status?: string) => ({
  action,
  onPodConditions: [{ type, ...(status !== undefined && { status }) }],
});
/** A failed pod with an app container `c` and, when given, an init container `init` terminated with its code. */
const failed = (exitCode: number, o: { init?: number; running?: boolean; conditions?: (typeof DISRUPTED)[] } = {}) => {
  const pod = aPod('p', { phase: 'Failed', exitCode, ...(o.conditions && { conditions: o.conditions }) });
  if (o.running) pod.status!.containerStatuses![0]!.state = { running: {} };
  if (o.init !== undefined) {
    pod.status!.initContainerStatuses = [
      {
        name: 'init',
        image: 'i',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: o.init } },
      },
    ];
  }
  return pod;
};

describe('matchPodFailurePolicy', () => {
  const cases: { name: string; policy: PodFailurePolicy | undefined; pod: Pod; want: object }[] = [
    { name: 'no policy: counted', policy: undefined, pod: failed(1), want: { countFailed: true } },
    {
      name: 'FailJob on exit code In: upstream message with container, pod, code and rule index',
      policy: { rules: [onExit('FailJob', 'In', [42])] },
      pod: failed(42),
      want: {
        countFailed: true,
        action: 'FailJob',
        ruleIndex: 0,
        failJobMessage: `Container c for pod ${NS}/p failed with exit code 42 matching FailJob rule at index 0`,
      },
    },
    {
      name: 'exit code not listed: no rule, counted',
      policy: { rules: [onExit('FailJob', 'In', [42])] },
      pod: failed(3),
      want: { countFailed: true },
    },
    {
      name: 'NotIn matches a code outside the list',
      policy: { rules: [onExit('Count', 'NotIn', [1, 2])] },
      pod: failed(3),
      want: { countFailed: true, action: 'Count', ruleIndex: 0 },
    },
    {
      name: 'NotIn never matches exit code 0',
      policy: { rules: [onExit('FailJob', 'NotIn', [1])] },
      pod: failed(0),
      want: { countFailed: true },
    },
    {
      name: 'containerName names another container: no match',
      policy: { rules: [onExit('FailJob', 'In', [42], 'other')] },
      pod: failed(42),
      want: { countFailed: true },
    },
    {
      name: 'an init container matches when the app container is still running',
      policy: { rules: [onExit('FailJob', 'In', [7], 'init')] },
      pod: failed(1, { init: 7, running: true }),
      want: {
        countFailed: true,
        action: 'FailJob',
        ruleIndex: 0,
        failJobMessage: `Container init for pod ${NS}/p failed with exit code 7 matching FailJob rule at index 0`,
      },
    },
    {
      name: 'Ignore on DisruptionTarget: not counted',
      policy: { rules: [onCondition('Ignore')] },
      pod: failed(137, { conditions: [DISRUPTED] }),
      want: { countFailed: false, action: 'Ignore', ruleIndex: 0 },
    },
    {
      name: 'a pattern with status False does not match a True condition',
      policy: { rules: [onCondition('Ignore', 'DisruptionTarget', 'False')] },
      pod: failed(137, { conditions: [DISRUPTED] }),
      want: { countFailed: true },
    },
    {
      name: 'FailJob on a pod condition: upstream message',
      policy: { rules: [onExit('Ignore', 'In', [5]), onCondition('FailJob')] },
      pod: failed(137, { conditions: [DISRUPTED] }),
      want: {
        countFailed: true,
        action: 'FailJob',
        ruleIndex: 1,
        failJobMessage: `Pod ${NS}/p has condition DisruptionTarget matching FailJob rule at index 1`,
      },
    },
    {
      name: 'the first matching rule wins',
      policy: { rules: [onCondition('Ignore'), onExit('FailJob', 'In', [137])] },
      pod: failed(137, { conditions: [DISRUPTED] }),
      want: { countFailed: false, action: 'Ignore', ruleIndex: 0 },
    },
    {
      name: 'a rule with an unknown action is skipped',
      policy: { rules: [onExit('RestartPod', 'In', [3]), onExit('FailIndex', 'In', [3])] },
      pod: failed(3),
      want: { countFailed: true, action: 'FailIndex', ruleIndex: 1 },
    },
    {
      name: 'an unknown operator matches nothing',
      policy: { rules: [onExit('FailJob', 'Between', [3])] },
      pod: failed(3),
      want: { countFailed: true },
    },
  ];
  it.each(cases)('$name', ({ policy, pod, want }) => {
    expect(matchPodFailurePolicy(policy, pod)).toEqual(want);
  });

  it('getFailJobMessage: a terminating pod (podReplacementPolicy Failed) is not failed yet', () => {
    const job = aJob({ podFailurePolicy: { rules: [onCondition('FailJob')] } });
    const terminating = aPod('t', { deleting: true, conditions: [DISRUPTED] });
    expect(failJobMatch(job, [terminating])).toBeUndefined();
    const done = aPod('t', { phase: 'Failed', deleting: true, conditions: [DISRUPTED] });
    expect(failJobMatch(job, [done])?.ruleIndex).toBe(0);
  });
});

const statusOf = (actions: readonly Action[]): JobStatus | undefined => {
  const a = actions.find((x) => x.type === 'updateStatus');
  return a?.type === 'updateStatus' ? (a.object as Job).status : undefined;
};
const ofType = (actions: readonly Action[], type: Action['type']) => actions.filter((a) => a.type === type);
const started = { startTime: ago(60) };

describe('Job planner: podFailurePolicy', () => {
  const policy: PodFailurePolicy = {
    rules: [onExit('FailJob', 'In', [42]), onCondition('Ignore'), onExit('Count', 'In', [3])],
  };
  const job = (status: JobStatus = {}) =>
    aJob({
      completions: 2,
      parallelism: 2,
      backoffLimit: 1,
      podFailurePolicy: policy,
      status: { ...started, ...status },
    });

  it('FailJob: FailureTarget PodFailurePolicy with the message, the other pod deleted, then Failed', () => {
    const pods = [aPod('bad', { phase: 'Failed', exitCode: 42 }), aPod('run', { ready: true })];
    const r = planJob(observed(job({ active: 2 }), pods), NOW);
    const message = `Container c for pod ${NS}/bad failed with exit code 42 matching FailJob rule at index 0`;
    expect(ofType(r.actions, 'delete')).toMatchObject([{ target: { name: 'run' } }]);
    const s = statusOf(r.actions)!;
    expect(s.conditions).toEqual([
      {
        type: 'FailureTarget',
        status: 'True',
        reason: 'PodFailurePolicy',
        message,
        lastProbeTime: wire(),
        lastTransitionTime: wire(),
      },
    ]);
    expect(s).toMatchObject({ active: 0, terminating: 1, uncountedTerminatedPods: { failed: ['uid-bad', 'uid-run'] } });
    // Once every pod is counted and gone: Failed with the same reason and message, and the Warning.
    const last = job({ ...s, uncountedTerminatedPods: {}, failed: 2, terminating: 0, active: 0 });
    const r2 = planJob(observed(last, [aPod('bad', { phase: 'Failed', exitCode: 42, finalizer: false })]), NOW);
    expect(statusOf(r2.actions)?.conditions?.map((c) => `${c.type}/${c.reason}`)).toEqual([
      'FailureTarget/PodFailurePolicy',
      'Failed/PodFailurePolicy',
    ]);
    expect(plannedEvents(r2.actions).map((e) => `${e.type} ${e.reason}: ${e.message}`)).toEqual([
      `Warning PodFailurePolicy: ${message}`,
    ]);
  });

  it('Ignore: not counted toward backoffLimit, finalizer removed at once, a replacement after the backoff', () => {
    const pods = [
      aPod('a', { phase: 'Failed', exitCode: 137, conditions: [DISRUPTED], finishedAgo: 30 }),
      aPod('b', { phase: 'Failed', exitCode: 137, conditions: [DISRUPTED], finishedAgo: 30 }),
    ];
    const r = planJob(observed(job({ active: 0 }), pods), NOW);
    expect(statusOf(r.actions)?.conditions ?? []).toEqual([]);
    expect(ofType(r.actions, 'patch').map((a) => a.type === 'patch' && a.target.name)).toEqual(['a', 'b']);
    expect(statusOf(r.actions)).toMatchObject({ failed: 0, uncountedTerminatedPods: {} });
    // Two failures 30 s ago still grow the re-creation backoff (kubernetes/kubernetes#130881): 20 s, passed → create.
    expect(ofType(r.actions, 'create')).toHaveLength(2);
  });

  it('Count: counted like no rule; two counted failures exceed backoffLimit 1', () => {
    const pods = [aPod('a', { phase: 'Failed', exitCode: 3 }), aPod('b', { phase: 'Failed', exitCode: 3 })];
    const r = planJob(observed(job({ active: 0 }), pods), NOW);
    expect(statusOf(r.actions)?.conditions).toMatchObject([{ type: 'FailureTarget', reason: 'BackoffLimitExceeded' }]);
    expect(statusOf(r.actions)).toMatchObject({ uncountedTerminatedPods: { failed: ['uid-a', 'uid-b'] } });
  });

  it('a pod being deleted is not failed until its phase is (podReplacementPolicy defaults to Failed)', () => {
    const pods = [aPod('gone', { deleting: true }), aPod('run')];
    const r = planJob(observed(job({ active: 2 }), pods), NOW);
    expect(ofType(r.actions, 'create')).toHaveLength(0); // the terminating pod is not replaced yet
    expect(statusOf(r.actions)).toMatchObject({ active: 1, terminating: 1 });
    expect(statusOf(r.actions)?.uncountedTerminatedPods ?? {}).toEqual({});
  });
});
