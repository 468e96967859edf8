// Success policy, startup policy and dependsOn, TTL after finished: upstream's success_policy_test.go,
// startup_policy_test.go, depends_on_test.go and ttl_after_finished_test.go (v0.12.0), case for case.
import { describe, expect, it } from '@jest/globals';
import {
  allReplicasStarted,
  dependencyReachedStatus,
  isInOrderStartup,
} from '../../../../shared/controllers/jobset/startup-policy.js';
import {
  jobMatchesSuccessPolicy,
  numJobsExpectedToSucceed,
  numJobsMatchingSuccessPolicy,
  replicatedJobMatchesSuccessPolicy,
} from '../../../../shared/controllers/jobset/success-policy.js';
import { finishTimeMs, ttlAfterFinished } from '../../../../shared/controllers/jobset/ttl-after-finished.js';
import type { ReplicatedJobStatus } from '../../../../shared/controllers/jobset/types.js';
import { aChildJob, aJobSet, aReplicatedJob, at, cond, NOW } from './builders.js';

describe('success policy (upstream success_policy_test.go)', () => {
  const js = (operator: string, targets?: string[]) =>
    aJobSet({
      successPolicy: { operator, ...(targets && { targetReplicatedJobs: targets }) },
      replicatedJobs: [aReplicatedJob('a', 2), aReplicatedJob('b', 3)],
    });
  it('jobMatchesSuccessPolicy: no targets match every Job; targets match their own', () => {
    expect(jobMatchesSuccessPolicy(js('All'), aChildJob('a', 0))).toBe(true);
    expect(jobMatchesSuccessPolicy(js('All', ['a']), aChildJob('a', 0))).toBe(true);
    expect(jobMatchesSuccessPolicy(js('All', ['a']), aChildJob('b', 0))).toBe(false);
  });
  it('replicatedJobMatchesSuccessPolicy', () => {
    expect(replicatedJobMatchesSuccessPolicy(js('All'), aReplicatedJob('b'))).toBe(true);
    expect(replicatedJobMatchesSuccessPolicy(js('All', ['a']), aReplicatedJob('b'))).toBe(false);
  });
  it('numJobsMatchingSuccessPolicy', () => {
    const jobs = [aChildJob('a', 0), aChildJob('a', 1), aChildJob('b', 0)];
    expect(numJobsMatchingSuccessPolicy(js('All'), jobs)).toBe(3);
    expect(numJobsMatchingSuccessPolicy(js('All', ['a']), jobs)).toBe(2);
    expect(numJobsMatchingSuccessPolicy(js('All', ['c']), jobs)).toBe(0);
  });
  it.each([
    ['Any', undefined, 1],
    ['Any', ['b'], 1],
    ['All', undefined, 5],
    ['All', ['a'], 2],
    ['All', ['b'], 3],
  ] as const)('numJobsExpectedToSucceed %s %j → %d', (op, targets, want) => {
    expect(numJobsExpectedToSucceed(js(op, targets ? [...targets] : undefined))).toBe(want);
  });
});

describe('startup policy (upstream startup_policy_test.go)', () => {
  it('inOrderStartupPolicy', () => {
    expect(isInOrderStartup(aJobSet())).toBe(false);
    expect(isInOrderStartup(aJobSet({ startupPolicy: { startupPolicyOrder: 'AnyOrder' } }))).toBe(false);
    expect(isInOrderStartup(aJobSet({ startupPolicy: { startupPolicyOrder: 'InOrder' } }))).toBe(true);
  });
  const st = (ready: number, succeeded: number, failed: number): ReplicatedJobStatus => ({
    name: 'x',
    ready,
    succeeded,
    failed,
    active: 0,
    suspended: 0,
  });
  it.each([
    ['all replicas ready', 2, st(2, 0, 0), true],
    ['ready, succeeded and failed add up', 3, st(1, 1, 1), true],
    ['one not started', 2, st(1, 0, 0), false],
  ] as const)('allReplicasStarted: %s', (_n, replicas, status, want) => {
    expect(allReplicasStarted(replicas, status)).toBe(want);
  });
});

