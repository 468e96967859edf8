import { describe, expect, it } from '@jest/globals';
import {
  indexesReadyNow,
  newIndexFailureCounts,
  remainingIndexBackoffMs,
} from '../../../../shared/controllers/job/per-index.js';
import { planJob } from '../../../../shared/controllers/job/plan.js';
import type { JobStatus, PodFailurePolicy } from '../../../../shared/controllers/job/types.js';
import {
  NOW,
  aJob,
  aPod,
  ago,
  conditionsOf,
  createdPods,
  eventsOf,
  observed,
  ofType,
  statusOf,
  type PodOptions,
} from './builders.js';

const COUNT = 'batch.kubernetes.io/job-index-failure-count';
const IGNORED = 'batch.kubernetes.io/job-index-ignored-failure-count';
const started = { startTime: ago(120) };
const failJobOn42: PodFailurePolicy = {
  rules: [
    { action: 'FailIndex', onExitCodes: { operator: 'In', values: [42] } },
    { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
  ],
};
const job = (status: JobStatus = {}, o: { max?: number; policy?: PodFailurePolicy } = {}) =>
  aJob({
    completions: 3,
    parallelism: 3,
    indexed: true,
    backoffLimitPerIndex: 1,
    ...(o.max !== undefined && { maxFailedIndexes: o.max }),
    ...(o.policy && { podFailurePolicy: o.policy }),
    status: { ...started, ...status },
  });
/** A pod of `index` whose earlier failures of the index are `count` (and `ignored`). */
const pod = (name: string, index: number, count: number, o: PodOptions & { ignored?: number } = {}) =>
  aPod(name, {
    index,
    ...o,
    annotations: { [COUNT]: String(count), ...(o.ignored !== undefined && { [IGNORED]: String(o.ignored) }) },
  });
const indexesOfCreated = (r: ReturnType<typeof planJob>) =>
  createdPods(r.actions).map((p) => [p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'], p]);

describe('backoffLimitPerIndex: the plan', () => {
  it('a new Job: every index created with failure count 0; failedIndexes written empty', () => {
    const r = planJob(observed(job({})), NOW);
    const created = createdPods(r.actions);
    expect(created.map((p) => p.metadata?.annotations)).toEqual(
      [0, 1, 2].map((ix) => ({ 'batch.kubernetes.io/job-completion-index': String(ix), [COUNT]: '0' })),
    );
    expect(statusOf(r.actions)).toMatchObject({ active: 3, failedIndexes: '', completedIndexes: '' });
  });

  it('a failed pod of an index with budget left keeps its finalizer and waits out its own backoff (10 s)', () => {
    const pods = [pod('a0', 0, 0), pod('a1', 1, 0, { phase: 'Failed', finishedAgo: 4 }), pod('a2', 2, 0)];
    const r = planJob(observed(job({ active: 3, failedIndexes: '' }), pods), NOW);
    expect(ofType(r.actions, 'create')).toEqual([]);
    expect(ofType(r.actions, 'patch')).toEqual([]); // finalizer kept: the replacement copies its count
    expect(r.requeueAfter).toBe(6_000);
    expect(statusOf(r.actions)).toMatchObject({ active: 2, failedIndexes: '', uncountedTerminatedPods: {} });
  });

  it('after the backoff the index is recreated with failure count 1; the failed pod is counted next', () => {
    const pods = [pod('a0', 0, 0), pod('a1', 1, 0, { phase: 'Failed', finishedAgo: 30 }), pod('a2', 2, 0)];
    const r = planJob(observed(job({ active: 2, failedIndexes: '' }), pods), NOW);
    const created = indexesOfCreated(r);
    expect(created.map(([ix]) => ix)).toEqual(['1']);
    expect(createdPods(r.actions)[0]?.metadata?.annotations?.[COUNT]).toBe('1');
    expect(ofType(r.actions, 'patch')).toEqual([]);
    // Next pass: index 1 is active again, so the failed pod is recorded (and then loses its finalizer).
    const next = [...pods, pod('b1', 1, 1)];
    const r2 = planJob(observed(job({ active: 3, failedIndexes: '' }), next), NOW);
    expect(statusOf(r2.actions)?.uncountedTerminatedPods).toEqual({ failed: ['uid-a1'] });
  });

  it('a counted failure with the budget spent fails the index: failedIndexes "1", never recreated', () => {
    const pods = [pod('a0', 0, 0), pod('b1', 1, 1, { phase: 'Failed', finishedAgo: 30 }), pod('a2', 2, 0)];
    const r = planJob(observed(job({ active: 3, failed: 1, failedIndexes: '' }), pods), NOW);
    expect(ofType(r.actions, 'create')).toEqual([]);
    expect(statusOf(r.actions)).toMatchObject({
      active: 2,
      failedIndexes: '1',
      uncountedTerminatedPods: { failed: ['uid-b1'] },
    });
    expect(conditionsOf(r.actions)).toEqual([]);
  });

  it('FailIndex: exit code 42 fails the index at once, whatever its budget', () => {
    const pods = [pod('a0', 0, 0), pod('a1', 1, 0, { phase: 'Failed', exitCode: 42 }), pod('a2', 2, 0)];
    const r = planJob(observed(job({ active: 3, failedIndexes: '' }, { policy: failJobOn42 }), pods), NOW);
    expect(ofType(r.actions, 'create')).toEqual([]);
    expect(statusOf(r.actions)).toMatchObject({ failedIndexes: '1', uncountedTerminatedPods: { failed: ['uid-a1'] } });
  });

  it('Ignore: the replacement carries the ignored count, the counted one unchanged', () => {
    const disrupted = { type: 'DisruptionTarget', status: 'True' as const };
    const pods = [
      pod('a0', 0, 0),
      pod('a1', 1, 1, { phase: 'Failed', conditions: [disrupted], finishedAgo: 60 }),
      pod('a2', 2, 0),
    ];
    const r = planJob(observed(job({ active: 2, failedIndexes: '' }, { policy: failJobOn42 }), pods), NOW);
    expect(
      createdPods(r.actions).map((p) => [p.metadata?.annotations?.[COUNT], p.metadata?.annotations?.[IGNORED]]),
    ).toEqual([['1', '1']]);
    expect(statusOf(r.actions)?.failedIndexes).toBe('');
  });

  it('maxFailedIndexes 0 and an index failed: FailureTarget MaxFailedIndexesExceeded, the rest deleted', () => {
    const pods = [pod('a0', 0, 0), pod('b1', 1, 1, { phase: 'Failed' }), pod('a2', 2, 0)];
    const r = planJob(observed(job({ active: 3, failedIndexes: '' }, { max: 0 }), pods), NOW);
    expect(statusOf(r.actions)?.conditions).toMatchObject([
      {
        type: 'FailureTarget',
        reason: 'MaxFailedIndexesExceeded',
        message: 'Job has exceeded the specified maximal number of failed indexes',
      },
    ]);
    expect(ofType(r.actions, 'delete').map((a) => a.type === 'delete' && a.target.name)).toEqual(['a0', 'a2']);
    expect(statusOf(r.actions)?.failedIndexes).toBe('1');
  });

  it('the pass after FailureTarget: a pod the finishing deleted does not fail its index', () => {
    const target = {
      type: 'FailureTarget',
      status: 'True' as const,
      reason: 'MaxFailedIndexesExceeded',
      message: 'Job has exceeded the specified maximal number of failed indexes',
    };
    const status: JobStatus = {
      active: 0,
      terminating: 1,
      failedIndexes: '0',
      conditions: [target],
      uncountedTerminatedPods: { failed: ['uid-a0', 'uid-a1'] },
    };
    const pods = [pod('a0', 0, 1, { phase: 'Failed' }), pod('a1', 1, 1, { deleting: true })]; // both budgets spent
    const r = planJob(observed(job(status, { max: 0 }), pods), NOW);
    expect(statusOf(r.actions)).toMatchObject({ failedIndexes: '0', failed: 2, uncountedTerminatedPods: {} });
    expect(ofType(r.actions, 'patch')).toHaveLength(2);
  });

  it('every index succeeded or failed, one failed: FailedIndexes, then Failed once all is counted', () => {
    const status: JobStatus = { active: 0, completedIndexes: '0,2', succeeded: 2, failedIndexes: '1', failed: 2 };
    const pods = [pod('b1', 1, 1, { phase: 'Failed', finalizer: false })];
    const r = planJob(observed(job(status), pods), NOW);
    expect(conditionsOf(r.actions)).toEqual(['FailureTarget/FailedIndexes', 'Failed/FailedIndexes']);
    expect(statusOf(r.actions)?.conditions?.[0]?.message).toBe('Job has failed indexes');
    expect(eventsOf(r.actions)).toEqual(['Warning FailedIndexes: Job has failed indexes']);
  });

  it('without backoffLimitPerIndex no failedIndexes is written and the global backoffLimit applies', () => {
    const j = aJob({ completions: 2, parallelism: 2, indexed: true, backoffLimit: 0, status: started });
    const r = planJob(observed(j, [aPod('a0', { index: 0, phase: 'Failed' }), aPod('a1', { index: 1 })]), NOW);
    expect(statusOf(r.actions)?.failedIndexes).toBeUndefined();
    expect(conditionsOf(r.actions)).toEqual(['FailureTarget/BackoffLimitExceeded']);
  });
});

describe('backoffLimitPerIndex: helpers', () => {
  it.each([
    { name: 'no failed pod: no wait', pod: undefined, want: 0 },
    { name: 'first failure 4 s ago: 6 s', pod: pod('x', 0, 0, { phase: 'Failed', finishedAgo: 4 }), want: 6_000 },
    {
      name: 'third failure (1 counted, 1 ignored before) 25 s ago: 40 s − 25 s',
      pod: pod('x', 0, 1, { phase: 'Failed', finishedAgo: 25, ignored: 1 }),
      want: 15_000,
    },
    {
      name: 'a huge count caps at 10 minutes',
      pod: pod('x', 0, 50, { phase: 'Failed', finishedAgo: 0 }),
      want: 600_000,
    },
  ])('remaining index backoff: $name', ({ pod: p, want }) => {
    expect(remainingIndexBackoffMs(p, NOW)).toBe(want);
  });

  it('only the indexes whose backoff has passed are created; else the shortest wait', () => {
    const waiting = new Map([
      [1, pod('x', 1, 0, { phase: 'Failed', finishedAgo: 4 })],
      [2, pod('y', 2, 0, { phase: 'Failed', finishedAgo: 8 })],
    ]);
    expect(indexesReadyNow([0, 1, 2], waiting, NOW)).toEqual({ indexes: [0], remainingMs: 0 });
    expect(indexesReadyNow([1, 2], waiting, NOW)).toEqual({ indexes: [], remainingMs: 2_000 });
  });

  it.each([
    { name: 'a first pod', replaced: undefined, want: { counted: 0, ignored: 0 } },
    {
      name: 'bad annotation counts as 0',
      replaced: aPod('x', { index: 0, phase: 'Failed', annotations: { [COUNT]: 'x' } }),
      want: { counted: 1, ignored: 0 },
    },
    {
      name: 'a counted failure',
      replaced: pod('x', 0, 2, { phase: 'Failed', ignored: 3 }),
      want: { counted: 3, ignored: 3 },
    },
  ])('new index failure counts: $name', ({ replaced, want }) => {
    expect(newIndexFailureCounts(job(), replaced)).toEqual(want);
  });
});
