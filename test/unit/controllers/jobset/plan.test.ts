// The JobSet planner end to end (Reconcile of jobset_controller.go, v0.12.0): the actions and the status one pass
// plans for a JobSet and its Jobs, in the situations upstream's controller and integration tests drive it through.
import { describe, expect, it } from '@jest/globals';
import { plannedEvents, type Action } from '../../../../shared/kube/actions.js';
import { planJobSet } from '../../../../shared/controllers/jobset/plan.js';
import type { Job, JobSet, PlanOptions } from '../../../../shared/controllers/jobset/types.js';
import { aChildJob, aJobSet, aReplicatedJob, at, cond, NOW, observed } from './builders.js';

const plan = (js: JobSet | null, jobs: Job[] = [], o: { service?: null | object; options?: PlanOptions } = {}) =>
  planJobSet(observed(js, jobs, o.service === undefined ? undefined : (o.service as never)), NOW, o.options ?? {});

const creates = (actions: readonly Action[]) =>
  actions.flatMap((a) => (a.type === 'create' ? [`${a.object.kind}/${a.object.metadata?.name}`] : []));
const deletes = (actions: readonly Action[]) =>
  actions.flatMap((a) =>
    a.type === 'delete' ? [`${a.target.kind}/${a.target.name}:${a.propagationPolicy ?? 'Background'}`] : [],
  );
const updates = (actions: readonly Action[]) =>
  actions.flatMap((a) => (a.type === 'update' ? [a.object] : [])) as Job[];
const status = (actions: readonly Action[]) => {
  const writes = actions.filter((a) => a.type === 'updateStatus' && a.object.kind === 'JobSet');
  expect(writes.length).toBeLessThanOrEqual(1);
  return (writes[0] as { object: JobSet } | undefined)?.object.status;
};
const conditions = (actions: readonly Action[]) =>
  (status(actions)?.conditions ?? []).map((c) => `${c.type}=${c.status}:${c.reason}`);
const events = (actions: readonly Action[]) => plannedEvents(actions).map((e) => `${e.type} ${e.reason}: ${e.message}`);

const two = (spec: Partial<JobSet['spec']> = {}, st: JobSet['status'] = {}) =>
  aJobSet({ replicatedJobs: [aReplicatedJob('a', 2)], ...spec }, st);

describe('what the planner skips', () => {
  it('a JobSet gone, being deleted, or managed by another controller', () => {
    expect(plan(null).actions).toEqual([]);
    expect(plan(aJobSet({}, {}, { deletionTimestamp: at(-1) })).actions).toEqual([]);
    expect(plan(aJobSet({ managedBy: 'kueue.x-k8s.io/multikueue' })).actions).toEqual([]);
    expect(creates(plan(aJobSet({ managedBy: 'jobset.sigs.k8s.io/jobset-controller' })).actions)).toEqual([
      'Job/test-jobset-replicated-job-0',
    ]);
  });
});

describe('creating the Jobs', () => {
  it('a new JobSet: every Job of every replicatedJob, and replicatedJobsStatus', () => {
    const js = aJobSet({ replicatedJobs: [aReplicatedJob('a', 2), aReplicatedJob('b', 1)] });
    const { actions, requeueAfter } = plan(js);
    expect(creates(actions)).toEqual(['Job/test-jobset-a-0', 'Job/test-jobset-a-1', 'Job/test-jobset-b-0']);
    expect(status(actions)?.replicatedJobsStatus?.map((s) => s.name)).toEqual(['b', 'a']);
    expect(requeueAfter).toBeUndefined();
    const create = actions[0];
    expect(create?.type === 'create' && create.events?.onFailure).toMatchObject({
      type: 'Warning',
      reason: 'JobCreationFailed',
      message: 'job "test-jobset-a-0" creation failed with error: ',
      detail: 'error',
    });
  });
  it('only the missing Jobs; nothing to write when nothing changed', () => {
    const js = two(
      {},
      { replicatedJobsStatus: [{ name: 'a', ready: 0, succeeded: 0, failed: 0, active: 1, suspended: 0 }] },
    );
    const { actions } = plan(js, [aChildJob('a', 0, { kind: 'active', active: 1 })]);
    expect(creates(actions)).toEqual(['Job/test-jobset-a-1']);
    expect(status(actions)).toBeUndefined();
  });
  it('every Job ready after a restart: RestartingJobSet False (JobsReady)', () => {
    const js = two({}, { restarts: 1, conditions: [cond('RestartingJobSet', 'True', 'DefaultFailurePolicy')] });
    const jobs = [0, 1].map((i) => aChildJob('a', i, { kind: 'active', ready: 1, active: 1 }, { restarts: 1 }));
    const { actions } = plan(js, jobs);
    expect(conditions(actions)).toEqual(['RestartingJobSet=False:JobsReady']);
    expect(events(actions)).toEqual(['Normal JobsReady: all jobs are ready']);
  });
});

