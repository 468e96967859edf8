// Job scenarios: each runs on both sides (upstream-1's job-controller, fleetq's shared/controllers/job/) and
// compares the normalized state at every `compare` step. Pods end only when a step says so, through the
// sandbox's kwok outcome stages (`endPods`), so both sides see the same pods succeed or fail in the same order;
// waits carry deadlines, never sleeps (a failed pod's replacement comes after the 10 s re-creation backoff).
import { jobInvariants } from '../../helpers/conformance/invariants.js';
import { all, jobCondition, jobRunning, jobStatus } from '../../helpers/conformance/predicates.js';
import type { Check, Job, Labels, PodFilter, Scenario, Snapshot, Step } from '../../helpers/conformance/types.js';
import { compare, orphanPod, podTemplate, wait } from './builders.js';

const NAME = 'work';

export type JobOptions = {
  readonly completions?: number;
  readonly parallelism?: number;
  readonly indexed?: boolean;
  readonly backoffLimit?: number;
  readonly activeDeadlineSeconds?: number;
  readonly suspend?: boolean;
  /** manualSelector: true with this selector (and template labels); else the apiserver generates both. */
  readonly manualSelector?: Labels;
};

/** A Job whose pods run on the kwok nodes until a step ends them (restartPolicy Never). */
export function job(name: string, o: JobOptions = {}): Job {
  const labels = o.manualSelector ?? { app: name };
  const template = podTemplate(labels);
  template.spec = { ...template.spec, restartPolicy: 'Never' };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...(o.completions !== undefined && { completions: o.completions }),
      ...(o.parallelism !== undefined && { parallelism: o.parallelism }),
      ...(o.indexed && { completionMode: 'Indexed' as const }),
      ...(o.backoffLimit !== undefined && { backoffLimit: o.backoffLimit }),
      ...(o.activeDeadlineSeconds !== undefined && { activeDeadlineSeconds: o.activeDeadlineSeconds }),
      ...(o.suspend !== undefined && { suspend: o.suspend }),
      ...(o.manualSelector !== undefined && { manualSelector: true, selector: { matchLabels: o.manualSelector } }),
      template,
    },
  };
}

/** Pods no node accepts: they stay Pending. */
function unschedulable(j: Job): Job {
  const spec = j.spec.template.spec ?? {};
  j.spec.template.spec = {
    ...spec,
    nodeSelector: { ...(spec.nodeSelector as Labels), 'fleetq.dev/conformance': 'no-such-node' },
  };
  return j;
}

const running = (n: number): Step => wait(`${n} pods running`, jobRunning(NAME, n));
const end = (outcome: 'Succeeded' | 'Failed', filter: Omit<PodFilter, 'owner'> = {}): Step => ({
  do: 'endPods',
  filter: { owner: NAME, ...filter },
  outcome,
  ...(outcome === 'Failed' && { exitCode: 3 }),
});
const complete = (): Step => wait('Complete', jobCondition(NAME, 'Complete', 'True', 'CompletionsReached'));
const mutate = (f: (j: Job) => void): Step => ({ do: 'updateJob', name: NAME, mutate: f });

