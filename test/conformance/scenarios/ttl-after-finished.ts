// TTL-after-finished scenarios: each runs on both sides (upstream-1's ttl-after-finished-controller and
// job-controller; fleetq's shared/controllers/ttl-after-finished/ and job/) and compares the normalized state at
// every `compare` step. The deletion is the garbage collector's on both sides (Foreground: the Job goes after its
// pods). Besides the Job invariants, every sample checks that no Job is marked for deletion or gone before its
// finish time + TTL (jobKeptForTtl). Waits carry deadlines, never sleeps.
import { jobInvariants, jobKeptForTtl } from '../../helpers/conformance/invariants.js';
import { jobCondition, jobRunning } from '../../helpers/conformance/predicates.js';
import type { Job, Scenario, Step } from '../../helpers/conformance/types.js';
import { compare, wait } from './builders.js';
import { job, type JobOptions } from './job.js';

const NAME = 'work';

function ttlJob(ttlSecondsAfterFinished: number | undefined, o: JobOptions = {}): Job {
  const j = job(NAME, { completions: 1, parallelism: 1, ...o });
  if (ttlSecondsAfterFinished !== undefined) j.spec.ttlSecondsAfterFinished = ttlSecondsAfterFinished;
  return j;
}

const running = (n: number): Step => wait(`${n} pods running`, jobRunning(NAME, n));
const end = (outcome: 'Succeeded' | 'Failed', count = 1): Step => ({
  do: 'endPods',
  filter: { owner: NAME, count },
  outcome,
  ...(outcome === 'Failed' && { exitCode: 3 }),
});
const complete = (): Step => wait('Complete', jobCondition(NAME, 'Complete', 'True', 'CompletionsReached'));
const gone = (): Step =>
  wait(
    'the Job and its pods gone',
    (s) => (s.jobs.length === 0 && s.pods.length === 0) || `${s.jobs.length} Job(s), ${s.pods.length} pod(s) remain`,
    60_000,
  );

function ttlScenario(name: string, description: string, steps: Step[]): Scenario {
  return {
    name,
    kind: 'TTLAfterFinished',
    description,
    steps,
    invariants: [...jobInvariants(NAME), jobKeptForTtl(NAME)],
  };
}

export const TTL_SCENARIOS: readonly Scenario[] = [
  ttlScenario(
    'ttl-complete-deleted',
    'ttlSecondsAfterFinished 2, completions 2: both pods succeed, Complete, then the Job is deleted with its pods',
    [
      { do: 'create', objects: [ttlJob(2, { completions: 2, parallelism: 2 })] },
      running(2),
      compare('running'),
      end('Succeeded', 2),
      gone(),
      compare('deleted with its pods'),
    ],
  ),
  ttlScenario('ttl-long-kept', 'ttlSecondsAfterFinished 3600: Complete, and the Job and its pod are kept', [
    { do: 'create', objects: [ttlJob(3600)] },
    running(1),
    end('Succeeded'),
    complete(),
    compare('complete, kept for its TTL'),
  ]),
  ttlScenario('ttl-failed-zero', 'ttlSecondsAfterFinished 0, backoffLimit 0: the pod fails, Failed, deleted at once', [
    { do: 'create', objects: [ttlJob(0, { backoffLimit: 0 })] },
    running(1),
    end('Failed'),
    gone(),
    compare('failed, deleted with its pod'),
  ]),
  ttlScenario(
    'ttl-set-after-finish',
    'no TTL: Complete and kept; ttlSecondsAfterFinished 1 set afterwards: deleted with its pod',
    [
      { do: 'create', objects: [ttlJob(undefined)] },
      running(1),
      end('Succeeded'),
      complete(),
      compare('complete, no TTL: kept'),
      {
        do: 'updateJob',
        name: NAME,
        mutate: (j) => {
          j.spec.ttlSecondsAfterFinished = 1;
        },
      },
      gone(),
      compare('deleted once a TTL was set'),
    ],
  ),
];
