// JobSet scenarios: each runs on both sides (upstream-1: the JobSet manager of sigs.k8s.io/jobset with its webhooks,
// and kube-controller-manager's job-controller for the child Jobs; fleetq-1: fleetq's JobSet and Job controllers,
// with fleetq's JobSet admission) and compares the normalized state at every `compare` step. The JobSets are small
// (one-pod Jobs, restartPolicy Never); pods end only when a step says
// so, through the sandbox's kwok outcome stages (`endPods`), so both sides see the same Jobs succeed or fail.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  childJobs,
  jobSetClaims,
  jobSetCondition,
  jobSetGone,
  jobSetPodsRunning,
  jobSetStatusOf,
} from '../../helpers/conformance/jobset.js';
import { all, jobCondition } from '../../helpers/conformance/predicates.js';
import type { Check, Job, KubeJson, Labels, Scenario, Snapshot, Step } from '../../helpers/conformance/types.js';
import { compare, podTemplate, wait } from './builders.js';

const NAME = 'train';
/** The exit code a failing pod ends with (`end('Failed', …)`), on which the Jobs' podFailurePolicy fails them. */
const FAILING_EXIT_CODE = 3;
// Each Job fails through podFailurePolicy: a pod a step fails (exit 3) fails its Job at once (reason PodFailurePolicy),
// while a pod deleted with its Job (a restart, a finished JobSet) counts one failure, within backoffLimit 1. With
// backoffLimit 0 that deletion fails the Job too, or not, depending on whether the Job controller sees the pod go
// before its Job: a BackoffLimitExceeded event that comes and goes between runs.
/** Restarts wait for the old Jobs' foreground deletion (their pods first), then the new pods. */
const LONG = 120_000;

type ReplicatedJobOptions = {
  readonly name: string;
  readonly replicas?: number;
  /** Pods per Job (parallelism and completions); default 1. */
  readonly pods?: number;
  readonly dependsOn?: ReadonlyArray<{ name: string; status: 'Ready' | 'Complete' }>;
  /** Volume names its container mounts (a volumeClaimPolicies template's name gets the claim). */
  readonly mounts?: readonly string[];
  readonly labels?: Labels;
  readonly annotations?: Labels;
};

type JobSetOptions = {
  readonly replicatedJobs?: readonly ReplicatedJobOptions[];
  readonly failurePolicy?: Record<string, unknown>;
  readonly successPolicy?: Record<string, unknown>;
  readonly startupPolicy?: Record<string, unknown>;
  readonly network?: Record<string, unknown>;
  readonly coordinator?: Record<string, unknown>;
  readonly suspend?: boolean;
  readonly ttlSecondsAfterFinished?: number;
  readonly labels?: Labels;
  readonly annotations?: Labels;
  readonly volumeClaimPolicies?: ReadonlyArray<Record<string, unknown>>;
};

const LEADER_WORKERS: readonly ReplicatedJobOptions[] = [
  { name: 'leader', replicas: 1 },
  { name: 'workers', replicas: 2 },
];

function replicatedJob(js: string, o: ReplicatedJobOptions): Record<string, unknown> {
  const template = podTemplate({ app: js });
  template.spec = { ...template.spec, restartPolicy: 'Never' };
  if (o.mounts !== undefined) {
    const containers = (template.spec.containers ?? []) as Array<Record<string, unknown>>;
    template.spec.containers = containers.map((c) => ({
      ...c,
      volumeMounts: o.mounts!.map((m) => ({ name: m, mountPath: `/mnt/${m}` })),
    }));
  }
  const pods = o.pods ?? 1;
  return {
    name: o.name,
    replicas: o.replicas ?? 1,
    ...(o.dependsOn !== undefined && { dependsOn: o.dependsOn }),
    template: {
      ...((o.labels ?? o.annotations) !== undefined && {
        metadata: { ...(o.labels && { labels: o.labels }), ...(o.annotations && { annotations: o.annotations }) },
      }),
      spec: {
        parallelism: pods,
        completions: pods,
        backoffLimit: 1,
        podFailurePolicy: {
          rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [FAILING_EXIT_CODE] } }],
        },
        template,
      },
    },
  };
}

