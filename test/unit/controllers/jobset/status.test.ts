// Conditions and replicatedJobsStatus, from upstream's TestUpdateConditions and TestCalculateReplicatedJobStatuses
// (jobset_controller_test.go, v0.12.0), and the label indexes of TestGlobalJobIndex, TestGlobalReplicas,
// TestGroupJobIndex and TestGroupReplicas.
import { describe, expect, it } from '@jest/globals';
import type { ChildJobs } from '../../../../shared/controllers/jobset/child-jobs.js';
import {
  globalJobIndex,
  globalReplicas,
  groupJobIndex,
  groupReplicas,
  jobHashKey,
} from '../../../../shared/controllers/jobset/labels.js';
import { replicatedJobStatuses, updateCondition } from '../../../../shared/controllers/jobset/status.js';
import type { Condition, Job } from '../../../../shared/controllers/jobset/types.js';
import { aChildJob, aJobSet, aReplicatedJob, at, cond, NOW } from './builders.js';

const none = (): ChildJobs => ({ active: [], successful: [], failed: [], previous: [] });

describe('updateCondition (upstream TestUpdateConditions)', () => {
  const change = (type: string, status: 'True' | 'False', reason: string, message: string) => ({
    eventType: 'Normal' as const,
    condition: { type, status, reason, message },
  });
  const completed = change('Completed', 'True', 'AllJobsCompleted', 'jobset completed successfully');
  it('no existing conditions, add a condition', () => {
    const js = aJobSet();
    expect(updateCondition(js, completed, NOW)).toBe(true);
    expect(js.status?.conditions).toEqual([{ ...completed.condition, lastTransitionTime: '2026-03-10T10:00:30Z' }]);
  });
  it('suspended', () => {
    expect(updateCondition(aJobSet(), change('Suspended', 'True', 'SuspendedJobs', 'jobset is suspended'), NOW)).toBe(
      true,
    );
  });
  it('a False condition that does not exist is not added', () => {
    const js = aJobSet();
    expect(updateCondition(js, change('Suspended', 'False', 'ResumeJobs', 'jobset is resumed'), NOW)).toBe(false);
    expect(js.status?.conditions).toBeUndefined();
  });
  it('resume (update suspended condition type in-place)', () => {
    const js = aJobSet({}, { conditions: [cond('Suspended', 'True', 'SuspendedJobs', 'jobset is suspended')] });
    expect(updateCondition(js, change('Suspended', 'False', 'ResumeJobs', 'jobset is resumed'), NOW)).toBe(true);
    expect(js.status?.conditions).toEqual([
      {
        type: 'Suspended',
        status: 'False',
        reason: 'ResumeJobs',
        message: 'jobset is resumed',
        lastTransitionTime: at(0),
      },
    ]);
  });
  it('existing conditions, attempt to add duplicate', () => {
    const js = aJobSet(
      {},
      { conditions: [cond('Completed', 'True', 'AllJobsCompleted', 'jobset completed successfully')] },
    );
    expect(updateCondition(js, completed, NOW)).toBe(false);
  });
  it('existing conditions, update reason/message but keep status same: the transition time stays', () => {
    const js = aJobSet({}, { conditions: [cond('RestartingJobSet', 'True', 'DefaultFailurePolicy', 'old message')] });
    expect(updateCondition(js, change('RestartingJobSet', 'True', 'NewReason', 'new message'), NOW)).toBe(true);
    expect(js.status?.conditions).toEqual([
      {
        type: 'RestartingJobSet',
        status: 'True',
        reason: 'NewReason',
        message: 'new message',
        lastTransitionTime: at(-100),
      },
    ]);
  });
  it('StartupPolicyCompleted turns StartupPolicyInProgress False', () => {
    const js = aJobSet({}, { conditions: [cond('StartupPolicyInProgress', 'True', 'InOrderStartupPolicyInProgress')] });
    updateCondition(js, change('StartupPolicyCompleted', 'True', 'InOrderStartupPolicyCompleted', 'm'), NOW);
    expect((js.status?.conditions ?? []).map((c: Condition) => [c.type, c.status])).toEqual([
      ['StartupPolicyInProgress', 'False'],
      ['StartupPolicyCompleted', 'True'],
    ]);
  });
});

