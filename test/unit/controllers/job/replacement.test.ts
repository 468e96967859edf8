import { describe, expect, it } from '@jest/globals';
import { onlyReplaceFailedPods, podReplacementPolicyOf } from '../../../../shared/controllers/job/job-pods.js';
import { planJob } from '../../../../shared/controllers/job/plan.js';
import type { JobStatus } from '../../../../shared/controllers/job/types.js';
import { NOW, aJob, aPod, ago, createdPods, observed, ofType, statusOf } from './builders.js';

const started = { startTime: ago(120) };

describe('podReplacementPolicy: defaults as the apiserver sets them', () => {
  it.each([
    { name: 'no podFailurePolicy: TerminatingOrFailed', job: aJob(), want: 'TerminatingOrFailed' },
    { name: 'with a podFailurePolicy: Failed', job: aJob({ podFailurePolicy: { rules: [] } }), want: 'Failed' },
    {
      name: 'explicit TerminatingOrFailed is kept',
      job: aJob({ podReplacementPolicy: 'TerminatingOrFailed' }),
      want: 'TerminatingOrFailed',
    },
  ])('$name', ({ job, want }) => {
    expect(podReplacementPolicyOf(job)).toBe(want);
    expect(onlyReplaceFailedPods(job)).toBe(want === 'Failed');
  });
});

describe('Job planner: podReplacementPolicy and status.terminating', () => {
  const job = (policy: 'Failed' | 'TerminatingOrFailed', status: JobStatus, indexed = false) =>
    aJob({
      completions: 3,
      parallelism: 2,
      podReplacementPolicy: policy,
      ...(indexed && { indexed: true }),
      status: { ...started, ...status },
    });

  it('TerminatingOrFailed: a pod being deleted counts as failed at once, and is replaced after the backoff', () => {
    const pods = [aPod('gone', { deleting: true }), aPod('run')];
    const r = planJob(observed(job('TerminatingOrFailed', { active: 2 }), pods), NOW);
    expect(statusOf(r.actions)).toMatchObject({
      active: 1,
      terminating: 1,
      uncountedTerminatedPods: { failed: ['uid-gone'] },
    });
    // Its finish time is its deletionTimestamp (1 s ago): the 10 s backoff holds the replacement back 9 s.
    expect(ofType(r.actions, 'create')).toEqual([]);
    expect(r.requeueAfter).toBe(0); // the recorded pod's finalizer goes in the next pass
  });

  it('Failed: a pod being deleted is neither counted nor replaced; status.terminating counts it', () => {
    const pods = [aPod('gone', { deleting: true }), aPod('run')];
    const r = planJob(observed(job('Failed', { active: 2 }), pods), NOW);
    expect(ofType(r.actions, 'create')).toEqual([]);
    expect(statusOf(r.actions)).toMatchObject({ active: 1, terminating: 1, failed: 0, uncountedTerminatedPods: {} });
  });

  it('Failed: once the terminating pod is Failed it is counted and, after the backoff, replaced', () => {
    const pods = [aPod('gone', { deleting: true, phase: 'Failed', finishedAgo: 30 }), aPod('run')];
    const r = planJob(observed(job('Failed', { active: 1, terminating: 1 }), pods), NOW);
    expect(statusOf(r.actions)).toMatchObject({ active: 2, uncountedTerminatedPods: { failed: ['uid-gone'] } });
    expect(createdPods(r.actions)).toHaveLength(1);
  });

  it('Failed, Indexed: the terminating pod keeps its index; only the free index is created', () => {
    const pods = [aPod('p0', { index: 0, deleting: true })];
    const r = planJob(observed(job('Failed', { active: 1 }, true), pods), NOW);
    expect(
      createdPods(r.actions).map((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']),
    ).toEqual(['1']);
    expect(statusOf(r.actions)).toMatchObject({ active: 1, terminating: 1 });
  });

  it('TerminatingOrFailed, Indexed: the terminating pod does not hold its index', () => {
    const pods = [aPod('p0', { index: 0, deleting: true, phase: 'Failed', finishedAgo: 60, finalizer: false })];
    const r = planJob(observed(job('TerminatingOrFailed', { active: 0, failed: 1 }, true), pods), NOW);
    expect(
      createdPods(r.actions).map((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']),
    ).toEqual(['0', '1']);
  });
});
