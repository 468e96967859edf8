import { describe, expect, it } from '@jest/globals';
import type { Action } from '../../../../shared/kube/actions.js';
import { plannedEvents } from '../../../../shared/kube/actions.js';
import { planJob } from '../../../../shared/controllers/job/plan.js';
import type { Job, JobStatus } from '../../../../shared/controllers/job/types.js';
import { FINALIZER, JOB_UID, LABELS, NOW, NS, aJob, aPod, ago, jobRef, observed, wire } from './builders.js';

const statusOf = (actions: readonly Action[]): JobStatus | undefined => {
  const a = actions.find((x) => x.type === 'updateStatus');
  return a?.type === 'updateStatus' ? (a.object as Job).status : undefined;
};
const ofType = (actions: readonly Action[], type: Action['type']) => actions.filter((a) => a.type === type);
const reasons = (actions: readonly Action[]) =>
  plannedEvents(actions).map((e) => `${e.type} ${e.reason}: ${e.message}`);
const removeFinalizer = (name: string) => ({
  type: 'patch',
  target: { kind: 'Pod', namespace: NS, name },
  patch: { metadata: { '$deleteFromPrimitiveList/finalizers': [FINALIZER], uid: `uid-${name}` } },
  reason: 'RemoveTrackingFinalizer',
  ignore: ['NotFound', 'Invalid'],
});
const del = (name: string) => ({ type: 'delete', target: { kind: 'Pod', namespace: NS, name }, uid: `uid-${name}` });
const started = { startTime: ago(60) };

describe('Job planner: creating pods', () => {
  it('a new NonIndexed Job creates min(parallelism, completions) pods and starts', () => {
    const r = planJob(observed(aJob({ completions: 3, parallelism: 2 })), NOW);
    expect(ofType(r.actions, 'create')).toHaveLength(2);
    expect(ofType(r.actions, 'create')[0]).toMatchObject({
      object: {
        metadata: {
          generateName: 'pi-',
          namespace: NS,
          labels: LABELS,
          finalizers: [FINALIZER],
          ownerReferences: [jobRef],
        },
        spec: { restartPolicy: 'Never' },
      },
      events: { onSuccess: [{ reason: 'SuccessfulCreate', message: 'Created pod: ', detail: 'createdName' }] },
    });
    expect(statusOf(r.actions)).toEqual({
      startTime: wire(),
      active: 2,
      ready: 0,
      terminating: 0,
      succeeded: 0,
      failed: 0,
      uncountedTerminatedPods: {},
    });
    expect(r.requeueAfter).toBeUndefined();
  });

  it('an Indexed Job creates the lowest pending indexes, with index annotation, label, hostname and env', () => {
    const job = aJob({ completions: 4, parallelism: 2, indexed: true, status: { ...started, completedIndexes: '0' } });
    const r = planJob(observed(job, [aPod('pi-2', { index: 2, phase: 'Running' })]), NOW);
    const creates = ofType(r.actions, 'create');
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({
      object: {
        metadata: {
          generateName: 'pi-1-',
          labels: { ...LABELS, 'batch.kubernetes.io/job-completion-index': '1' },
          annotations: { 'batch.kubernetes.io/job-completion-index': '1' },
        },
        spec: {
          hostname: 'pi-1',
          containers: [
            {
              env: [
                {
                  name: 'JOB_COMPLETION_INDEX',
                  valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } },
                },
              ],
            },
          ],
        },
      },
    });
    expect(statusOf(r.actions)).toMatchObject({ active: 2, succeeded: 1, completedIndexes: '0' });
  });

  it('nil completions: parallelism pods until one succeeds, then no more', () => {
    const job = aJob({ completions: undefined, parallelism: 3, status: started });
    expect(ofType(planJob(observed(job), NOW).actions, 'create')).toHaveLength(3);
    const status: JobStatus = { ...started, succeeded: 1, active: 1 };
    const r = planJob(observed(aJob({ completions: undefined, parallelism: 3, status }), [aPod('a')]), NOW);
    expect(ofType(r.actions, 'create')).toHaveLength(0);
  });

  it('waits out the re-creation backoff: one failure 4 s ago leaves 6 s', () => {
    const status: JobStatus = { ...started, failed: 1, active: 0 };
    const job = aJob({ completions: 1, status });
    const r = planJob(observed(job, [aPod('f', { phase: 'Failed', finishedAgo: 4, finalizer: false })]), NOW);
    expect(ofType(r.actions, 'create')).toHaveLength(0);
    expect(r.requeueAfter).toBe(6000);
  });

  it('deletes surplus pods (finalizer first), pending before running', () => {
    const job = aJob({ completions: 5, parallelism: 1, status: { ...started, active: 2 } });
    const r = planJob(observed(job, [aPod('run', { node: 'n' }), aPod('pend', { phase: 'Pending' })]), NOW);
    expect(r.actions).toMatchObject([removeFinalizer('pend'), del('pend'), { type: 'updateStatus' }]);
    expect(reasons(r.actions)).toEqual(['Normal SuccessfulDelete: Deleted pod: pend']);
    expect(statusOf(r.actions)).toMatchObject({ active: 1, terminating: 1 });
  });

  it('an Indexed Job deletes a duplicated index', () => {
    const job = aJob({ completions: 2, parallelism: 2, indexed: true, status: started });
    const pods = [aPod('a', { index: 0, ready: true }), aPod('b', { index: 0 }), aPod('c', { index: 1 })];
    const r = planJob(observed(job, pods), NOW);
    expect(ofType(r.actions, 'delete')).toMatchObject([del('b')]);
    expect(ofType(r.actions, 'create')).toHaveLength(0);
  });
});

