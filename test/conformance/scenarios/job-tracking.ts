// Pod tracking under a handler death (issue 11 §1): every succeeded or failed pod is counted exactly once, even
// when the handler dies between removing a pod's batch.kubernetes.io/job-tracking finalizer and writing status.
// Upstream (trackJobStatusAndRemoveFinalizers) records a terminated pod's uid in status.uncountedTerminatedPods,
// then removes its finalizer, then moves the uid to succeeded/failed; fleetq does the same over passes
// (shared/controllers/job/tracking.ts). The Job carries the annotation that arms the fault of the conformance
// runner's fleetq (test/helpers/conformance/faults.ts): the run that removes the finalizer dies before its status
// write, without telling the queue, so the key comes back only when its lease expires (30 s) and a new run
// finishes the move. A step on the fleetq side waits for that gap's visible state (a recorded uid whose pod has no
// finalizer left), so the scenario shows the kill happened; the upstream side ignores the annotation. The counts
// must then equal upstream's, and the sampler's invariant (status.succeeded never exceeds the succeeded pods seen)
// holds throughout. A controller that counted a pod without recording it first would lose the count at the kill
// (the finalizer gone, the status never written) and never reach the third success.
import { jobInvariants } from '../../helpers/conformance/invariants.js';
import { DIE_AFTER_FINALIZER_REMOVAL, FAULT_ANNOTATION } from '../../helpers/conformance/faults.js';
import { all, jobCondition, jobRunning, jobStatus } from '../../helpers/conformance/predicates.js';
import type { Check, Scenario, Snapshot, Step } from '../../helpers/conformance/types.js';
import { compare, wait } from './builders.js';
import { job } from './job.js';

const NAME = 'work';
const TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** A count that waits for a lease to expire (30 s) after the kill, on a loaded machine. */
const AFTER_KILL_MS = 120_000;

/**
 * On the fleetq side only: the gap is visible, a uid recorded in status.uncountedTerminatedPods whose pod has lost
 * its finalizer (or is gone). Upstream closes it within one sync; a killed fleetq run leaves it for a lease.
 */
function gap(outcome: 'succeeded' | 'failed'): Step {
  const seen = (s: Snapshot): Check => {
    const j = s.jobs.find((x) => x.metadata.name === NAME);
    const uids = j?.status?.uncountedTerminatedPods?.[outcome] ?? [];
    const open = uids.filter((uid) => {
      const pod = s.pods.find((p) => p.metadata.uid === uid);
      return pod === undefined || !(pod.metadata.finalizers ?? []).includes(TRACKING_FINALIZER);
    });
    return open.length > 0 || `${uids.length} uncounted ${outcome} uid(s), none without its finalizer`;
  };
  return {
    do: 'on',
    side: 'b',
    step: wait(`the handler killed at the gap: a ${outcome} pod recorded, its finalizer gone, not yet counted`, seen),
  };
}

const end = (outcome: 'Succeeded' | 'Failed', count: number): Step => ({
  do: 'endPods',
  filter: { owner: NAME, count },
  outcome,
  ...(outcome === 'Failed' && { exitCode: 3 }),
});

export const JOB_TRACKING_SCENARIOS: readonly Scenario[] = [
  {
    name: 'job-killed-at-finalizer-gap',
    kind: 'Job',
    description:
      'completions 3, parallelism 3: the handler dies after removing a succeeded, then a failed pod’s finalizer, ' +
      'before writing status; after the lease each is counted once',
    invariants: jobInvariants(NAME),
    steps: [
      {
        do: 'create',
        objects: [
          (() => {
            const j = job(NAME, { completions: 3, parallelism: 3, backoffLimit: 2 });
            j.metadata.annotations = { [FAULT_ANNOTATION]: DIE_AFTER_FINALIZER_REMOVAL };
            return j;
          })(),
        ],
      },
      wait('3 pods running', jobRunning(NAME, 3)),
      end('Succeeded', 1),
      gap('succeeded'),
      wait(
        '1 succeeded, 2 running',
        all(jobStatus(NAME, { succeeded: 1, active: 2 }), jobRunning(NAME, 2)),
        AFTER_KILL_MS,
      ),
      compare('one succeeded, counted once after the kill'),
      end('Failed', 1),
      gap('failed'),
      wait(
        '1 failed and replaced, 2 running',
        all(jobStatus(NAME, { succeeded: 1, failed: 1 }), jobRunning(NAME, 2)),
        AFTER_KILL_MS,
      ),
      compare('one failed, counted once after the kill, replaced'),
      end('Succeeded', 2),
      wait('Complete', jobCondition(NAME, 'Complete', 'True', 'CompletionsReached'), AFTER_KILL_MS),
      compare('complete: 3 succeeded, 1 failed'),
    ],
  },
];
