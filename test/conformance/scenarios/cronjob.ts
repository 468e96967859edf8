// CronJob scenarios: each runs on both sides (upstream-1's cronjob-controller and job-controller; fleetq's
// shared/controllers/cronjob/ and job/) and compares the normalized state at every `compare` step. The schedule is
// `* * * * *`, so runs come on the minute: a scenario creates its CronJob, and compares, between :05 and :45 of a
// minute (midMinute), so both sides are in the same minute; the normalizer names each run's Job by its minute
// after the CronJob's creation (`nightly-+2`). Pods end only when a step says so (kwok's outcome stages). Waits
// for a run carry deadlines past the minute, never sleeps. Invariants: never two unfinished Jobs under Forbid or
// Replace; never more Jobs than the scenario can have (no run created twice, history limits).
import { cronJobJobsBound, cronJobOneActiveJob } from '../../helpers/conformance/invariants.js';
import {
  all,
  cronJobActive,
  cronJobFinished,
  cronJobJobs,
  cronJobLastRun,
  midMinute,
  pastRun,
} from '../../helpers/conformance/predicates.js';
import type { CronJob, Invariant, Scenario, Step } from '../../helpers/conformance/types.js';
import { compare, wait } from './builders.js';
import { job } from './job.js';

const NAME = 'nightly';
/** A run comes on the minute: a wait for one allows a minute and a margin (a loaded machine is slow). */
const RUN_MS = 150_000;

type CronJobOptions = {
  readonly schedule?: string;
  readonly policy?: 'Allow' | 'Forbid' | 'Replace';
  readonly suspend?: boolean;
  readonly succeeded?: number;
  readonly failed?: number;
};

/** A CronJob whose Jobs run one pod on the kwok nodes until a step ends it (backoffLimit 0: one failure fails it). */
function cronJob(o: CronJobOptions = {}): CronJob {
  const { template } = job(NAME).spec;
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: NAME },
    spec: {
      schedule: o.schedule ?? '* * * * *',
      concurrencyPolicy: o.policy ?? 'Allow',
      ...(o.suspend !== undefined && { suspend: o.suspend }),
      ...(o.succeeded !== undefined && { successfulJobsHistoryLimit: o.succeeded }),
      ...(o.failed !== undefined && { failedJobsHistoryLimit: o.failed }),
      jobTemplate: {
        metadata: { labels: { cronjob: NAME }, annotations: { 'fleetq.dev/conformance': 'cronjob' } },
        spec: { backoffLimit: 0, template },
      },
    },
  };
}

const inMidMinute = (): Step => wait('between :05 and :45 of a minute', midMinute(), 70_000);
const jobs = (n: number, running: number, what: string): Step => wait(what, cronJobJobs(NAME, n, running), RUN_MS);
const end = (outcome: 'Succeeded' | 'Failed'): Step => ({
  do: 'endPods',
  filter: { count: 1 },
  outcome,
  ...(outcome === 'Failed' && { exitCode: 3 }),
});
const setSchedule = (schedule: string): Step => ({
  do: 'updateCronJob',
  name: NAME,
  mutate: (c) => {
    c.spec.schedule = schedule;
  },
});
const setSuspend = (suspend: boolean): Step => ({
  do: 'updateCronJob',
  name: NAME,
  mutate: (c) => {
    c.spec.suspend = suspend;
  },
});

function cronJobScenario(name: string, description: string, steps: Step[], invariants: Invariant[]): Scenario {
  return { name, kind: 'CronJob', description, steps, invariants };
}