export function jobSet(name: string, o: JobSetOptions = {}): KubeJson {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: {
      name,
      ...(o.labels !== undefined && { labels: o.labels }),
      ...(o.annotations !== undefined && { annotations: o.annotations }),
    },
    spec: {
      replicatedJobs: (o.replicatedJobs ?? LEADER_WORKERS).map((r) => replicatedJob(name, r)),
      ...(o.failurePolicy !== undefined && { failurePolicy: o.failurePolicy }),
      ...(o.successPolicy !== undefined && { successPolicy: o.successPolicy }),
      ...(o.startupPolicy !== undefined && { startupPolicy: o.startupPolicy }),
      ...(o.network !== undefined && { network: o.network }),
      ...(o.coordinator !== undefined && { coordinator: o.coordinator }),
      ...(o.suspend !== undefined && { suspend: o.suspend }),
      ...(o.ttlSecondsAfterFinished !== undefined && { ttlSecondsAfterFinished: o.ttlSecondsAfterFinished }),
      ...(o.volumeClaimPolicies !== undefined && { volumeClaimPolicies: o.volumeClaimPolicies }),
    },
  };
}

const create = (o: JobSetOptions = {}): Step => ({ do: 'create', objects: [jobSet(NAME, o)] });
const running = (n: number, attempt?: number): Step =>
  wait(
    `${n} pods running${attempt === undefined ? '' : ` (attempt ${attempt})`}`,
    jobSetPodsRunning(NAME, n, attempt),
    LONG,
  );
/** Ends the (one running) pod of each child Job named `<train>-<replicatedJob>-<index>`. */
const end = (outcome: 'Succeeded' | 'Failed', ...jobs: string[]): Step[] =>
  jobs.map((j) => ({
    do: 'endPods',
    filter: { owner: `${NAME}-${j}` },
    outcome,
    ...(outcome === 'Failed' && { exitCode: FAILING_EXIT_CODE }),
  }));
const jobDone = (job: string, type: 'Complete' | 'Failed'): Step =>
  wait(`${job} ${type}`, jobCondition(`${NAME}-${job}`, type, 'True'));
const condition = (type: string, status: string, reason?: string, timeoutMs?: number): Step =>
  wait(`JobSet ${type} ${status} ${reason ?? ''}`, jobSetCondition(NAME, type, status, reason), timeoutMs);
const completed = (): Step => condition('Completed', 'True', 'AllJobsCompleted');
const failed = (reason: string): Step => condition('Failed', 'True', reason, LONG);
const update = (mutate: (js: KubeJson) => void): Step => ({ do: 'updateObject', kind: 'JobSet', name: NAME, mutate });
const setSuspend = (suspend: boolean): Step =>
  update((js) => {
    (js.spec ??= {}).suspend = suspend;
  });

/** status.restarts (and restartsCountTowardsMax) are as given. */
const restarts =
  (n: number, towardsMax?: number) =>
  (s: Snapshot): Check => {
    const st = jobSetStatusOf(s, NAME);
    const ok =
      (st?.restarts ?? 0) === n && (towardsMax === undefined || (st?.restartsCountTowardsMax ?? 0) === towardsMax);
    return ok || `restarts ${st?.restarts ?? 0}/${st?.restartsCountTowardsMax ?? 0}, want ${n}/${towardsMax ?? '-'}`;
  };

/** After a restart: every Job of attempt `attempt` is there and running its pod. */
const restarted = (attempt: number, jobs: number): Step =>
  wait(
    `restart ${attempt}: ${jobs} Jobs of attempt ${attempt} running`,
    all(restarts(attempt), childJobs(NAME, jobs, { restartAttempt: attempt }), jobSetPodsRunning(NAME, jobs, attempt)),
    LONG,
  );

