// constructJobsFromTemplate and getChildJobs, from upstream's TestConstructJobsFromTemplate (jobset_controller_test.go,
// v0.12.0): each case's JobSet and owned Jobs, and the Jobs upstream expects built, label for label.
import { describe, expect, it } from '@jest/globals';
import { classifyChildJobs, jobsToCreate, type ChildJobs } from '../../../../shared/controllers/jobset/child-jobs.js';
import type { Job, JobSet, PlanOptions } from '../../../../shared/controllers/jobset/types.js';
import { aChildJob, aJobSet, aReplicatedJob, JS_UID, NS } from './builders.js';

const RJ = 'replicated-job';
const none = (): ChildJobs => ({ active: [], successful: [], failed: [], previous: [] });
const HASH_0 = '027791c2c0a79daacbc05ab1512c28988581229f'; // sha1("default/test-jobset-replicated-job-0")
const HASH_1 = '9cb00a8d9c038e5b48cf2bbb8ef93e14919303c0'; // sha1("default/test-jobset-replicated-job-1")

/** upstream's makeJob labels (and the global/group keys its test adds), for one Job of `RJ`. */
function keys(o: {
  idx: number;
  replicas: number;
  group?: string;
  restarts?: number;
  jobRestartAttempt?: number | null;
  global?: { index: number; replicas: number };
  rjob?: string;
  hash?: string;
}): Record<string, string> {
  return {
    'jobset.sigs.k8s.io/jobset-name': 'test-jobset',
    'jobset.sigs.k8s.io/jobset-uid': JS_UID,
    'jobset.sigs.k8s.io/replicatedjob-name': o.rjob ?? RJ,
    'jobset.sigs.k8s.io/restart-attempt': String(o.restarts ?? 0),
    ...(o.jobRestartAttempt !== null && {
      'jobset.sigs.k8s.io/job-restart-attempt': String(o.jobRestartAttempt ?? 0),
    }),
    'jobset.sigs.k8s.io/replicatedjob-replicas': String(o.replicas),
    'jobset.sigs.k8s.io/global-replicas': String(o.global?.replicas ?? o.replicas),
    'jobset.sigs.k8s.io/job-index': String(o.idx),
    'jobset.sigs.k8s.io/job-key': o.hash ?? (o.idx === 0 ? HASH_0 : HASH_1),
    'jobset.sigs.k8s.io/job-global-index': String(o.global?.index ?? o.idx),
    'jobset.sigs.k8s.io/group-name': o.group ?? 'default',
    'jobset.sigs.k8s.io/group-replicas': String(o.global?.replicas ?? o.replicas),
    'jobset.sigs.k8s.io/job-group-index': String(o.global?.index ?? o.idx),
  };
}

const RESTART_JOB: PlanOptions = { restartJob: true };

function build(js: JobSet, owned: ChildJobs = none(), options: PlanOptions = RESTART_JOB): Job[] {
  return (js.spec.replicatedJobs ?? []).flatMap((r) => jobsToCreate(js, r, owned, options));
}

const names = (jobs: Job[]): string[] => jobs.map((j) => j.metadata.name ?? '');