export const CRONJOB_SCENARIOS: readonly Scenario[] = [
  cronJobScenario(
    'cronjob-allow-overlap',
    'Allow, every minute, pods never end: run 1 still runs when run 2 starts; both active',
    [
      inMidMinute(),
      { do: 'create', objects: [cronJob()] },
      jobs(1, 1, 'run 1 running'),
      jobs(2, 2, 'run 2 running beside run 1'),
      wait('both in status.active', cronJobActive(NAME, 2), 30_000),
      inMidMinute(),
      compare('two runs at once'),
    ],
    [cronJobJobsBound(NAME, 3)],
  ),
  cronJobScenario(
    'cronjob-forbid',
    'Forbid: run 2 is skipped while run 1 runs (JobAlreadyActive); when run 1 succeeds, the missed run 2 starts at once',
    [
      inMidMinute(),
      { do: 'create', objects: [cronJob({ policy: 'Forbid' })] },
      jobs(1, 1, 'run 1 running'),
      wait('run 2 time passed', pastRun(NAME, 2, 5), RUN_MS),
      compare('run 2 skipped: run 1 still runs'),
      end('Succeeded'),
      // No startingDeadlineSeconds: the run 2 time is still unmet, so it starts as soon as nothing is active.
      wait(
        'run 1 complete, the missed run 2 running and active',
        all(cronJobFinished(NAME, 1, 0), cronJobJobs(NAME, 2, 1), cronJobLastRun(NAME, 2), cronJobActive(NAME, 1)),
      ),
      compare('run 2 started once run 1 succeeded'),
    ],
    [cronJobOneActiveJob(NAME), cronJobJobsBound(NAME, 3)],
  ),
  cronJobScenario(
    'cronjob-replace',
    'Replace: at run 2, run 1 (still running) is deleted and run 2 created in its place',
    [
      inMidMinute(),
      { do: 'create', objects: [cronJob({ policy: 'Replace' })] },
      jobs(1, 1, 'run 1 running'),
      wait(
        'run 2 in place of run 1',
        all(cronJobLastRun(NAME, 2), cronJobJobs(NAME, 1, 1), cronJobActive(NAME, 1)),
        RUN_MS,
      ),
      inMidMinute(),
      compare('run 2 replaced run 1'),
    ],
    [cronJobOneActiveJob(NAME), cronJobJobsBound(NAME, 2)],
  ),
  cronJobScenario(
    'cronjob-history-limits',
    'successfulJobsHistoryLimit 1, failedJobsHistoryLimit 1: run 1 succeeds, run 2 fails, run 3 succeeds; run 1 is deleted',
    [
      inMidMinute(),
      { do: 'create', objects: [cronJob({ succeeded: 1, failed: 1 })] },
      jobs(1, 1, 'run 1 running'),
      end('Succeeded'),
      wait('run 1 complete', all(cronJobFinished(NAME, 1, 0), cronJobActive(NAME, 0))),
      jobs(2, 1, 'run 2 running'),
      end('Failed'),
      wait('run 2 failed', all(cronJobFinished(NAME, 1, 1), cronJobActive(NAME, 0))),
      jobs(3, 1, 'run 3 running'),
      end('Succeeded'),
      wait(
        'run 3 complete, run 1 deleted',
        all(cronJobFinished(NAME, 1, 1), cronJobJobs(NAME, 2), cronJobActive(NAME, 0)),
      ),
      compare('the last succeeded and the last failed Job kept; lastSuccessfulTime set'),
    ],
    [cronJobJobsBound(NAME, 3)],
  ),
  cronJobScenario(
    'cronjob-suspend-resume',
    'created suspended: no run at run 1; resumed: the missed run 1 starts at once',
    [
      inMidMinute(),
      { do: 'create', objects: [cronJob({ suspend: true })] },
      wait('run 1 time passed', pastRun(NAME, 1, 5), RUN_MS),
      compare('suspended: no run'),
      setSuspend(false),
      jobs(1, 1, 'the missed run 1 running'),
      compare('resumed: the missed run started'),
    ],
    [cronJobJobsBound(NAME, 3)],
  ),
  // Upstream's updateCronJob does not sync on a schedule change: it requeues for the new schedule's next time
  // (nextScheduleTimeDuration); fleetq syncs at once and requeues for the same time. Both agree while no time of
  // the new schedule lies between the last run (or the creation) and the change, as here: the change comes in the
  // minute of the creation (between :05 and :45, so well before the next minute).
  cronJobScenario(
    'cronjob-schedule-change',
    'schedule changed from yearly to every minute: the next minute runs (requeued for the new time); changed ' +
      'back to yearly after run 1: no run 2',
    [
      inMidMinute(),
      { do: 'create', objects: [cronJob({ schedule: '0 0 1 1 *' })] },
      setSchedule('* * * * *'),
      jobs(1, 1, 'run 1 (the new schedule’s first minute) running'),
      wait('run 1 is the minute after the creation', cronJobLastRun(NAME, 1), 30_000),
      inMidMinute(),
      compare('run 1 at the new schedule'),
      setSchedule('0 0 1 1 *'),
      wait('run 2 time passed', pastRun(NAME, 2, 10), RUN_MS),
      compare('back to yearly: no run 2'),
    ],
    [cronJobJobsBound(NAME, 1)],
  ),
  cronJobScenario(
    'cronjob-manual-job',
    "kubectl create job --from=cronjob: the Job is the CronJob's (UnexpectedJob), never active; its success sets lastSuccessfulTime",
    [
      { do: 'create', objects: [cronJob({ schedule: '0 0 1 1 *' })] },
      {
        do: 'kubectl',
        args: ['-n', '{ns}', 'create', 'job', 'by-hand', `--from=cronjob/${NAME}`],
        expectFailure: false,
      },
      jobs(1, 1, 'the Job made by hand running'),
      compare('by hand: running, not in status.active'),
      end('Succeeded'),
      wait('complete', cronJobFinished(NAME, 1, 0)),
      compare('by hand: succeeded, lastSuccessfulTime set'),
    ],
    [cronJobJobsBound(NAME, 1)],
  ),
];
