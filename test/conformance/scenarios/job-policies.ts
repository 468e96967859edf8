// Job failure and success policies, differential: each scenario runs on upstream-1 (kube-controller-manager's
// job-controller) and on fleetq-1 (shared/controllers/job/), and the normalized states are compared at every
// `compare` step (conditions with reason and message — a pod named in a FailJob message reads `<ns>/<pod>` —,
// counts, completedIndexes, failedIndexes, pods by state, index and per-index failure counts).
// Pods end through kwok's outcome stages (`endPods`, with an exit code) or, when a pod condition matters
// (DisruptionTarget), through a kubelet-like status write (`failPods`). Waits carry deadlines; a failed pod's
// replacement comes after the 10 s re-creation backoff (per index with backoffLimitPerIndex).
import { jobInvariants } from '../../helpers/conformance/invariants.js';
import { findJob, isActive, isTerminating, podsOwnedBy } from '../../helpers/conformance/model.js';
import { all, jobCondition, jobRunning, jobStatus } from '../../helpers/conformance/predicates.js';
import type { Check, Condition, Invariant, Job, Scenario, Snapshot, Step } from '../../helpers/conformance/types.js';
import { compare, wait } from './builders.js';
import { job, type JobOptions } from './job.js';

const NAME = 'work';
const LONG = 90_000;

type Rule = {
  action: 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';
  onExitCodes?: { containerName?: string; operator: 'In' | 'NotIn'; values: number[] };
  onPodConditions?: { type: string; status: string }[];
};
type PolicyOptions = JobOptions & {
  readonly rules?: readonly Rule[];
  readonly podReplacementPolicy?: 'Failed' | 'TerminatingOrFailed';
  readonly backoffLimitPerIndex?: number;
  readonly maxFailedIndexes?: number;
  readonly successPolicy?: { succeededIndexes?: string; succeededCount?: number }[];
  /** Pods no node accepts: they stay Pending. */
  readonly unschedulable?: boolean;
};

/** A Job of job.ts's kind with the policy fields the 1.37 API has (the conformance Job type leaves them out). */
function policyJob(o: PolicyOptions): Job {
  const j = job(NAME, o);
  const spec = j.spec as Job['spec'] & Record<string, unknown>;
  if (o.rules) spec.podFailurePolicy = { rules: o.rules };
  if (o.podReplacementPolicy) spec.podReplacementPolicy = o.podReplacementPolicy;
  if (o.backoffLimitPerIndex !== undefined) spec.backoffLimitPerIndex = o.backoffLimitPerIndex;
  if (o.maxFailedIndexes !== undefined) spec.maxFailedIndexes = o.maxFailedIndexes;
  if (o.successPolicy) spec.successPolicy = { rules: o.successPolicy };
  if (o.unschedulable) {
    const podSpec = j.spec.template.spec ?? {};
    j.spec.template.spec = {
      ...podSpec,
      nodeSelector: { ...(podSpec.nodeSelector as Record<string, string>), 'fleetq.dev/conformance': 'no-such-node' },
    };
  }
  return j;
}

const create = (o: PolicyOptions): Step => ({ do: 'create', objects: [policyJob(o)] });
const running = (n: number, timeoutMs?: number): Step => wait(`${n} pods running`, jobRunning(NAME, n), timeoutMs);
const succeed = (o: { index?: number; count?: number } = {}): Step => ({
  do: 'endPods',
  filter: { owner: NAME, ...o },
  outcome: 'Succeeded',
});
const fail = (exitCode: number, o: { index?: number; count?: number } = {}): Step => ({
  do: 'endPods',
  filter: { owner: NAME, ...o },
  outcome: 'Failed',
  exitCode,
});
const DISRUPTED: Condition = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' };
const disrupt = (o: { index?: number } = {}): Step => ({
  do: 'failPods',
  filter: { owner: NAME, ...o },
  exitCode: 137,
  conditions: [DISRUPTED],
});
const failed = (reason: string, timeoutMs = LONG): Step =>
  wait(`Failed ${reason}`, jobCondition(NAME, 'Failed', 'True', reason), timeoutMs);
const complete = (reason: string): Step =>
  wait(`Complete ${reason}`, jobCondition(NAME, 'Complete', 'True', reason), LONG);

/** The Job's status fields the shared predicates do not read. */
const jobField =
  (field: 'terminating' | 'failedIndexes' | 'completedIndexes', want: number | string) =>
  (s: Snapshot): Check => {
    const v = findJob(s, NAME)?.status?.[field];
    return (v ?? (typeof want === 'number' ? 0 : '')) === want ? true : `${field} ${String(v)}, want ${want}`;
  };