/** status.completedIndexes is exactly `want` ('' when none). */
const completedIndexes =
  (want: string) =>
  (s: Snapshot): Check => {
    const got = s.jobs.find((j) => j.metadata.name === NAME)?.status?.completedIndexes ?? '';
    return got === want || `completedIndexes ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
  };

function jobScenario(name: string, description: string, steps: Step[]): Scenario {
  return { name, kind: 'Job', description, steps, invariants: jobInvariants(NAME) };
}

export const JOB_SCENARIOS: readonly Scenario[] = [
  jobScenario(
    'job-nonindexed-complete',
    'NonIndexed, completions 3, parallelism 2: 2 succeed, the third runs, then Complete',
    [
      { do: 'create', objects: [job(NAME, { completions: 3, parallelism: 2 })] },
      running(2),
      compare('two running'),
      end('Succeeded', { count: 2 }),
      wait('2 succeeded, the last pod running', all(jobStatus(NAME, { succeeded: 2 }), jobRunning(NAME, 1))),
      compare('two succeeded, one running'),
      end('Succeeded'),
      complete(),
      compare('complete'),
    ],
  ),
  jobScenario('job-indexed-complete', 'Indexed, completions 3, parallelism 3: indexes 0 and 2 succeed, then 1', [
    { do: 'create', objects: [job(NAME, { completions: 3, parallelism: 3, indexed: true })] },
    running(3),
    compare('three indexes running (index label and annotation, hostname work-<index>)'),
    end('Succeeded', { index: 0 }),
    end('Succeeded', { index: 2 }),
    wait('indexes 0 and 2 completed', jobStatus(NAME, { succeeded: 2, active: 1 })),
    compare('completedIndexes 0,2'),
    end('Succeeded', { index: 1 }),
    complete(),
    compare('complete: completedIndexes 0-2'),
  ]),
  jobScenario(
    'job-nil-completions',
    'no completions, parallelism 2: once one succeeds none is replaced; the other ends it',
    [
      { do: 'create', objects: [job(NAME, { parallelism: 2 })] },
      running(2),
      end('Succeeded'),
      wait('1 succeeded, 1 running', all(jobStatus(NAME, { succeeded: 1 }), jobRunning(NAME, 1))),
      compare('one succeeded, no replacement'),
      end('Succeeded'),
      complete(),
      compare('complete'),
    ],
  ),
  jobScenario(
    'job-backoff-limit',
    'backoffLimit 1: a pod fails, its replacement (after the 10 s backoff) fails → Failed',
    [
      { do: 'create', objects: [job(NAME, { completions: 1, parallelism: 1, backoffLimit: 1 })] },
      running(1),
      end('Failed'),
      wait('1 failed, its replacement running', all(jobStatus(NAME, { failed: 1 }), jobRunning(NAME, 1)), 60_000),
      compare('one failed, replaced'),
      end('Failed'),
      wait('Failed BackoffLimitExceeded', jobCondition(NAME, 'Failed', 'True', 'BackoffLimitExceeded'), 60_000),
      compare('failed: backoff limit exceeded'),
    ],
  ),
  jobScenario(
    'job-active-deadline',
    'activeDeadlineSeconds 5 with pods running: Failed DeadlineExceeded, pods deleted',
    [
      { do: 'create', objects: [job(NAME, { completions: 4, parallelism: 2, activeDeadlineSeconds: 5 })] },
      wait('Failed DeadlineExceeded', jobCondition(NAME, 'Failed', 'True', 'DeadlineExceeded'), 60_000),
      wait('no active pod', jobStatus(NAME, { active: 0 })),
      compare('failed: deadline exceeded'),
    ],
  ),
  jobScenario('job-suspend-resume', 'suspend a running Job (pods deleted, Suspended), resume it, then complete', [
    { do: 'create', objects: [job(NAME, { completions: 2, parallelism: 2 })] },
    running(2),
    mutate((j) => {
      j.spec.suspend = true;
    }),
    wait('Suspended, no active pod', all(jobCondition(NAME, 'Suspended', 'True'), jobStatus(NAME, { active: 0 }))),
    compare('suspended'),
    mutate((j) => {
      j.spec.suspend = false;
    }),
    wait('resumed, 2 running', all(jobCondition(NAME, 'Suspended', 'False'), jobRunning(NAME, 2))),
    compare('resumed'),
    end('Succeeded', { count: 2 }),
    complete(),
    compare('complete'),
  ]),
  jobScenario('job-scale-parallelism', 'completions 6: parallelism 2 → 4 while running, then 4 → 1, then all succeed', [
    { do: 'create', objects: [job(NAME, { completions: 6, parallelism: 2 })] },
    running(2),
    mutate((j) => {
      j.spec.parallelism = 4;
    }),
    running(4),
    compare('parallelism 4'),
    mutate((j) => {
      j.spec.parallelism = 1;
    }),
    running(1),
    compare('parallelism 1'),
    ...Array.from({ length: 6 }, (): Step[] => [running(1), end('Succeeded')]).flat(),
    complete(),
    compare('complete'),
  ]),
  jobScenario(
    'job-elastic-indexed',
    'Indexed, completions = parallelism, changed together: 3 → 5 (indexes 3, 4 created), then 5 → 2 (index 2 deleted, ' +
      'completed indexes 3, 4 dropped), then index 1 completes it',
    [
      { do: 'create', objects: [job(NAME, { completions: 3, parallelism: 3, indexed: true })] },
      running(3),
      end('Succeeded', { index: 0 }),
      wait('index 0 done', all(jobStatus(NAME, { succeeded: 1 }), jobRunning(NAME, 2))),
      mutate((j) => {
        j.spec.completions = 5;
        j.spec.parallelism = 5;
      }),
      running(4),
      compare('scaled up to 5: indexes 1-4 running'),
      end('Succeeded', { index: 3 }),
      end('Succeeded', { index: 4 }),
      wait('indexes 0, 3, 4 done', all(completedIndexes('0,3,4'), jobRunning(NAME, 2))),
      compare('completedIndexes 0,3,4'),
      mutate((j) => {
        j.spec.completions = 2;
        j.spec.parallelism = 2;
      }),
      wait(
        'scaled down to 2: index 1 running',
        all(completedIndexes('0'), jobRunning(NAME, 1), jobStatus(NAME, { active: 1 })),
      ),
      compare('scaled down to 2: index 2 deleted, indexes 3, 4 out of range'),
      end('Succeeded', { index: 1 }),
      complete(),
      compare('complete: completedIndexes 0,1'),
    ],
  ),
  jobScenario(
    'job-failure-then-success',
    'a pod fails (counted, replaced after the backoff), the replacement succeeds',
    [
      { do: 'create', objects: [job(NAME, { completions: 1, parallelism: 1, backoffLimit: 3 })] },
      running(1),
      end('Failed'),
      wait('1 failed, its replacement running', all(jobStatus(NAME, { failed: 1 }), jobRunning(NAME, 1)), 60_000),
      end('Succeeded'),
      complete(),
      compare('complete with one failure'),
    ],
  ),
  jobScenario('job-indexed-backoff', 'Indexed, completions 3: index 1 fails twice with backoffLimit 1 → Failed', [
    { do: 'create', objects: [job(NAME, { completions: 3, parallelism: 3, indexed: true, backoffLimit: 1 })] },
    running(3),
    end('Succeeded', { index: 0 }),
    end('Failed', { index: 1 }),
    wait('index 1 failed and replaced', all(jobStatus(NAME, { failed: 1, succeeded: 1 }), jobRunning(NAME, 2)), 60_000),
    compare('index 0 done, index 1 replaced'),
    end('Failed', { index: 1 }),
    wait('Failed BackoffLimitExceeded', jobCondition(NAME, 'Failed', 'True', 'BackoffLimitExceeded'), 60_000),
    wait('no active pod', jobStatus(NAME, { active: 0 })),
    compare('failed: index 2 deleted and counted'),
  ]),
  jobScenario('job-pod-deleted', 'a running pod is deleted: counted as failed and replaced', [
    { do: 'create', objects: [job(NAME, { completions: 2, parallelism: 2 })] },
    running(2),
    { do: 'deletePods', filter: { owner: NAME } },
    wait('1 failed, 2 running', all(jobStatus(NAME, { failed: 1 }), jobRunning(NAME, 2)), 60_000),
    compare('deleted pod counted, replaced'),
    end('Succeeded', { count: 2 }),
    complete(),
    compare('complete'),
  ]),
  jobScenario(
    'job-deleted-while-running',
    'the Job is deleted with pods running: its pods lose their finalizer and go',
    [
      { do: 'create', objects: [job(NAME, { completions: 3, parallelism: 2 })] },
      running(2),
      end('Succeeded'),
      wait('1 succeeded', jobStatus(NAME, { succeeded: 1 })),
      { do: 'delete', kind: 'Job', name: NAME },
      wait('no Job, no pod', (s) => (s.jobs.length === 0 && s.pods.length === 0) || `${s.pods.length} pods remain`),
      compare('all gone'),
    ],
  ),
  jobScenario(
    'job-deleted-created-again',
    'the Job is deleted with pods running and created again at once under its name: the old pods lose the finalizer',
    [
      { do: 'create', objects: [job(NAME, { completions: 2, parallelism: 2 })] },
      running(2),
      { do: 'delete', kind: 'Job', name: NAME },
      { do: 'create', objects: [job(NAME, { completions: 2, parallelism: 2 })] },
      wait(
        "the new Job's 2 pods running, none of the old Job's left",
        all(jobRunning(NAME, 2), (s) => s.pods.length === 2 || `${s.pods.length} pods`),
        60_000,
      ),
      compare('old pods gone, new pods running'),
    ],
  ),
  jobScenario(
    'job-created-suspended',
    'created suspended: no pod, no startTime, Suspended; resumed, it runs and completes',
    [
      { do: 'create', objects: [job(NAME, { completions: 1, parallelism: 1, suspend: true })] },
      wait('Suspended', jobCondition(NAME, 'Suspended', 'True')),
      compare('created suspended'),
      mutate((j) => {
        j.spec.suspend = false;
      }),
      running(1),
      compare('resumed'),
      end('Succeeded'),
      complete(),
      compare('complete'),
    ],
  ),
  jobScenario('job-zero-completions', 'completions 0: Complete at once, no pod', [
    { do: 'create', objects: [job(NAME, { completions: 0, parallelism: 2 })] },
    complete(),
    compare('complete'),
  ]),
  jobScenario('job-indexed-order', 'Indexed, completions 4, parallelism 2: the lowest missing index is created next', [
    { do: 'create', objects: [job(NAME, { completions: 4, parallelism: 2, indexed: true })] },
    running(2),
    compare('indexes 0 and 1'),
    end('Succeeded', { index: 1 }),
    wait('index 1 done, 2 running', all(jobStatus(NAME, { succeeded: 1 }), jobRunning(NAME, 2))),
    compare('indexes 0 and 2 running'),
    { do: 'deletePods', filter: { owner: NAME, index: 0 } },
    wait('index 0 replaced', all(jobStatus(NAME, { failed: 1 }), jobRunning(NAME, 2)), 60_000),
    compare('index 0 recreated'),
    end('Succeeded', { count: 2 }),
    wait('3 done', all(jobStatus(NAME, { succeeded: 3 }), jobRunning(NAME, 1))),
    end('Succeeded'),
    complete(),
    compare('complete'),
  ]),
  jobScenario('job-unschedulable', 'pods that no node accepts: active but not ready; the deadline fails the Job', [
    { do: 'create', objects: [unschedulable(job(NAME, { completions: 2, parallelism: 2, activeDeadlineSeconds: 8 }))] },
    wait('2 pending pods counted active', jobStatus(NAME, { active: 2, ready: 0 })),
    compare('pending'),
    wait('Failed DeadlineExceeded', jobCondition(NAME, 'Failed', 'True', 'DeadlineExceeded'), 60_000),
    wait('no active pod', jobStatus(NAME, { active: 0 })),
    compare('failed: deadline exceeded'),
  ]),
  jobScenario(
    'job-release-relabelled',
    'manualSelector: a running pod relabelled out of the selector is released and replaced',
    [
      { do: 'create', objects: [job(NAME, { completions: 2, parallelism: 2, manualSelector: { app: 'batch' } })] },
      running(2),
      { do: 'relabelPods', filter: { owner: NAME }, labels: { app: 'elsewhere' } },
      wait('2 running again', (s) => jobRunning(NAME, 2)(s)),
      wait('the released pod has no owner', (s) =>
        s.pods.some((p) => p.metadata.labels?.app === 'elsewhere' && !p.metadata.ownerReferences?.length)
          ? true
          : 'not released yet',
      ),
      compare('released and replaced'),
      end('Succeeded', { count: 2 }),
      complete(),
      compare('complete'),
    ],
  ),
  jobScenario(
    'job-manual-selector-adopt',
    'manualSelector: an orphan pod matching the selector is adopted and counted',
    [
      { do: 'create', objects: [orphanPod('stray', { app: 'batch' })] },
      wait('the orphan running', (s) => s.pods.some((p) => p.status?.phase === 'Running') || 'orphan not running'),
      { do: 'create', objects: [job(NAME, { completions: 2, parallelism: 2, manualSelector: { app: 'batch' } })] },
      running(2),
      compare('orphan adopted, one pod created'),
      end('Succeeded', { count: 2 }),
      complete(),
      compare('complete'),
    ],
  ),
];