describe('Job planner: pod tracking (uncounted, then finalizer, then counter)', () => {
  const job = (status: JobStatus) => aJob({ completions: 3, parallelism: 2, status: { ...started, ...status } });

  it('a newly succeeded pod is recorded first; its finalizer stays', () => {
    const r = planJob(observed(job({ active: 2 }), [aPod('s', { phase: 'Succeeded' }), aPod('r')]), NOW);
    expect(ofType(r.actions, 'patch')).toHaveLength(0);
    expect(statusOf(r.actions)).toMatchObject({ succeeded: 0, uncountedTerminatedPods: { succeeded: ['uid-s'] } });
    expect(r.requeueAfter).toBe(0);
  });

  it('a recorded pod loses its finalizer and is counted in the same status write', () => {
    const status = { active: 2, ready: 0, terminating: 0, uncountedTerminatedPods: { succeeded: ['uid-s'] } };
    const r = planJob(observed(job(status), [aPod('s', { phase: 'Succeeded' }), aPod('r')]), NOW);
    expect(ofType(r.actions, 'patch')).toEqual([removeFinalizer('s')]);
    expect(statusOf(r.actions)).toMatchObject({ succeeded: 1, uncountedTerminatedPods: {} });
  });

  it('the handler died after the patch: the recorded uid without finalizer is counted once', () => {
    const status = { active: 1, ready: 0, terminating: 0, uncountedTerminatedPods: { succeeded: ['uid-s'] } };
    const pods = [aPod('s', { phase: 'Succeeded', finalizer: false }), aPod('r')];
    const r = planJob(observed(job(status), pods), NOW);
    expect(ofType(r.actions, 'patch')).toHaveLength(0);
    expect(statusOf(r.actions)).toMatchObject({ succeeded: 1, uncountedTerminatedPods: {} });
    // ...and a pass that sees the counted pod again does not count it twice.
    const again = planJob(observed(job({ ...status, succeeded: 1, uncountedTerminatedPods: {} }), pods), NOW);
    expect(statusOf(again.actions)?.succeeded ?? 1).toBe(1);
  });

  it('a recorded pod that is gone is counted', () => {
    const status = { active: 0, ready: 0, terminating: 0, uncountedTerminatedPods: { failed: ['uid-gone'] } };
    const r = planJob(observed(job(status)), NOW);
    expect(statusOf(r.actions)).toMatchObject({ failed: 1, uncountedTerminatedPods: {} });
  });

  it('Indexed: the index is the record; a succeeded pod whose index is recorded loses its finalizer', () => {
    const ij = (s: JobStatus) => aJob({ completions: 2, parallelism: 2, indexed: true, status: { ...started, ...s } });
    const pods = [aPod('a', { index: 0, phase: 'Succeeded' }), aPod('b', { index: 1 })];
    const first = planJob(observed(ij({ active: 2 }), pods), NOW);
    expect(ofType(first.actions, 'patch')).toHaveLength(0);
    expect(statusOf(first.actions)).toMatchObject({ completedIndexes: '0', succeeded: 1 });
    const second = planJob(
      observed(ij({ active: 1, ready: 0, terminating: 0, completedIndexes: '0', succeeded: 1 }), pods),
      NOW,
    );
    expect(ofType(second.actions, 'patch')).toEqual([removeFinalizer('a')]);
  });
});

