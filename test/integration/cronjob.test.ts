// The CronJob controller against a real kube-apiserver (sandbox fleetq-2, whose controller-manager runs neither
// cronjob-controller nor job-controller): the real runtime in-process (reconcileOne, live cluster view, writer),
// with a registry entry owning CronJob and Job, and each controller's keys on a queue of its own. What it shows:
// `kubectl create job --from=cronjob/<name>` (the sandbox's own kubectl) on a fleetq-managed CronJob makes a Job
// that names the CronJob as its controller but carries no scheduled-timestamp annotation, and fleetq treats it as
// upstream's cronjob-controller (1.37) does: left alone while it runs (an UnexpectedJob warning, never in
// status.active), its success counted in status.lastSuccessfulTime without SawCompletedJob, and counted among the
// CronJob's succeeded Jobs by successfulJobsHistoryLimit. kwok runs the pods; the test ends one by annotating it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BatchV1Api, CoreV1Api, type V1CronJob } from '@kubernetes/client-node';
import type { Controller, PlanResult } from '../../shared/controllers/controller.js';
import { cronJobController } from '../../shared/controllers/cronjob/index.js';
import type { ObservedCronJob } from '../../shared/controllers/cronjob/types.js';
import { plannedEvents } from '../../shared/kube/actions.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { RecordingJobController, runJobToComplete, settleJob, type JobDriver } from '../helpers/pipeline/job-settle.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import {
  kubectlPath,
  kwokPodTemplate,
  sandboxCluster,
  testNamespace,
  type TestCluster,
} from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-2';
const CRONJOB = 'nightly';
const SCHEDULED = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

const execFileP = promisify(execFile);