describe('constructJobsFromTemplate (upstream TestConstructJobsFromTemplate)', () => {
  const grouped = (replicas: number, extra = {}) => aReplicatedJob(RJ, replicas, { groupName: 'default', ...extra });

  it('no jobs created: the only Job is active', () => {
    const js = aJobSet({ replicatedJobs: [aReplicatedJob(RJ, 1)] });
    expect(build(js, { ...none(), active: [aChildJob(RJ, 0)] })).toEqual([]);
  });

  it('all jobs created, with the JobSet labels and annotations on the Job and its pod template', () => {
    const js = aJobSet({ replicatedJobs: [grouped(2)] });
    const jobs = build(js);
    expect(names(jobs)).toEqual(['test-jobset-replicated-job-0', 'test-jobset-replicated-job-1']);
    for (const [i, job] of jobs.entries()) {
      const k = keys({ idx: i, replicas: 2 });
      expect(job.metadata.labels).toEqual(k);
      expect(job.metadata.annotations).toEqual(k);
      expect(job.spec.template?.metadata?.labels).toEqual(k);
      expect(job.spec.template?.metadata?.annotations).toEqual(k);
      expect(job.spec.suspend).toBe(false);
      expect(job.metadata.namespace).toBe(NS);
      expect(job.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'jobset.x-k8s.io/v1alpha2',
          kind: 'JobSet',
          name: 'test-jobset',
          uid: JS_UID,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
  });

  it("all jobs/pods created with the template's own labels and annotations kept", () => {
    const rjob = grouped(2);
    rjob.template.metadata = {
      labels: { 'job-label-key1': 'job-label-value1' },
      annotations: { 'job-annotation-key1': 'job-annotation-value1' },
    };
    rjob.template.spec.template = {
      ...rjob.template.spec.template,
      metadata: { labels: { 'pod-label-key1': 'pod-label-value1' }, annotations: { 'pod-annotation-key1': 'v' } },
    };
    const [job] = build(aJobSet({ replicatedJobs: [rjob] }));
    const k = keys({ idx: 0, replicas: 2 });
    expect(job?.metadata.labels).toEqual({ ...k, 'job-label-key1': 'job-label-value1' });
    expect(job?.metadata.annotations).toEqual({ ...k, 'job-annotation-key1': 'job-annotation-value1' });
    expect(job?.spec.template?.metadata?.labels).toEqual({ ...k, 'pod-label-key1': 'pod-label-value1' });
    expect(job?.spec.template?.metadata?.annotations).toEqual({ ...k, 'pod-annotation-key1': 'v' });
  });

  it.each([
    ['already active', { active: [aChildJob(RJ, 0)] }],
    ['already succeeded', { successful: [aChildJob(RJ, 0, { kind: 'succeeded' })] }],
    ['already failed', { failed: [aChildJob(RJ, 0, { kind: 'failed' })] }],
    ['marked for deletion', { previous: [aChildJob(RJ, 0)] }],
  ])('one job created, one job not created (%s)', (_name, owned) => {
    const js = aJobSet({ replicatedJobs: [grouped(2)] });
    const jobs = build(js, { ...none(), ...owned });
    expect(names(jobs)).toEqual(['test-jobset-replicated-job-1']);
    expect(jobs[0]?.metadata.labels).toEqual(keys({ idx: 1, replicas: 2 }));
  });

  it('job creation blocked until all previous jobs no longer exist (BlockingRecreate)', () => {
    const js = aJobSet({ failurePolicy: { restartStrategy: 'BlockingRecreate' }, replicatedJobs: [grouped(2)] });
    expect(build(js, { ...none(), previous: [aChildJob(RJ, 0)] })).toEqual([]);
  });

  it('Recreate creates the Jobs whose names no earlier-attempt Job holds', () => {
    const js = aJobSet({ failurePolicy: { restartStrategy: 'Recreate' }, replicatedJobs: [grouped(2)] });
    expect(names(build(js, { ...none(), previous: [aChildJob(RJ, 0)] }))).toEqual(['test-jobset-replicated-job-1']);
  });

  it('multiple replicated jobs: global index and replicas across them', () => {
    const js = aJobSet({
      replicatedJobs: [
        aReplicatedJob('replicated-job-1', 1, { groupName: 'default' }),
        aReplicatedJob('replicated-job-2', 3, { groupName: 'default' }),
      ],
    });
    const jobs = build(js);
    expect(names(jobs)).toEqual([
      'test-jobset-replicated-job-1-0',
      'test-jobset-replicated-job-2-0',
      'test-jobset-replicated-job-2-1',
      'test-jobset-replicated-job-2-2',
    ]);
    expect(jobs.map((j) => j.metadata.labels?.['jobset.sigs.k8s.io/job-global-index'])).toEqual(['0', '1', '2', '3']);
    expect(jobs.map((j) => j.metadata.labels?.['jobset.sigs.k8s.io/global-replicas'])).toEqual(['4', '4', '4', '4']);
    expect(jobs.map((j) => j.metadata.labels?.['jobset.sigs.k8s.io/job-group-index'])).toEqual(['0', '1', '2', '3']);
  });

  it('exclusive placement for a ReplicatedJob: the annotation only, not a label', () => {
    const rjob = grouped(1);
    rjob.template.metadata = { annotations: { 'alpha.jobset.sigs.k8s.io/exclusive-topology': 'topology' } };
    const [job] = build(aJobSet({ replicatedJobs: [rjob] }));
    expect(job?.metadata.annotations?.['alpha.jobset.sigs.k8s.io/exclusive-topology']).toBe('topology');
    expect(job?.spec.template?.metadata?.annotations?.['alpha.jobset.sigs.k8s.io/exclusive-topology']).toBe('topology');
    expect(job?.metadata.labels?.['alpha.jobset.sigs.k8s.io/exclusive-topology']).toBeUndefined();
    expect(job?.spec.template?.spec?.nodeSelector).toBeUndefined();
  });

  it('exclusive placement using nodeSelectorStrategy for the entire JobSet: nodeSelector and toleration', () => {
    const js = aJobSet(
      { replicatedJobs: [grouped(1)] },
      {},
      {
        annotations: {
          'alpha.jobset.sigs.k8s.io/exclusive-topology': 'topology',
          'alpha.jobset.sigs.k8s.io/node-selector': 'true',
        },
      },
    );
    const [job] = build(js);
    expect(job?.metadata.annotations?.['alpha.jobset.sigs.k8s.io/node-selector']).toBe('true');
    expect(job?.spec.template?.spec?.nodeSelector).toEqual({
      'alpha.jobset.sigs.k8s.io/namespaced-job': 'default_test-jobset-replicated-job-0',
    });
    expect(job?.spec.template?.spec?.tolerations).toEqual([
      { key: 'alpha.jobset.sigs.k8s.io/no-schedule', operator: 'Exists', effect: 'NoSchedule' },
    ]);
  });

  it('pod dns hostnames enabled: the pod subdomain', () => {
    const js = aJobSet({ network: { enableDNSHostnames: true }, replicatedJobs: [grouped(1)] });
    expect(build(js)[0]?.spec.template?.spec?.subdomain).toBe('test-jobset');
    const custom = aJobSet({ network: { enableDNSHostnames: true, subdomain: 'net' }, replicatedJobs: [grouped(1)] });
    expect(build(custom)[0]?.spec.template?.spec?.subdomain).toBe('net');
    expect(build(aJobSet({ replicatedJobs: [grouped(1)] }))[0]?.spec.template?.spec?.subdomain).toBeUndefined();
  });

  it('suspend job set: Jobs are created suspended; resumed: not', () => {
    expect(build(aJobSet({ suspend: true, replicatedJobs: [grouped(1)] }))[0]?.spec.suspend).toBe(true);
    expect(build(aJobSet({ suspend: false, replicatedJobs: [grouped(1)] }))[0]?.spec.suspend).toBe(false);
  });

  it('coordinator: label and annotation with the coordinator endpoint', () => {
    const js = aJobSet({
      coordinator: { replicatedJob: RJ, jobIndex: 0, podIndex: 0 },
      network: { enableDNSHostnames: true, subdomain: 'test-jobset' },
      replicatedJobs: [grouped(1)],
    });
    const [job] = build(js);
    const endpoint = 'test-jobset-replicated-job-0-0.test-jobset';
    expect(job?.metadata.labels?.['jobset.sigs.k8s.io/coordinator']).toBe(endpoint);
    expect(job?.metadata.annotations?.['jobset.sigs.k8s.io/coordinator']).toBe(endpoint);
    expect(job?.spec.template?.metadata?.labels?.['jobset.sigs.k8s.io/coordinator']).toBe(endpoint);
  });

  it('restart-attempt is status.restarts', () => {
    const [job] = build(aJobSet({ replicatedJobs: [grouped(1)] }, { restarts: 3 }));
    expect(job?.metadata.labels?.['jobset.sigs.k8s.io/restart-attempt']).toBe('3');
  });

  it('JobRestartAttempt based on ReplicatedJobsStatus (RestartJob gate on)', () => {
    const js = aJobSet(
      { replicatedJobs: [grouped(2)] },
      {
        replicatedJobsStatus: [
          { name: RJ, ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0, jobRestarts: [1, 0] },
        ],
      },
    );
    const jobs = build(js);
    expect(jobs[0]?.metadata.labels).toEqual(keys({ idx: 0, replicas: 2, jobRestartAttempt: 1 }));
    expect(jobs[1]?.metadata.labels).toEqual(keys({ idx: 1, replicas: 2, jobRestartAttempt: 0 }));
  });

  it('JobRestartAttempt not added when RestartJob feature is disabled', () => {
    const jobs = build(aJobSet({ replicatedJobs: [grouped(2)] }), none(), {});
    expect(jobs[0]?.metadata.labels).toEqual(keys({ idx: 0, replicas: 2, jobRestartAttempt: null }));
    expect(jobs[0]?.metadata.annotations).toEqual(keys({ idx: 0, replicas: 2, jobRestartAttempt: null }));
  });
});

describe('getChildJobs', () => {
  it('sorts Jobs by restart attempt and finished condition', () => {
    const js = aJobSet({ replicatedJobs: [aReplicatedJob(RJ, 4)] }, { restarts: 1 });
    const old = aChildJob(RJ, 0, { kind: 'active' }, { restarts: 0 });
    const active = aChildJob(RJ, 1, { kind: 'active' }, { restarts: 1 });
    const done = aChildJob(RJ, 2, { kind: 'succeeded' }, { restarts: 1 });
    const failed = aChildJob(RJ, 3, { kind: 'failed' }, { restarts: 2 });
    expect(classifyChildJobs(js, [old, active, done, failed], {})).toEqual({
      active: [active],
      successful: [done],
      failed: [failed],
      previous: [old],
    });
  });

  it('a restart-attempt label that is not an integer fails the pass', () => {
    const js = aJobSet();
    const bad = aChildJob(RJ, 0, { kind: 'active' }, { labels: { 'jobset.sigs.k8s.io/restart-attempt': 'x' } });
    expect(() => classifyChildJobs(js, [bad], {})).toThrow(
      /invalid value for label jobset.sigs.k8s.io\/restart-attempt/,
    );
  });

  it('with RestartJob, a Job below its jobRestarts target is previous; without the label it stays', () => {
    const js = aJobSet(
      { replicatedJobs: [aReplicatedJob(RJ, 2)] },
      {
        replicatedJobsStatus: [
          { name: RJ, ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0, jobRestarts: [1, 0] },
        ],
      },
    );
    const stale = aChildJob(RJ, 0, { kind: 'active' }, { labels: { 'jobset.sigs.k8s.io/job-restart-attempt': '0' } });
    const unlabelled = aChildJob(RJ, 1);
    const got = classifyChildJobs(js, [stale, unlabelled], { restartJob: true });
    expect(got.previous).toEqual([stale]);
    expect(got.active).toEqual([unlabelled]);
    // The gate off: the per-Job attempt is not looked at.
    expect(classifyChildJobs(js, [stale], {}).active).toEqual([stale]);
  });
});