describe('calculateReplicatedJobStatuses (upstream TestCalculateReplicatedJobStatuses)', () => {
  const sized = (job: Job, p: number, c: number | undefined, ready: number, succeeded: number, active = 0): Job => ({
    ...job,
    spec: { ...job.spec, parallelism: p, ...(c === undefined ? { completions: undefined } : { completions: c }) },
    status: { ...job.status, ready, succeeded, active },
  });
  const js = aJobSet({
    replicatedJobs: [aReplicatedJob('replicated-job-1', 1), aReplicatedJob('replicated-job-2', 3)],
  });
  const zero = { ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0 };

  it('partial jobs are ready, no succeeded jobs (written by name, descending)', () => {
    const active = [
      sized(aChildJob('replicated-job-1', 0), 1, 2, 1, 1),
      sized(aChildJob('replicated-job-2', 0), 5, undefined, 2, 3),
      sized(aChildJob('replicated-job-2', 1), 3, 2, 1, 1),
      sized(aChildJob('replicated-job-2', 2), 2, 3, 2, 1),
      sized(aChildJob('replicated-job-2', 3), 4, 5, 2, 1),
    ];
    expect(replicatedJobStatuses(js, { ...none(), active }, {})).toEqual([
      { name: 'replicated-job-2', ...zero, ready: 3 },
      { name: 'replicated-job-1', ...zero, ready: 1 },
    ]);
  });
  it('no jobs created', () => {
    expect(replicatedJobStatuses(js, none(), {})).toEqual([
      { name: 'replicated-job-2', ...zero },
      { name: 'replicated-job-1', ...zero },
    ]);
  });
  it('no ready jobs, only succeeded and failed jobs', () => {
    const owned = {
      ...none(),
      successful: [aChildJob('replicated-job-1', 0, { kind: 'succeeded' })],
      failed: [
        aChildJob('replicated-job-2', 0, { kind: 'failed' }),
        aChildJob('replicated-job-2', 1, { kind: 'failed' }),
      ],
    };
    expect(replicatedJobStatuses(js, owned, {})).toEqual([
      { name: 'replicated-job-2', ...zero, failed: 2 },
      { name: 'replicated-job-1', ...zero, succeeded: 1 },
    ]);
  });
  it('active and suspended jobs', () => {
    const active = [
      aChildJob('replicated-job-2', 0, { kind: 'active', active: 1 }),
      aChildJob('replicated-job-2', 1, { kind: 'active', suspended: true }),
    ];
    expect(replicatedJobStatuses(js, { ...none(), active }, {})).toEqual([
      { name: 'replicated-job-2', ...zero, active: 1, suspended: 1 },
      { name: 'replicated-job-1', ...zero },
    ]);
  });
  it('a Job of an unknown replicatedJob is not counted; with RestartJob the per-Job counts are kept', () => {
    const withRestarts = aJobSet(
      { replicatedJobs: [aReplicatedJob('replicated-job-1', 2)] },
      {
        replicatedJobsStatus: [
          { name: 'replicated-job-1', ...zero, jobRestarts: [1, 0], jobRestartsCountTowardsMax: [1, 0] },
        ],
      },
    );
    const owned = { ...none(), active: [aChildJob('other', 0, { kind: 'active', ready: 1 })] };
    expect(replicatedJobStatuses(withRestarts, owned, { restartJob: true })).toEqual([
      { name: 'replicated-job-1', ...zero, jobRestarts: [1, 0], jobRestartsCountTowardsMax: [1, 0] },
    ]);
    expect(replicatedJobStatuses(withRestarts, owned, {})).toEqual([{ name: 'replicated-job-1', ...zero }]);
  });
});

describe('label indexes (upstream TestGlobalJobIndex, TestGlobalReplicas, TestGroupJobIndex, TestGroupReplicas)', () => {
  const multi = aJobSet({
    replicatedJobs: [
      aReplicatedJob('rjob-1', 2, { groupName: 'g1' }),
      aReplicatedJob('rjob-2', 4, { groupName: 'g2' }),
      aReplicatedJob('rjob-3', 3, { groupName: 'g1' }),
    ],
  });
  it('globalJobIndex', () => {
    expect(globalJobIndex(aJobSet({ replicatedJobs: [aReplicatedJob('rjob', 4)] }), 'rjob', 3)).toBe('3');
    expect(globalJobIndex(multi, 'rjob-3', 1)).toBe('7');
    expect(globalJobIndex(multi, 'missing', 0)).toBe('');
  });
  it('globalReplicas', () => {
    expect(globalReplicas(aJobSet({ replicatedJobs: [] }))).toBe('0');
    expect(globalReplicas(multi)).toBe('9');
  });
  it('groupJobIndex', () => {
    expect(groupJobIndex(multi, 'g1', 'rjob-3', 1)).toBe('3');
    expect(groupJobIndex(multi, 'g2', 'rjob-2', 2)).toBe('2');
    expect(groupJobIndex(multi, 'g1', 'rjob-2', 0)).toBe(''); // not in that group
    expect(groupJobIndex(multi, 'nope', 'rjob-1', 0)).toBe('');
  });
  it('groupReplicas', () => {
    expect(groupReplicas(multi, 'g1')).toBe('5');
    expect(groupReplicas(multi, 'g2')).toBe('4');
    expect(groupReplicas(multi, 'nope')).toBe('0');
  });
  it('job-key is the hex SHA-1 of namespace/name, as upstream', () => {
    expect(jobHashKey('default', 'test-jobset-replicated-job-0')).toBe('027791c2c0a79daacbc05ab1512c28988581229f');
  });
});