/**
 * podReplacementPolicy Failed: a replacement waits for its predecessor to be Failed, so the Job's pods that are
 * not yet terminal, terminating ones included, never outnumber parallelism.
 */
function noReplacementWhileTerminating(parallelism: number): Invariant {
  return {
    name: `${NAME}: non-terminal pods (terminating included) ≤ parallelism`,
    graceMs: 0,
    check: (s) => {
      const j = findJob(s, NAME);
      if (!j) return null;
      const pods = podsOwnedBy(s, j.metadata.uid).filter(
        (p) =>
          isActive(p) || (isTerminating(p.metadata) && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded'),
      );
      return pods.length <= parallelism ? null : `${pods.length} non-terminal pods > ${parallelism}`;
    },
  };
}

function policyScenario(name: string, description: string, steps: Step[], extra: Invariant[] = []): Scenario {
  return { name, kind: 'Job', description, steps, invariants: [...jobInvariants(NAME), ...extra] };
}

export const JOB_POLICY_SCENARIOS: readonly Scenario[] = [
  policyScenario(
    'job-pfp-failjob-exit-code',
    'podFailurePolicy FailJob on exit code 42: FailureTarget then Failed PodFailurePolicy, the other pod deleted',
    [
      create({
        completions: 2,
        parallelism: 2,
        rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }],
      }),
      running(2),
      fail(42),
      failed('PodFailurePolicy'),
      wait('no active pod', jobStatus(NAME, { active: 0 })),
      compare('failed by the FailJob rule (message names container app and exit code 42, rule index 0)'),
    ],
  ),
  policyScenario(
    'job-pfp-ignore-disruption',
    'Ignore on DisruptionTarget with backoffLimit 0: the disrupted pod is not counted and is replaced; then Complete',
    [
      create({
        completions: 1,
        parallelism: 1,
        backoffLimit: 0,
        rules: [
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
        ],
      }),
      running(1),
      disrupt(),
      wait('the disrupted pod replaced, failed 0', all(jobRunning(NAME, 1), jobStatus(NAME, { failed: 0 })), LONG),
      compare('disruption ignored: replaced, not counted'),
      succeed(),
      complete('CompletionsReached'),
      compare('complete with failed 0'),
    ],
  ),
  policyScenario(
    'job-pfp-count',
    'Count on exit code 3, Ignore on 5, backoffLimit 1: exit 5 is ignored, two exit 3 exceed the limit',
    [
      create({
        completions: 1,
        parallelism: 1,
        backoffLimit: 1,
        rules: [
          { action: 'Ignore', onExitCodes: { operator: 'In', values: [5] } },
          { action: 'Count', onExitCodes: { operator: 'In', values: [3] } },
        ],
      }),
      running(1),
      fail(5),
      wait('replaced, failed 0', all(jobRunning(NAME, 1), jobStatus(NAME, { failed: 0 })), LONG),
      fail(3),
      wait('replaced, failed 1', all(jobRunning(NAME, 1), jobStatus(NAME, { failed: 1 })), LONG),
      compare('one ignored, one counted'),
      fail(3),
      failed('BackoffLimitExceeded'),
      compare('failed: backoff limit exceeded by counted failures only'),
    ],
  ),
  policyScenario(
    'job-pfp-failjob-condition',
    'FailJob on DisruptionTarget: the Job fails with the condition message; the other pods are deleted',
    [
      create({
        completions: 3,
        parallelism: 3,
        rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
      }),
      running(3),
      disrupt(),
      failed('PodFailurePolicy'),
      wait('no active pod', jobStatus(NAME, { active: 0 })),
      compare('failed: pod has condition DisruptionTarget matching FailJob rule at index 0'),
    ],
  ),
  policyScenario(
    'job-replacement-failed',
    'podReplacementPolicy Failed, backoffLimit 0: a deleted running pod stays terminating, neither counted nor replaced',
    [
      create({
        completions: 2,
        parallelism: 2,
        backoffLimit: 0,
        podReplacementPolicy: 'Failed',
        activeDeadlineSeconds: 45,
      }),
      running(2),
      { do: 'deletePods', filter: { owner: NAME } },
      // kwok does not end a deleted pod that still has the tracking finalizer: it stays Running and terminating.
      wait(
        '1 running, 1 terminating, failed 0',
        all(jobRunning(NAME, 1), jobStatus(NAME, { failed: 0 }), jobField('terminating', 1)),
      ),
      compare('the terminating pod is neither counted as failed (backoffLimit 0) nor replaced'),
      // The deadline ends it: every pod, the terminating one included, is then counted failed.
      failed('DeadlineExceeded'),
      wait('no active pod, none terminating', all(jobStatus(NAME, { active: 0 }), jobField('terminating', 0)), LONG),
      compare('failed: deadline exceeded'),
    ],
    [noReplacementWhileTerminating(2)],
  ),
  policyScenario(
    'job-replacement-failed-podgc',
    'podReplacementPolicy Failed: a deleted unscheduled pod counts as failed once PodGC marks it Failed; then replaced',
    [
      create({ completions: 2, parallelism: 2, podReplacementPolicy: 'Failed', unschedulable: true }),
      wait('2 pending pods active', jobStatus(NAME, { active: 2, ready: 0 })),
      { do: 'deletePods', filter: { owner: NAME } },
      // It stays terminating (not failed, not replaced) until PodGC, within its 20 s period, sets phase Failed;
      // that window is not waited for (one side may reconcile after it closed): the invariant samples it.
      wait(
        'counted failed and replaced',
        all(jobStatus(NAME, { active: 2, failed: 1 }), jobField('terminating', 0)),
        LONG,
      ),
      compare('replaced once Failed'),
    ],
    [noReplacementWhileTerminating(2)],
  ),
  policyScenario(
    'job-per-index-max-failed',
    'backoffLimitPerIndex 1, maxFailedIndexes 1: index 1 fails twice (failedIndexes "1"), others succeed → FailedIndexes',
    [
      create({ completions: 3, parallelism: 3, indexed: true, backoffLimitPerIndex: 1, maxFailedIndexes: 1 }),
      running(3),
      fail(3, { index: 1 }),
      wait('index 1 replaced', all(jobRunning(NAME, 3), jobStatus(NAME, { failed: 1 })), LONG),
      compare('index 1 recreated with failure count 1'),
      fail(3, { index: 1 }),
      wait('index 1 failed', all(jobField('failedIndexes', '1'), jobRunning(NAME, 2)), LONG),
      compare('failedIndexes 1, index 1 not recreated'),
      succeed({ index: 0 }),
      succeed({ index: 2 }),
      failed('FailedIndexes'),
      compare('failed: every index done, one failed'),
    ],
  ),
  policyScenario(
    'job-per-index-exceeded',
    'backoffLimitPerIndex 0, maxFailedIndexes 0: one index fails → MaxFailedIndexesExceeded, the others deleted',
    [
      create({ completions: 4, parallelism: 2, indexed: true, backoffLimitPerIndex: 0, maxFailedIndexes: 0 }),
      running(2),
      fail(3, { index: 0 }),
      failed('MaxFailedIndexesExceeded'),
      wait('no active pod', jobStatus(NAME, { active: 0 })),
      compare('failed: max failed indexes exceeded'),
    ],
  ),
  policyScenario(
    'job-pfp-fail-index',
    'FailIndex on exit code 42 (backoffLimitPerIndex 3): index 0 fails at once, Ignore keeps index 2 going',
    [
      create({
        completions: 3,
        parallelism: 3,
        indexed: true,
        backoffLimitPerIndex: 3,
        rules: [
          { action: 'FailIndex', onExitCodes: { operator: 'In', values: [42] } },
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        ],
      }),
      running(3),
      fail(42, { index: 0 }),
      disrupt({ index: 2 }),
      wait(
        'index 0 failed, index 2 replaced',
        all(jobField('failedIndexes', '0'), jobRunning(NAME, 2), jobStatus(NAME, { failed: 1 })),
        LONG,
      ),
      compare('failedIndexes 0; index 2 recreated with ignored count 1'),
      succeed({ count: 2 }),
      failed('FailedIndexes'),
      compare('failed: failed indexes'),
    ],
  ),
  policyScenario(
    'job-success-policy-indexes',
    'successPolicy succeededIndexes "0": index 0 succeeds → SuccessCriteriaMet, the rest deleted, Complete',
    [
      create({ completions: 3, parallelism: 3, indexed: true, successPolicy: [{ succeededIndexes: '0' }] }),
      running(3),
      succeed({ index: 0 }),
      complete('SuccessPolicy'),
      wait('no active pod', jobStatus(NAME, { active: 0 })),
      compare('complete by success policy'),
    ],
  ),
  policyScenario(
    'job-success-policy-count',
    'successPolicy succeededCount 2 of indexes 1-3: indexes 3 and 1 succeed → Complete SuccessPolicy',
    [
      create({
        completions: 4,
        parallelism: 4,
        indexed: true,
        successPolicy: [{ succeededIndexes: '1-3', succeededCount: 2 }],
      }),
      running(4),
      succeed({ index: 0 }),
      succeed({ index: 3 }),
      wait('2 succeeded', all(jobStatus(NAME, { succeeded: 2 }), jobField('completedIndexes', '0,3'))),
      compare('index 0 does not count toward the rule'),
      succeed({ index: 1 }),
      complete('SuccessPolicy'),
      compare('complete by success policy'),
    ],
  ),
];
