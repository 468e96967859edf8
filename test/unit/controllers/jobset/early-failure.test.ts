// The opt-in restart on a child Job's FailureTarget (early-failure.ts): with the annotation, a Job the Job
// controller has decided to fail (FailureTarget=True, its pods still terminating) fails the attempt at once, with
// the reason the failure policy's rules match on; without it, the planner waits for Failed as upstream does.
import { describe, expect, it } from '@jest/globals';
import { plannedEvents } from '../../../../shared/kube/actions.js';
import { RESTART_ON_FAILURE_TARGET, withEarlyFailures } from '../../../../shared/controllers/jobset/early-failure.js';
import { planJobSet } from '../../../../shared/controllers/jobset/plan.js';
import type { FailurePolicyRule, Job, JobSet } from '../../../../shared/controllers/jobset/types.js';
import { aChildJob, aJobSet, aReplicatedJob, at, NOW, observed } from './builders.js';

const OPT_IN = { annotations: { [RESTART_ON_FAILURE_TARGET]: 'true' } };

function jobSet(meta: Partial<JobSet['metadata']> = {}, rules?: FailurePolicyRule[]): JobSet {
  return aJobSet(
    { replicatedJobs: [aReplicatedJob('a', 2)], failurePolicy: { maxRestarts: 3, ...(rules && { rules }) } },
    {},
    meta,
  );
}

/** A Job the Job controller has decided to fail: FailureTarget=True, pods still terminating, no Failed yet. */
function failing(index: number, reason = 'BackoffLimitExceeded'): Job {
  const job = aChildJob('a', index, { kind: 'active', active: 0 });
  const target = {
    type: 'FailureTarget',
    status: 'True' as const,
    reason,
    message: 'Job has reached the specified backoff limit',
    lastTransitionTime: at(-3),
  };
  return { ...job, status: { ...job.status, terminating: 3, conditions: [target] } };
}

function planned(js: JobSet, jobs: Job[]) {
  const { actions } = planJobSet(observed(js, jobs), NOW);
  const write = actions.find((a) => a.type === 'updateStatus' && a.object.kind === 'JobSet');
  const status = write?.type === 'updateStatus' ? (write.object as JobSet).status : undefined;
  return {
    restarts: status?.restarts ?? js.status?.restarts ?? 0,
    conditions: (status?.conditions ?? []).map((c) => `${c.type}=${c.status}:${c.reason}`),
    events: plannedEvents(actions).map((e) => e.reason),
  };
}

describe('restart on FailureTarget (opt-in)', () => {
  it('without the annotation: a Job with only FailureTarget is still running, as upstream sees it', () => {
    expect(planned(jobSet(), [failing(0), aChildJob('a', 1)])).toMatchObject({ restarts: 0, conditions: [] });
  });

  it('with it: the attempt fails at once and the JobSet restarts, as it would on Failed', () => {
    const early = planned(jobSet(OPT_IN), [failing(0), aChildJob('a', 1)]);
    expect(early).toMatchObject({ restarts: 1, conditions: ['RestartingJobSet=True:DefaultFailurePolicy'] });
    const onFailed = planned(jobSet(), [aChildJob('a', 0, { kind: 'failed' }), aChildJob('a', 1)]);
    expect(early).toEqual(onFailed);
  });

  it("rules match the FailureTarget's reason (the reason Failed will carry)", () => {
    const rules: FailurePolicyRule[] = [
      { name: 'fatal', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy'] },
    ];
    expect(planned(jobSet(OPT_IN, rules), [failing(0, 'PodFailurePolicy')]).conditions).toEqual([
      'Failed=True:FailJobSetFailurePolicyAction',
    ]);
  });

  it('any value but "true" is upstream behaviour; a finished Job is left as it is', () => {
    const other = jobSet({ annotations: { [RESTART_ON_FAILURE_TARGET]: 'yes' } });
    expect(planned(other, [failing(0)]).restarts).toBe(0);
    const complete = aChildJob('a', 0, { kind: 'succeeded' });
    expect(withEarlyFailures(jobSet(OPT_IN), [complete])).toEqual([complete]);
    const failed = withEarlyFailures(jobSet(OPT_IN), [failing(1)])[0];
    expect(failed?.status?.conditions?.map((c) => `${c.type}:${c.reason}:${c.lastTransitionTime}`)).toEqual([
      `FailureTarget:BackoffLimitExceeded:${at(-3)}`,
      `Failed:BackoffLimitExceeded:${at(-3)}`,
    ]);
  });
});