describe('failure policy in a pass', () => {
  const failed = (i: number, restarts = 0) =>
    aChildJob('a', i, { kind: 'failed', at: at(-5), reason: 'BackoffLimitExceeded', message: 'backoff' }, { restarts });
  it('no failure policy: Failed (FailedJobs), no creates', () => {
    const { actions } = plan(two(), [failed(0), aChildJob('a', 1)]);
    expect(creates(actions)).toEqual([]);
    expect(conditions(actions)).toEqual(['Failed=True:FailedJobs']);
    expect(status(actions)?.terminalState).toBe('Failed');
    expect(events(actions)).toEqual([
      'Warning FailedJobs: jobset failed due to one or more job failures (first failed job: test-jobset-a-0)',
    ]);
  });
  it('RestartJobSet: restarts+1 now, the old attempt deleted (Foreground) in the next pass', () => {
    const js = two({ failurePolicy: { maxRestarts: 2 } });
    const first = plan(js, [failed(0), aChildJob('a', 1)]);
    expect(deletes(first.actions)).toEqual([]);
    expect(status(first.actions)).toMatchObject({ restarts: 1, restartsCountTowardsMax: 1 });
    expect(conditions(first.actions)).toEqual(['RestartingJobSet=True:DefaultFailurePolicy']);
    expect(events(first.actions)).toEqual([
      'Warning DefaultFailurePolicy: applying RestartJobSet failure policy action (first failed job: test-jobset-a-0)',
      'Warning RestartJobSetFailurePolicyAction: applying RestartJobSet failure policy action (first failed job: test-jobset-a-0)',
    ]);

    const restarted = { ...js, status: status(first.actions) } as JobSet;
    const second = plan(restarted, [failed(0), aChildJob('a', 1)]);
    expect(deletes(second.actions)).toEqual(['Job/test-jobset-a-0:Foreground', 'Job/test-jobset-a-1:Foreground']);
    expect(creates(second.actions)).toEqual([]); // the names are still taken
  });
  it('Recreate recreates each Job once its predecessor is gone; BlockingRecreate waits for all', () => {
    const oldJob = aChildJob('a', 1, { kind: 'active' }, { restarts: 0, deleting: true });
    const recreate = two({ failurePolicy: { maxRestarts: 2, restartStrategy: 'Recreate' } }, { restarts: 1 });
    const r = plan(recreate, [oldJob]);
    expect(creates(r.actions)).toEqual(['Job/test-jobset-a-0']);
    expect(deletes(r.actions)).toEqual([]); // already being deleted
    const created = r.actions.find((a) => a.type === 'create');
    expect(created?.type === 'create' && created.object.metadata?.labels?.['jobset.sigs.k8s.io/restart-attempt']).toBe(
      '1',
    );

    const blocking = two({ failurePolicy: { maxRestarts: 2, restartStrategy: 'BlockingRecreate' } }, { restarts: 1 });
    expect(creates(plan(blocking, [oldJob]).actions)).toEqual([]);
    expect(creates(plan(blocking, []).actions)).toEqual(['Job/test-jobset-a-0', 'Job/test-jobset-a-1']);
  });
  it('maxRestarts reached: Failed (ReachedMaxRestarts)', () => {
    const js = two({ failurePolicy: { maxRestarts: 1 } }, { restarts: 1, restartsCountTowardsMax: 1 });
    const { actions } = plan(js, [failed(0, 1)]);
    expect(conditions(actions)).toEqual(['Failed=True:ReachedMaxRestarts']);
    expect(status(actions)?.restarts).toBe(1);
  });
  it('a FailJobSet rule on the failure reason; other reasons fall to the default RestartJobSet', () => {
    const rules = [{ name: 'fatal', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy'] }];
    const js = two({ failurePolicy: { maxRestarts: 3, rules } });
    const fatal = aChildJob('a', 0, { kind: 'failed', reason: 'PodFailurePolicy' });
    expect(conditions(plan(js, [fatal]).actions)).toEqual(['Failed=True:FailJobSetFailurePolicyAction']);
    expect(conditions(plan(js, [failed(0)]).actions)).toEqual(['RestartingJobSet=True:DefaultFailurePolicy']);
  });
  it('RestartJob (gate on): only that Job is recreated, by its job-restart-attempt', () => {
    const js = two(
      { failurePolicy: { maxRestarts: 3, rules: [{ name: 'one', action: 'RestartJob' }] } },
      { replicatedJobsStatus: [{ name: 'a', ready: 0, succeeded: 0, failed: 1, active: 1, suspended: 0 }] },
    );
    const restartLabel = { 'jobset.sigs.k8s.io/job-restart-attempt': '0' };
    const jobs = [
      aChildJob('a', 0, { kind: 'failed' }, { labels: restartLabel }),
      aChildJob('a', 1, { kind: 'active', active: 1 }, { labels: restartLabel }),
    ];
    const first = plan(js, jobs, { options: { restartJob: true } });
    expect(status(first.actions)?.replicatedJobsStatus).toEqual([
      {
        name: 'a',
        ready: 0,
        succeeded: 0,
        failed: 1,
        active: 1,
        suspended: 0,
        jobRestarts: [1, 0],
        jobRestartsCountTowardsMax: [1, 0],
      },
    ]);
    expect(status(first.actions)?.restarts).toBe(0);
    const second = plan({ ...js, status: status(first.actions) } as JobSet, jobs, { options: { restartJob: true } });
    expect(deletes(second.actions)).toEqual(['Job/test-jobset-a-0:Foreground']);
  });
});

describe('success policy in a pass', () => {
  it('All: complete once every Job succeeded', () => {
    const js = two({ successPolicy: { operator: 'All' } });
    expect(conditions(plan(js, [aChildJob('a', 0, { kind: 'succeeded' }), aChildJob('a', 1)]).actions)).toEqual([]);
    const done = plan(
      js,
      [0, 1].map((i) => aChildJob('a', i, { kind: 'succeeded' })),
    );
    expect(conditions(done.actions)).toEqual(['Completed=True:AllJobsCompleted']);
    expect(status(done.actions)?.terminalState).toBe('Completed');
    expect(events(done.actions)).toEqual(['Normal AllJobsCompleted: jobset completed successfully']);
    expect(creates(done.actions)).toEqual([]);
  });
  it('Any with a target: one succeeded Job of the target completes it; of another replicatedJob, not', () => {
    const js = aJobSet({
      successPolicy: { operator: 'Any', targetReplicatedJobs: ['driver'] },
      replicatedJobs: [aReplicatedJob('driver', 1), aReplicatedJob('workers', 2)],
    });
    const worker = aChildJob('workers', 0, { kind: 'succeeded' });
    expect(conditions(plan(js, [worker]).actions)).toEqual([]);
    expect(conditions(plan(js, [worker, aChildJob('driver', 0, { kind: 'succeeded' })]).actions)).toEqual([
      'Completed=True:AllJobsCompleted',
    ]);
  });
});

describe('no successPolicy', () => {
  it('reads as the webhook default, All', () => {
    const js = two();
    delete js.spec.successPolicy;
    expect(conditions(plan(js, [aChildJob('a', 0, { kind: 'succeeded' }), aChildJob('a', 1)]).actions)).toEqual([]);
    expect(
      conditions(
        plan(
          js,
          [0, 1].map((i) => aChildJob('a', i, { kind: 'succeeded' })),
        ).actions,
      ),
    ).toEqual(['Completed=True:AllJobsCompleted']);
  });
});

describe('a finished JobSet', () => {
  const done = (ttl?: number, finishedAgo = 60) =>
    two(
      { ...(ttl !== undefined && { ttlSecondsAfterFinished: ttl }) },
      {
        terminalState: 'Completed',
        conditions: [{ ...cond('Completed', 'True', 'AllJobsCompleted'), lastTransitionTime: at(-finishedAgo) }],
        replicatedJobsStatus: [{ name: 'a', ready: 0, succeeded: 1, failed: 0, active: 0, suspended: 0 }],
      },
    );
  it('deletes its active Jobs (Foreground), creates nothing', () => {
    const { actions } = plan(done(), [aChildJob('a', 0, { kind: 'succeeded' }), aChildJob('a', 1)]);
    expect(deletes(actions)).toEqual(['Job/test-jobset-a-1:Foreground']);
    expect(creates(actions)).toEqual([]);
  });
  it('TTL not expired: look again when it expires', () => {
    const { actions, requeueAfter } = plan(done(100, 60), [aChildJob('a', 0, { kind: 'succeeded' })]);
    expect(actions).toEqual([]);
    expect(requeueAfter).toBe(40_000);
  });
  it('TTL expired: the JobSet is deleted (Foreground)', () => {
    const { actions } = plan(done(30, 60), [aChildJob('a', 0, { kind: 'succeeded' })]);
    expect(deletes(actions)).toEqual(['JobSet/test-jobset:Foreground']);
    expect(actions.find((a) => a.type === 'delete')).toMatchObject({ uid: 'uid-js' });
  });
});

describe('suspend and resume', () => {
  it('suspended: running Jobs are suspended, new ones created suspended; Suspended True', () => {
    const js = two({ suspend: true });
    const { actions } = plan(js, [aChildJob('a', 0, { kind: 'active', active: 1 })]);
    expect(creates(actions)).toEqual(['Job/test-jobset-a-1']);
    const created = actions.find((a) => a.type === 'create');
    expect(created?.type === 'create' && (created.object as Job).spec.suspend).toBe(true);
    expect(updates(actions).map((j) => [j.metadata.name, j.spec.suspend, j.metadata.resourceVersion])).toEqual([
      ['test-jobset-a-0', true, '5'],
    ]);
    expect(conditions(actions)).toEqual(['Suspended=True:SuspendedJobs']);
    expect(events(actions)).toEqual(['Normal SuspendedJobs: jobset is suspended']);
  });
  it('resumed: suspended Jobs get the template changes merged and suspend false; Suspended False', () => {
    const rjob = aReplicatedJob('a', 1);
    rjob.template.spec.template = {
      metadata: { labels: { queue: 'q1' } },
      spec: {
        containers: [{ name: 'c' }],
        nodeSelector: { pool: 'tpu' },
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    };
    const js = aJobSet({ replicatedJobs: [rjob] }, { conditions: [cond('Suspended', 'True', 'SuspendedJobs')] });
    const job = aChildJob('a', 0, { kind: 'active', suspended: true });
    job.spec.template = {
      metadata: { labels: { own: 'x' } },
      spec: { containers: [{ name: 'c' }], tolerations: [{ key: 'k', operator: 'Exists' }] },
    };
    const { actions } = plan(js, [job]);
    const [updated] = updates(actions);
    expect(updated?.spec.suspend).toBe(false);
    expect(updated?.spec.template?.metadata?.labels).toEqual({ own: 'x', queue: 'q1' });
    expect(updated?.spec.template?.spec?.nodeSelector).toEqual({ pool: 'tpu' });
    expect(updated?.spec.template?.spec?.tolerations).toEqual([{ key: 'k', operator: 'Exists' }]);
    expect(conditions(actions)).toEqual(['Suspended=False:ResumeJobs']);
    // Nothing to merge stays absent, as Go's omitempty leaves it.
    expect(updated?.spec.template?.spec?.schedulingGates).toBeUndefined();
    expect(updated?.spec.template?.metadata?.annotations).toBeUndefined();
  });
  it('a started Job to resume: its startTime is cleared first, and the pass continues', () => {
    const js = aJobSet({}, { conditions: [cond('Suspended', 'True', 'SuspendedJobs')] });
    const job = aChildJob('replicated-job', 0, { kind: 'active', suspended: true, startTime: at(-50) });
    const { actions, requeueAfter } = plan(js, [job]);
    expect(updates(actions)).toEqual([]);
    const jobStatus = actions.find((a) => a.type === 'updateStatus' && a.object.kind === 'Job');
    expect(jobStatus?.type === 'updateStatus' && (jobStatus.object as Job).status?.startTime).toBeUndefined();
    expect(requeueAfter).toBe(0);
  });
});

describe('startup order', () => {
  const inOrder = (st: JobSet['status'] = {}) =>
    aJobSet(
      {
        startupPolicy: { startupPolicyOrder: 'InOrder' },
        replicatedJobs: [aReplicatedJob('a', 1), aReplicatedJob('b', 2)],
      },
      st,
    );
  it('InOrder: the first replicatedJob only, StartupPolicyInProgress', () => {
    const { actions } = plan(inOrder());
    expect(creates(actions)).toEqual(['Job/test-jobset-a-0']);
    expect(conditions(actions)).toEqual(['StartupPolicyInProgress=True:InOrderStartupPolicyInProgress']);
  });
  it('InOrder: the next once every Job of the first started (ready)', () => {
    const { actions } = plan(inOrder(), [aChildJob('a', 0, { kind: 'active', ready: 1, active: 1 })]);
    expect(creates(actions)).toEqual(['Job/test-jobset-b-0', 'Job/test-jobset-b-1']);
  });
  it('InOrder: all started → StartupPolicyCompleted, InProgress turned False', () => {
    const js = inOrder({ conditions: [cond('StartupPolicyInProgress', 'True', 'InOrderStartupPolicyInProgress')] });
    const jobs = [
      aChildJob('a', 0, { kind: 'active', ready: 1 }),
      ...[0, 1].map((i) => aChildJob('b', i, { kind: 'active', ready: 1 })),
    ];
    const { actions } = plan(js, jobs);
    expect(creates(actions)).toEqual([]);
    // RestartingJobSet False (JobsReady) is not added: the JobSet never had a RestartingJobSet condition.
    expect(conditions(actions)).toEqual([
      'StartupPolicyInProgress=False:InOrderStartupPolicyInProgress',
      'StartupPolicyCompleted=True:InOrderStartupPolicyCompleted',
    ]);
  });
  it('dependsOn Complete: the trainer waits until every initializer Job succeeded', () => {
    const js = aJobSet({
      replicatedJobs: [
        aReplicatedJob('init', 2),
        aReplicatedJob('trainer', 1, { dependsOn: [{ name: 'init', status: 'Complete' }] }),
      ],
    });
    expect(creates(plan(js).actions)).toEqual(['Job/test-jobset-init-0', 'Job/test-jobset-init-1']);
    const half = [aChildJob('init', 0, { kind: 'succeeded' }), aChildJob('init', 1, { kind: 'active', ready: 1 })];
    expect(creates(plan(js, half).actions)).toEqual([]);
    const all = [0, 1].map((i) => aChildJob('init', i, { kind: 'succeeded' }));
    expect(creates(plan(js, all).actions)).toEqual(['Job/test-jobset-trainer-0']);
  });
  it('dependsOn Ready: ready, succeeded or failed Jobs count', () => {
    const js = aJobSet({
      replicatedJobs: [
        aReplicatedJob('init', 2),
        aReplicatedJob('trainer', 1, { dependsOn: [{ name: 'init', status: 'Ready' }] }),
      ],
    });
    const ready = [aChildJob('init', 0, { kind: 'active', ready: 1 }), aChildJob('init', 1, { kind: 'succeeded' })];
    expect(creates(plan(js, ready).actions)).toEqual(['Job/test-jobset-trainer-0']);
  });
});

describe('the headless Service', () => {
  const dns = (network = {}) => aJobSet({ network: { enableDNSHostnames: true, ...network } });
  it('created when missing, named by the subdomain, before the Jobs', () => {
    const { actions } = plan(dns(), [], { service: null });
    expect(creates(actions)).toEqual(['Service/test-jobset', 'Job/test-jobset-replicated-job-0']);
    const svc = actions[0];
    expect(svc?.type === 'create' && svc.object).toMatchObject({
      metadata: {
        name: 'test-jobset',
        namespace: 'default',
        ownerReferences: [{ kind: 'JobSet', uid: 'uid-js', controller: true }],
      },
      spec: {
        clusterIP: 'None',
        selector: { 'jobset.sigs.k8s.io/jobset-name': 'test-jobset' },
        publishNotReadyAddresses: true,
      },
    });
    expect(svc?.type === 'create' && svc.events?.onFailure?.reason).toBe('HeadlessServiceCreationFailed');
  });
  it('subdomain set, publishNotReadyAddresses false', () => {
    const { actions } = plan(dns({ subdomain: 'net', publishNotReadyAddresses: false }), [], { service: null });
    expect(actions[0]?.type === 'create' && actions[0].object).toMatchObject({
      metadata: { name: 'net' },
      spec: { publishNotReadyAddresses: false },
    });
  });
  it('not created when it exists; an unread Service is an error of observe', () => {
    const existing = { metadata: { name: 'test-jobset', namespace: 'default' } };
    expect(creates(plan(dns(), [], { service: existing }).actions)).toEqual(['Job/test-jobset-replicated-job-0']);
    expect(() => plan(dns())).toThrow('JobSet observe did not read the headless Service');
  });
});