describe('dependsOn (upstream TestDependencyReachedStatus)', () => {
  const MI = 'model-initializer';
  const DI = 'dataset-initializer';
  const trainer = (status: 'Ready' | 'Complete', deps = [MI, DI]) =>
    aReplicatedJob('trainer', 1, { dependsOn: deps.map((name) => ({ name, status })) });
  const st = (name: string, ready: number, succeeded: number, failed: number): ReplicatedJobStatus => ({
    name,
    ready,
    succeeded,
    failed,
    active: 0,
    suspended: 0,
  });
  const replicas = (n: number) =>
    new Map([
      [MI, n],
      [DI, n],
      ['trainer', 1],
    ]);
  it.each<[string, ReturnType<typeof trainer>, Map<string, number>, ReplicatedJobStatus[], boolean]>([
    ["ReplicatedJob doesn't have any dependencies", aReplicatedJob('trainer'), replicas(1), [], true],
    ['status for ReplicatedJob is nil', trainer('Complete', [MI]), replicas(1), [st(DI, 0, 1, 0)], false],
    ['rJobStatuses is nil', trainer('Complete', [MI]), replicas(1), [], false],
    [
      'depends on ReplicatedJob reaches complete status',
      trainer('Complete'),
      replicas(2),
      [st(MI, 0, 2, 0), st(DI, 0, 2, 0)],
      true,
    ],
    [
      "one depends on ReplicatedJob doesn't reach complete status",
      trainer('Complete'),
      replicas(2),
      [st(MI, 1, 1, 0), st(DI, 0, 2, 0)],
      false,
    ],
    [
      "two depends on ReplicatedJob doesn't reach complete status",
      trainer('Complete'),
      replicas(2),
      [st(MI, 1, 1, 0), st(DI, 1, 1, 0)],
      false,
    ],
    [
      'depends on ReplicatedJob reaches ready status',
      trainer('Ready'),
      replicas(3),
      [st(MI, 1, 1, 1), st(DI, 1, 1, 1)],
      true,
    ],
    [
      "one depends on ReplicatedJob doesn't reach ready status",
      trainer('Ready'),
      replicas(3),
      [st(MI, 2, 0, 0), st(DI, 1, 1, 1)],
      false,
    ],
    [
      "two depends on ReplicatedJobs doesn't reach ready status",
      trainer('Ready'),
      replicas(3),
      [st(MI, 2, 0, 0), st(DI, 2, 0, 0)],
      false,
    ],
  ])('%s', (_name, rjob, reps, statuses, want) => {
    expect(dependencyReachedStatus(rjob, reps, statuses)).toBe(want);
  });
});

describe('TTL after finished (upstream ttl_after_finished_test.go)', () => {
  const finished = (secondsAgo: number, ttl?: number, type = 'Completed') =>
    aJobSet(
      { ...(ttl !== undefined && { ttlSecondsAfterFinished: ttl }) },
      { conditions: [{ ...cond(type, 'True', 'AllJobsCompleted'), lastTransitionTime: at(-secondsAgo) }] },
    );
  // upstream TestExecuteTTLAfterFinishedPolicy
  it.each<[string, number | undefined, number | null, { expired: boolean; requeueAfter?: number } | 'error']>([
    ['jobset not finished, TTL not set', undefined, null, { expired: false }],
    ['jobset not finished, TTL 5s', 5, null, 'error'],
    ['jobset completed now, TTL is not set', undefined, 0, { expired: false }],
    ['jobset completed 10s ago, TTL 5s', 5, 10, { expired: true }],
    ['jobset completed 2s ago, TTL 5s', 5, 2, { expired: false, requeueAfter: 3000 }],
  ])('%s', (_name, ttl, ago, want) => {
    const js = ago === null ? aJobSet(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }) : finished(ago, ttl);
    if (want === 'error')
      expect(() => ttlAfterFinished(js, NOW)).toThrow('unable to find the status of the finished JobSet');
    else expect(ttlAfterFinished(js, NOW)).toEqual(want);
  });
  it('no TTL: nothing to do', () => {
    expect(ttlAfterFinished(finished(100), NOW)).toEqual({ expired: false });
  });
  it('TTL expired: delete (Completed and Failed alike, and at exactly the TTL)', () => {
    expect(ttlAfterFinished(finished(100, 10), NOW)).toEqual({ expired: true });
    expect(ttlAfterFinished(finished(100, 10, 'Failed'), NOW)).toEqual({ expired: true });
    expect(ttlAfterFinished(finished(10, 10), NOW)).toEqual({ expired: true });
  });
  it('TTL not expired: requeue for the time left', () => {
    expect(ttlAfterFinished(finished(10, 100), NOW)).toEqual({ expired: false, requeueAfter: 90_000 });
  });
  it('a JobSet being deleted is not expired', () => {
    const js = finished(100, 10);
    js.metadata.deletionTimestamp = at(-1);
    expect(ttlAfterFinished(js, NOW)).toEqual({ expired: false });
  });
  it('a finished condition without a time, or no finished condition, is an error', () => {
    const js = finished(100, 10);
    delete js.status?.conditions?.[0]?.lastTransitionTime;
    expect(() => finishTimeMs(js)).toThrow('unable to find the time when the JobSet default/test-jobset finished');
    expect(() => finishTimeMs(aJobSet({}, {}))).toThrow('unable to find the status of the finished JobSet');
  });
});