describe('Job planner: finishing', () => {
  it('completions reached: SuccessCriteriaMet, then Complete once nothing is uncounted', () => {
    const pods = [aPod('a', { phase: 'Succeeded', finalizer: false })];
    const status: JobStatus = {
      ...started,
      succeeded: 0,
      active: 0,
      uncountedTerminatedPods: { succeeded: ['uid-a'] },
    };
    const r = planJob(observed(aJob({ completions: 1, status }), pods), NOW);
    const s = statusOf(r.actions);
    expect(s?.conditions).toEqual([
      {
        type: 'SuccessCriteriaMet',
        status: 'True',
        reason: 'CompletionsReached',
        message: 'Reached expected number of succeeded pods',
        lastProbeTime: wire(),
        lastTransitionTime: wire(),
      },
      {
        type: 'Complete',
        status: 'True',
        reason: 'CompletionsReached',
        message: 'Reached expected number of succeeded pods',
        lastProbeTime: wire(),
        lastTransitionTime: wire(),
      },
    ]);
    expect(s).toMatchObject({ succeeded: 1, completionTime: wire(), uncountedTerminatedPods: {} });
    expect(reasons(r.actions)).toEqual(['Normal Completed: Job completed']);
  });

  it('completions reached with a finalizer left: SuccessCriteriaMet first, no finalizer removed in that pass', () => {
    const pods = [aPod('a', { phase: 'Succeeded' })];
    const status: JobStatus = { ...started, active: 0, uncountedTerminatedPods: { succeeded: ['uid-a'] } };
    const r = planJob(observed(aJob({ completions: 1, status }), pods), NOW);
    expect(ofType(r.actions, 'patch')).toHaveLength(0);
    expect(statusOf(r.actions)?.conditions?.map((c) => c.type)).toEqual(['SuccessCriteriaMet']);
    expect(r.requeueAfter).toBe(0);
  });

  it('backoffLimit exceeded: FailureTarget, active pods deleted and counted failed; Failed when all are gone', () => {
    const job = aJob({ completions: 3, parallelism: 2, backoffLimit: 0, status: { ...started, active: 1 } });
    const pods = [aPod('f', { phase: 'Failed' }), aPod('r', { ready: true })];
    const r = planJob(observed(job, pods), NOW);
    expect(ofType(r.actions, 'delete')).toMatchObject([del('r')]);
    expect(ofType(r.actions, 'patch')).toHaveLength(0);
    const s = statusOf(r.actions);
    expect(s?.conditions).toMatchObject([
      { type: 'FailureTarget', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
    ]);
    expect(s).toMatchObject({
      active: 0,
      ready: 0,
      terminating: 1,
      uncountedTerminatedPods: { failed: ['uid-f', 'uid-r'] },
    });

    // Next pass: the finalizers go and the counts move; the deleted pod still terminates.
    const target = s!.conditions![0]!;
    const next = aJob({
      ...{ completions: 3, parallelism: 2, backoffLimit: 0 },
      status: { ...s!, conditions: [target] },
    });
    const r2 = planJob(observed(next, [aPod('f', { phase: 'Failed' }), aPod('r', { deleting: true })]), NOW);
    expect(ofType(r2.actions, 'patch')).toEqual([removeFinalizer('f'), removeFinalizer('r')]);
    expect(statusOf(r2.actions)).toMatchObject({ failed: 2, terminating: 1, uncountedTerminatedPods: {} });
    expect(statusOf(r2.actions)?.conditions?.map((c) => c.type)).toEqual(['FailureTarget']);

    // Then: nothing terminates any more: Failed, with its Warning event.
    const last = aJob({ completions: 3, parallelism: 2, backoffLimit: 0, status: { ...statusOf(r2.actions)! } });
    const r3 = planJob(observed(last, [aPod('f', { phase: 'Failed', finalizer: false })]), NOW);
    expect(statusOf(r3.actions)?.conditions?.map((c) => `${c.type}/${c.reason}`)).toEqual([
      'FailureTarget/BackoffLimitExceeded',
      'Failed/BackoffLimitExceeded',
    ]);
    expect(statusOf(r3.actions)).toMatchObject({ terminating: 0, failed: 2 });
    expect(statusOf(r3.actions)?.completionTime).toBeUndefined();
    expect(reasons(r3.actions)).toEqual(['Warning BackoffLimitExceeded: Job has reached the specified backoff limit']);
  });

  it('activeDeadlineSeconds: looks again at the deadline, then DeadlineExceeded', () => {
    const before = planJob(
      observed(aJob({ activeDeadlineSeconds: 100, status: { ...started, active: 1 } }), [aPod('r')]),
      NOW,
    );
    expect(before.requeueAfter).toBe(40_000);
    const r = planJob(
      observed(aJob({ activeDeadlineSeconds: 60, status: { ...started, active: 1 } }), [aPod('r')]),
      NOW,
    );
    expect(ofType(r.actions, 'delete')).toMatchObject([del('r')]);
    expect(statusOf(r.actions)?.conditions).toMatchObject([
      { type: 'FailureTarget', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
    ]);
  });

  it('a finished Job only removes finalizers left behind', () => {
    const status: JobStatus = { ...started, conditions: [{ type: 'Complete', status: 'True' }] };
    const r = planJob(observed(aJob({ status }), [aPod('a', { phase: 'Succeeded' })]), NOW);
    expect(r.actions).toEqual([removeFinalizer('a')]);
  });
});

describe('Job planner: suspend and resume', () => {
  it('suspend deletes active pods without counting them, sets Suspended and drops startTime', () => {
    const job = aJob({ completions: 3, parallelism: 2, suspend: true, status: { ...started, active: 1 } });
    const r = planJob(observed(job, [aPod('r')]), NOW);
    expect(r.actions.slice(0, 2)).toMatchObject([removeFinalizer('r'), del('r')]);
    const s = statusOf(r.actions);
    expect(s?.startTime).toBeUndefined();
    expect(s?.conditions).toMatchObject([
      { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' },
    ]);
    expect(s).toMatchObject({ active: 0, terminating: 1 });
    expect(reasons(r.actions)).toEqual(['Normal SuccessfulDelete: Deleted pod: r', 'Normal Suspended: Job suspended']);
  });

  it('resume sets Suspended False, restarts startTime and creates pods', () => {
    const conditions = [
      { type: 'Suspended', status: 'True' as const, reason: 'JobSuspended', message: 'Job suspended' },
    ];
    const r = planJob(observed(aJob({ completions: 3, parallelism: 2, suspend: false, status: { conditions } })), NOW);
    expect(ofType(r.actions, 'create')).toHaveLength(2);
    const s = statusOf(r.actions);
    expect(s?.startTime).toBe(wire());
    expect(s?.conditions).toMatchObject([
      { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed' },
    ]);
    expect(reasons(r.actions)).toContain('Normal Resumed: Job resumed');
  });

  it('a Job created suspended has no startTime and creates nothing', () => {
    const r = planJob(observed(aJob({ suspend: true })), NOW);
    expect(ofType(r.actions, 'create')).toHaveLength(0);
    expect(statusOf(r.actions)?.startTime).toBeUndefined();
  });
});

describe('Job planner: ownership', () => {
  it('adopts a selected orphan by patch, adding the tracking finalizer, and does only that', () => {
    const r = planJob(observed(aJob({ status: started }), [aPod('o', { orphan: true, finalizer: false })]), NOW);
    expect(r).toEqual({
      actions: [
        {
          type: 'patch',
          target: { kind: 'Pod', namespace: NS, name: 'o' },
          patch: { metadata: { ownerReferences: [jobRef], finalizers: [FINALIZER], uid: 'uid-o' } },
          reason: 'AdoptPod',
          ignore: ['NotFound'],
        },
      ],
      requeueAfter: 0,
    });
  });

  it('does not adopt when the uncached recheck finds the Job gone', () => {
    const r = planJob(observed(aJob(), [aPod('o', { orphan: true })], { adoptionRecheck: null }), NOW);
    expect(r).toEqual({ actions: [], requeueAfter: 0 });
  });

  it('releases a pod it no longer selects, removing the finalizer', () => {
    const r = planJob(observed(aJob({ status: started }), [aPod('x', { labels: { other: 'x' } })]), NOW);
    expect(r.actions).toEqual([
      {
        type: 'patch',
        target: { kind: 'Pod', namespace: NS, name: 'x' },
        patch: {
          metadata: {
            ownerReferences: [{ $patch: 'delete', uid: JOB_UID }],
            '$deleteFromPrimitiveList/finalizers': [FINALIZER],
            uid: 'uid-x',
          },
        },
        reason: 'ReleasePod',
        ignore: ['NotFound', 'Invalid'],
      },
    ]);
  });

  it('a gone Job: pods still naming it lose the tracking finalizer', () => {
    expect(planJob(observed(null, [aPod('a', { phase: 'Succeeded' })]), NOW).actions).toEqual([removeFinalizer('a')]);
  });

  it('a Job created again under its name: the replaced Job’s pods lose the tracking finalizer, beside the sync', () => {
    const replaced = { ...aPod('old-0', { deleting: true }) };
    replaced.metadata = { ...replaced.metadata, ownerReferences: [{ ...jobRef, uid: 'uid-replaced-job' }] };
    const r = planJob(observed(aJob({ parallelism: 1, completions: 1 }), [], { replacedJobPods: [replaced] }), NOW);
    expect(r.actions[0]).toEqual(removeFinalizer('old-0'));
    expect(r.actions.filter((a) => a.type === 'create')).toHaveLength(1);
    const managedElsewhere = aJob({ managedBy: 'kueue.x-k8s.io/multikueue' });
    expect(planJob(observed(managedElsewhere, [], { replacedJobPods: [replaced] }), NOW).actions).toEqual([
      removeFinalizer('old-0'),
    ]);
  });

  it('a Job managed by another controller is left alone', () => {
    expect(planJob(observed(aJob({ managedBy: 'kueue.x-k8s.io/multikueue' })), NOW)).toEqual({ actions: [] });
    expect(
      ofType(planJob(observed(aJob({ managedBy: 'fleetq.dev/job-controller' })), NOW).actions, 'create'),
    ).toHaveLength(1);
  });

  it('an unknown completion mode records a Warning and does nothing else', () => {
    const job = aJob();
    job.spec.completionMode = 'Sideways';
    expect(reasons(planJob(observed(job), NOW).actions)).toEqual([
      'Warning UnknownCompletionMode: Skipped Job sync because completion mode is unknown',
    ]);
  });
});