/** A manifest file for kubectl steps (a create the webhooks refuse), written once per process. */
function manifestFile(name: string, object: KubeJson): string {
  const file = join(tmpdir(), `fleetq-conformance-jobset-${name}-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(object));
  return file;
}

function scenario(name: string, description: string, steps: Step[]): Scenario {
  return { name, kind: 'JobSet', description, steps, invariants: [] };
}

/** A Job named as a JobSet's child would be, with its labels, but no owner: made by hand before the JobSet. */
function orphanChildJob(): Job {
  const template = podTemplate({ app: NAME });
  template.spec = { ...template.spec, restartPolicy: 'Never' };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${NAME}-workers-0`,
      labels: { 'jobset.sigs.k8s.io/jobset-name': NAME, 'jobset.sigs.k8s.io/replicatedjob-name': 'workers' },
    },
    spec: { parallelism: 1, completions: 1, backoffLimit: 0, template },
  };
}

const MANY = 600;

export const JOBSET_SCENARIOS: readonly Scenario[] = [
  scenario(
    'js-complete',
    'leader 1 + workers 2 with labels and annotations on the JobSet and its Job templates: all succeed → Completed',
    [
      create({
        labels: { team: 'ml' },
        annotations: { 'example.com/owner': 'research' },
        replicatedJobs: [
          { name: 'leader', replicas: 1, labels: { role: 'leader' }, annotations: { 'example.com/role': 'leader' } },
          { name: 'workers', replicas: 2, labels: { role: 'worker' } },
        ],
      }),
      running(3),
      compare('all Jobs running: labels, annotations, headless Service, replicatedJobsStatus'),
      ...end('Succeeded', 'leader-0', 'workers-0', 'workers-1'),
      completed(),
      compare('completed'),
    ],
  ),
  scenario('js-depends-on-ready', 'workers depend on leader Ready: created once the leader pod is ready', [
    create({
      replicatedJobs: [
        { name: 'leader', replicas: 1 },
        { name: 'workers', replicas: 2, dependsOn: [{ name: 'leader', status: 'Ready' }] },
      ],
    }),
    running(3),
    compare('leader ready, workers created'),
    ...end('Succeeded', 'leader-0', 'workers-0', 'workers-1'),
    completed(),
    compare('completed'),
  ]),
  scenario('js-depends-on-complete', 'workers depend on leader Complete: held until the leader Job completes', [
    create({
      replicatedJobs: [
        { name: 'leader', replicas: 1 },
        { name: 'workers', replicas: 2, dependsOn: [{ name: 'leader', status: 'Complete' }] },
      ],
    }),
    running(1),
    compare('leader running, workers held'),
    ...end('Succeeded', 'leader-0'),
    wait('workers running after the leader completed', all(childJobs(NAME, 3), jobSetPodsRunning(NAME, 2))),
    compare('leader complete, workers running'),
    ...end('Succeeded', 'workers-0', 'workers-1'),
    completed(),
    compare('completed'),
  ]),
  scenario('js-startup-in-order', 'startupPolicy InOrder: leader, then workers once the leader is ready', [
    create({ startupPolicy: { startupPolicyOrder: 'InOrder' } }),
    running(3),
    condition('StartupPolicyCompleted', 'True'),
    compare('InOrder startup completed'),
  ]),
  scenario('js-coordinator', 'coordinator leader/0/0: the coordinator label and annotation on every Job and pod', [
    create({ coordinator: { replicatedJob: 'leader', jobIndex: 0, podIndex: 0 } }),
    running(3),
    compare('coordinator named on Jobs and pod templates'),
  ]),
  scenario(
    'js-network-subdomain',
    'network subdomain and publishNotReadyAddresses false: the Service by that name, pods in that subdomain',
    [
      create({ network: { subdomain: 'mesh', publishNotReadyAddresses: false } }),
      running(3),
      compare('Service mesh, publishNotReadyAddresses false'),
    ],
  ),
  scenario('js-network-no-dns', 'network enableDNSHostnames false: no Service, no subdomain', [
    create({ network: { enableDNSHostnames: false } }),
    running(3),
    compare('no headless Service'),
  ]),
  scenario('js-success-any', 'successPolicy Any of workers: one worker Job completes → Completed, the rest deleted', [
    create({ successPolicy: { operator: 'Any', targetReplicatedJobs: ['workers'] } }),
    running(3),
    ...end('Succeeded', 'workers-1'),
    completed(),
    wait('active Jobs deleted', childJobs(NAME, 1)),
    compare('completed by one worker'),
  ]),
  scenario('js-success-all-targets', 'successPolicy All of leader: the leader completes → Completed', [
    create({ successPolicy: { operator: 'All', targetReplicatedJobs: ['leader'] } }),
    running(3),
    ...end('Succeeded', 'workers-0'),
    jobDone('workers-0', 'Complete'),
    compare('a worker completed: not yet'),
    ...end('Succeeded', 'leader-0'),
    completed(),
    wait('active Jobs deleted', childJobs(NAME, 2)),
    compare('completed by the leader'),
  ]),
  scenario('js-suspend-resume', 'created suspended: Jobs suspended without pods; resumed: pods run', [
    create({ suspend: true }),
    wait('3 suspended Jobs', childJobs(NAME, 3, { suspended: true })),
    condition('Suspended', 'True'),
    compare('suspended'),
    setSuspend(false),
    running(3),
    condition('Suspended', 'False'),
    compare('resumed'),
  ]),
  scenario('js-suspend-running', 'running, then suspended: the Jobs are suspended and their pods deleted', [
    create(),
    running(3),
    setSuspend(true),
    wait('Jobs suspended, no pod running', all(childJobs(NAME, 3, { suspended: true }), jobSetPodsRunning(NAME, 0))),
    condition('Suspended', 'True'),
    compare('suspended while running'),
  ]),
  scenario('js-ttl-after-finished', 'ttlSecondsAfterFinished 3: deleted 3 s after it completed', [
    create({ ttlSecondsAfterFinished: 3, replicatedJobs: [{ name: 'workers', replicas: 1 }] }),
    running(1),
    ...end('Succeeded', 'workers-0'),
    // Completed lasts 3 s only: the wait is for the delete.
    wait('JobSet deleted', jobSetGone(NAME), LONG),
    compare('deleted after its TTL'),
  ]),
  scenario('js-no-failure-policy', 'no failurePolicy: a failed Job fails the JobSet (FailedJobs), the rest deleted', [
    create(),
    running(3),
    ...end('Failed', 'workers-1'),
    failed('FailedJobs'),
    wait('active Jobs deleted', childJobs(NAME, 1)),
    compare('failed'),
  ]),
  scenario('js-restart-recreate', 'maxRestarts 2, Recreate: a failed Job restarts every Job (attempt 1)', [
    create({ failurePolicy: { maxRestarts: 2 } }),
    running(3),
    ...end('Failed', 'workers-0'),
    restarted(1, 3),
    compare('restarted once'),
    ...end('Succeeded', 'leader-0', 'workers-0', 'workers-1'),
    completed(),
    compare('completed after a restart'),
  ]),
  scenario('js-restart-blocking', 'maxRestarts 2, BlockingRecreate: new Jobs only once every old one is gone', [
    create({ failurePolicy: { maxRestarts: 2, restartStrategy: 'BlockingRecreate' } }),
    running(3),
    ...end('Failed', 'leader-0'),
    restarted(1, 3),
    compare('restarted once, blocking'),
  ]),
  scenario('js-max-restarts', 'maxRestarts 1: fails, restarts, fails again → Failed ReachedMaxRestarts', [
    create({ failurePolicy: { maxRestarts: 1 }, replicatedJobs: [{ name: 'workers', replicas: 2 }] }),
    running(2),
    ...end('Failed', 'workers-0'),
    restarted(1, 2),
    // The second failure once the controller has seen attempt 1's Jobs ready (and recorded JobsReady), as upstream
    // has by then: failing a pod sooner races that reconcile on either side.
    condition('RestartingJobSet', 'False', 'JobsReady', LONG),
    ...end('Failed', 'workers-1'),
    failed('ReachedMaxRestarts'),
    wait('active Jobs deleted', childJobs(NAME, 1)),
    compare('failed: max restarts reached'),
  ]),
  scenario(
    'js-rule-failjobset-reason',
    'rule FailJobSet on reason PodFailurePolicy: exit 3 matches FailJob → the JobSet fails without restarting',
    [
      create({
        failurePolicy: {
          maxRestarts: 3,
          rules: [{ action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy'] }],
        },
        replicatedJobs: [{ name: 'workers', replicas: 2 }],
      }),
      running(2),
      ...end('Failed', 'workers-0'),
      jobDone('workers-0', 'Failed'),
      failed('FailJobSetFailurePolicyAction'),
      compare('failed by the rule'),
    ],
  ),
  scenario(
    'js-rule-reason-unmatched',
    'rule FailJobSet on reason BackoffLimitExceeded, the Job fails with PodFailurePolicy: the default restart applies',
    [
      create({
        failurePolicy: {
          maxRestarts: 3,
          rules: [{ action: 'FailJobSet', onJobFailureReasons: ['BackoffLimitExceeded'] }],
        },
        replicatedJobs: [{ name: 'workers', replicas: 2 }],
      }),
      running(2),
      ...end('Failed', 'workers-0'),
      restarted(1, 2),
      compare('restarted by default'),
    ],
  ),
  scenario(
    'js-rule-message-pattern',
    'rule FailJobSet on a message pattern: the Job fails "… exit code 3 matching FailJob rule …" → the JobSet fails',
    [
      create({
        failurePolicy: {
          maxRestarts: 3,
          rules: [
            { name: 'on_exit_3', action: 'FailJobSet', onJobFailureMessagePatterns: ['exit code 3 matching FailJob'] },
          ],
        },
        replicatedJobs: [{ name: 'workers', replicas: 2 }],
      }),
      running(2),
      ...end('Failed', 'workers-1'),
      failed('FailJobSetFailurePolicyAction'),
      compare('failed by the message rule'),
    ],
  ),
  scenario(
    'js-rule-restart-jobset',
    'rule RestartJobSet (named) with maxRestarts 1: restarts, counted; RestartingJobSet reason names the rule',
    [
      create({
        failurePolicy: { maxRestarts: 1, rules: [{ name: 'again', action: 'RestartJobSet' }] },
        replicatedJobs: [{ name: 'workers', replicas: 2 }],
      }),
      running(2),
      ...end('Failed', 'workers-0'),
      restarted(1, 2),
      wait('counted towards max', restarts(1, 1)),
      compare('restarted by the rule'),
    ],
  ),
  scenario(
    'js-rule-ignore-max-restarts',
    'rule RestartJobSetAndIgnoreMaxRestarts with maxRestarts 0: restarts without counting towards the max',
    [
      create({
        failurePolicy: { maxRestarts: 0, rules: [{ action: 'RestartJobSetAndIgnoreMaxRestarts' }] },
        replicatedJobs: [{ name: 'workers', replicas: 2 }],
      }),
      running(2),
      ...end('Failed', 'workers-0'),
      restarted(1, 2),
      wait('not counted towards max', restarts(1, 0)),
      compare('restarted, not counted'),
    ],
  ),
  scenario(
    'js-rule-target-rjobs',
    'rule FailJobSet for leader only, maxRestarts 2: a worker failure restarts, a leader failure fails the JobSet',
    [
      create({
        failurePolicy: { maxRestarts: 2, rules: [{ action: 'FailJobSet', targetReplicatedJobs: ['leader'] }] },
      }),
      running(3),
      ...end('Failed', 'workers-0'),
      restarted(1, 3),
      compare('worker failure restarted'),
      ...end('Failed', 'leader-0'),
      failed('FailJobSetFailurePolicyAction'),
      compare('leader failure failed the JobSet'),
    ],
  ),
  scenario(
    'js-rule-restartjob-refused',
    'rule RestartJob with the RestartJob feature gate off: the create is refused with the same message',
    [
      {
        do: 'kubectl',
        args: [
          'create',
          '-n',
          '{ns}',
          '-f',
          manifestFile(
            'restartjob',
            jobSet(NAME, { failurePolicy: { maxRestarts: 1, rules: [{ action: 'RestartJob' }] } }),
          ),
        ],
        expectFailure: true,
        record: 'create with RestartJob',
      },
      compare('nothing created'),
    ],
  ),
  scenario(
    'js-orphan-job-not-adopted',
    'a Job named as a child Job exists without owner: not adopted; the JobSet cannot create that Job',
    [
      { do: 'create', objects: [orphanChildJob()] },
      { do: 'create', objects: [jobSet(NAME, { replicatedJobs: [{ name: 'workers', replicas: 2 }] })] },
      wait('the other worker Job running', all(childJobs(NAME, 1), jobSetPodsRunning(NAME, 1))),
      compare('orphan kept, one child Job'),
    ],
  ),
  scenario('js-child-job-deleted', 'a running child Job deleted by hand is created again, same attempt', [
    create(),
    running(3),
    { do: 'delete', kind: 'Job', name: `${NAME}-workers-1` },
    wait(
      'the deleted Job back and running',
      all(childJobs(NAME, 3, { restartAttempt: 0 }), jobSetPodsRunning(NAME, 3)),
      LONG,
    ),
    compare('recreated'),
  ]),
  scenario(
    'js-volume-claims',
    'volumeClaimPolicies: claims made before the Jobs (owned under Delete, not Retain), mounted by name; JobSet deleted',
    [
      create({
        replicatedJobs: [
          { name: 'trainer', replicas: 1, mounts: ['dataset', 'checkpoints'] },
          { name: 'loader', replicas: 1 },
        ],
        volumeClaimPolicies: [
          { templates: [claimTemplate('dataset', { team: 'ml' })], retentionPolicy: { whenDeleted: 'Delete' } },
          { templates: [claimTemplate('checkpoints')], retentionPolicy: { whenDeleted: 'Retain' } },
        ],
      }),
      // Nothing binds the claims in the sandbox, so the pods stay unscheduled: the Jobs and claims are compared.
      wait('2 claims and 2 Jobs', all(jobSetClaims(NAME, 2), childJobs(NAME, 2)), LONG),
      compare('claims and Jobs'),
      { do: 'delete', kind: 'JobSet', name: NAME },
      wait('the JobSet gone, the Delete claim with it', all(jobSetGone(NAME), jobSetClaims(NAME, 1)), LONG),
      compare('the Retain claim left'),
    ],
  ),
];

/** A volumeClaimPolicies template: a claim of 1 Gi, ReadWriteMany. */
function claimTemplate(name: string, labels?: Labels): Record<string, unknown> {
  return {
    metadata: { name, ...(labels && { labels }) },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } },
  };
}

/**
 * Scale: run apart from the others (their pods and restarts would share the clusters with 600 Job creates and the
 * Job controllers' 600 status writes, and slow every wait).
 */
export const JOBSET_SCALE_SCENARIOS: readonly Scenario[] = [
  scenario(
    'js-600-jobs',
    `replicas ${MANY} of one-pod Jobs, suspended: ${MANY} Jobs in one namespace (more than one list page)`,
    [
      create({
        suspend: true,
        replicatedJobs: [{ name: 'w', replicas: MANY }],
        network: { enableDNSHostnames: false },
      }),
      wait(`${MANY} suspended Jobs`, childJobs(NAME, MANY, { suspended: true }), 240_000),
      condition('Suspended', 'True'),
      { do: 'compare', label: `${MANY} suspended Jobs`, timeoutMs: 120_000 },
    ],
  ),
];