describe('CronJob controller on a real apiserver: a Job made by hand from it (kubectl create job --from)', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let batch: BatchV1Api;
  let core: CoreV1Api;
  let cronQueue: MemoryQueue;
  let jobQueue: MemoryQueue;
  let cronDeps: ReconcileDeps;
  let jobDeps: ReconcileDeps;
  let lastCronPlan: PlanResult | undefined;
  const jobs = new RecordingJobController();
  let driver: JobDriver;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    batch = c.kc.makeApiClient(BatchV1Api);
    core = c.kc.makeApiClient(CoreV1Api);
    cronQueue = new MemoryQueue();
    jobQueue = new MemoryQueue();
    const cron: Controller<ObservedCronJob> = {
      ...cronJobController,
      plan: (o, now) => (lastCronPlan = cronJobController.plan(o, now)),
    };
    const controllers: Array<[string, Controller]> = [
      ['CronJob', cron as Controller],
      ['Job', jobs.controller as Controller],
    ];
    const owns = ['CronJob', 'Job'] as const;
    cronDeps = inProcessDeps(c, { owns, controllers, queue: cronQueue, service: 'cronjob-it' });
    jobDeps = inProcessDeps(c, { owns, controllers, queue: jobQueue, service: 'cronjob-it-job' });
    driver = { cluster: CLUSTER, namespace: ns.name, queue: jobQueue, deps: jobDeps, jobs, batch, core };
  });

  afterAll(async () => {
    await cronQueue?.close();
    await jobQueue?.close();
    await ns?.remove();
  });

  const readJob = (name: string) => batch.readNamespacedJob({ namespace: ns.name, name });
  const readCronJob = () => batch.readNamespacedCronJob({ namespace: ns.name, name: CRONJOB });

  /** One CronJob reconcile, as a watch event or its requeue would bring; returns its plan. */
  async function reconcileCronJob(): Promise<PlanResult> {
    await cronQueue.add({ cluster: CLUSTER, kind: 'CronJob', namespace: ns.name, name: CRONJOB });
    const lease = await cronQueue.get(5_000);
    if (!lease) throw new Error('the CronJob queue handed out no lease');
    lastCronPlan = undefined;
    const outcome = await reconcileOne(cronDeps, lease);
    if (outcome === 'dead-lettered' || outcome === 'lease-lost') throw new Error(`CronJob reconcile ended ${outcome}`);
    const plan = lastCronPlan as PlanResult | undefined; // set by the pass (a closure: not narrowed)
    if (plan === undefined) throw new Error('the CronJob reconcile planned nothing');
    return plan;
  }

  async function kubectlCreateJobFrom(name: string): Promise<void> {
    await execFileP(kubectlPath(), [
      '--kubeconfig',
      c.state.kubeconfig,
      '-n',
      ns.name,
      'create',
      'job',
      name,
      `--from=cronjob/${CRONJOB}`,
    ]);
  }

  /** The actions of a plan that write a Job (create, delete, update, patch), by their target's name. */
  const jobWrites = (plan: PlanResult): string[] =>
    plan.actions.flatMap((a) => {
      if (a.type === 'create' || a.type === 'update')
        return a.object.kind === 'Job' ? [`${a.type} ${a.object.metadata?.name}`] : [];
      if (a.type === 'delete' || a.type === 'patch')
        return a.target.kind === 'Job' ? [`${a.type} ${a.target.name}`] : [];
      return [];
    });
  const reasons = (plan: PlanResult): string[] => plannedEvents(plan.actions).map((e) => `${e.reason} (${e.type})`);

  it("is the CronJob's Job, left alone while it runs, and counted as upstream counts it once it succeeded", async () => {
    const template = kwokPodTemplate({ app: CRONJOB });
    const created: V1CronJob = await batch.createNamespacedCronJob({
      namespace: ns.name,
      body: {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: CRONJOB },
        spec: {
          schedule: '0 0 1 1 *', // New Year: no run during the test
          successfulJobsHistoryLimit: 1,
          jobTemplate: {
            metadata: { labels: { team: 'ops' }, annotations: { note: 'from the template' } },
            spec: { backoffLimit: 0, template: { ...template, spec: { ...template.spec!, restartPolicy: 'Never' } } },
          },
        },
      },
    });

    // Nothing due: no write, and the key comes back at the next run (New Year, + 100 ms), never sooner.
    const idle = await reconcileCronJob();
    expect(idle.actions).toEqual([]);
    const now = new Date();
    const newYear = Date.UTC(now.getUTCFullYear() + 1, 0, 1);
    expect(idle.requeueAfter).toBeGreaterThan(newYear + 100 - Date.now() - 60_000);
    expect(idle.requeueAfter).toBeLessThanOrEqual(newYear + 100 - now.getTime() + 1_000);

    // kubectl's Job: the CronJob as controller (no blockOwnerDeletion), `instantiate: manual`, no scheduled time.
    await kubectlCreateJobFrom('by-hand-1');
    const first = await readJob('by-hand-1');
    expect(first.metadata?.ownerReferences).toEqual([
      { apiVersion: 'batch/v1', kind: 'CronJob', name: CRONJOB, uid: created.metadata!.uid!, controller: true },
    ]);
    expect(first.metadata?.annotations).toEqual({
      'cronjob.kubernetes.io/instantiate': 'manual',
      note: 'from the template',
    });
    expect(first.metadata?.annotations?.[SCHEDULED]).toBeUndefined();

    // While it runs: UnexpectedJob (upstream's warning for a Job of its own that it did not create), nothing
    // written to the Job, never in status.active.
    await settleJob(driver, 'by-hand-1');
    const running = await reconcileCronJob();
    expect(reasons(running)).toEqual(['UnexpectedJob (Warning)']);
    expect(plannedEvents(running.actions)[0]?.message).toBe(
      'Saw a job that the controller did not create or forgot: by-hand-1',
    );
    expect(jobWrites(running)).toEqual([]);
    expect(running.actions.some((a) => a.type === 'updateStatus')).toBe(false);
    expect((await readCronJob()).status?.active ?? []).toEqual([]);

    // Once it succeeded: its completionTime is lastSuccessfulTime, with no SawCompletedJob (it was never active).
    const done1 = await runJobToComplete(driver, 'by-hand-1');
    const counted = await reconcileCronJob();
    expect(reasons(counted)).toEqual([]);
    expect(jobWrites(counted)).toEqual([]);
    const afterFirst = await readCronJob();
    expect(afterFirst.status?.lastSuccessfulTime).toEqual(done1.status?.completionTime);
    expect(afterFirst.status?.active ?? []).toEqual([]);

    // A second one: successfulJobsHistoryLimit 1 counts both, so the older is deleted (uid precondition,
    // Background), as upstream's cleanupFinishedJobs deletes any finished Job the CronJob controls.
    await kubectlCreateJobFrom('by-hand-2');
    const done2 = await runJobToComplete(driver, 'by-hand-2');
    const cleanup = await reconcileCronJob();
    expect(jobWrites(cleanup)).toEqual(['delete by-hand-1']);
    expect(cleanup.actions.find((a) => a.type === 'delete')).toMatchObject({
      uid: first.metadata!.uid,
      propagationPolicy: 'Background',
    });
    expect(reasons(cleanup)).toEqual(['SuccessfulDelete (Normal)']);
    await expect(readJob('by-hand-1')).rejects.toMatchObject({ code: 404 });
    expect((await readJob('by-hand-2')).metadata?.uid).toBe(done2.metadata?.uid);
    const afterSecond = await readCronJob();
    expect(afterSecond.status?.lastSuccessfulTime).toEqual(done2.status?.completionTime);
    expect(afterSecond.status?.active ?? []).toEqual([]);
    expect(afterSecond.status?.lastScheduleTime).toBeUndefined();
  }, 300_000);
});
