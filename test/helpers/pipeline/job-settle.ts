// fleetq's Job controller driven in-process against a real apiserver, for the integration tests of the kinds built
// on Jobs (CronJob, TTL-after-finished): passes until the Job is settled, and a one-pod Job run to Complete (kwok
// runs the pod; the test ends it by annotating it with the sandbox's outcome annotation).
import type { BatchV1Api, CoreV1Api, V1Job, V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../../../infra/sandbox/process.js';
import type { Controller, PlanResult } from '../../../shared/controllers/controller.js';
import { jobController, type ObservedJob } from '../../../shared/controllers/job/index.js';
import type { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../../shared/runtime/reconcile-one.js';

/** The annotation by which a test ends a kwok pod (its value: the phase the pod ends in). */
export const SANDBOX_OUTCOME = 'fleetq.dev/sandbox-outcome';

/** fleetq's Job controller, remembering the plan of its last pass. */
export class RecordingJobController {
  last: PlanResult | undefined;
  readonly controller: Controller<ObservedJob> = {
    ...jobController,
    plan: (o, now) => (this.last = jobController.plan(o, now)),
  };
}

/** What the passes need: the Job queue and the runtime around it, the recorded plans, and the API clients. */
export type JobDriver = {
  readonly cluster: string;
  readonly namespace: string;
  readonly queue: MemoryQueue;
  readonly deps: ReconcileDeps;
  readonly jobs: RecordingJobController;
  readonly batch: BatchV1Api;
  readonly core: CoreV1Api;
};

export const podsOfJob = async (d: JobDriver, name: string): Promise<V1Pod[]> =>
  (await d.core.listNamespacedPod({ namespace: d.namespace, labelSelector: `batch.kubernetes.io/job-name=${name}` }))
    .items;

/** Passes of the Job controller until one plans nothing to do now (what watch events would drive). */
export async function settleJob(d: JobDriver, name: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await d.queue.add({ cluster: d.cluster, kind: 'Job', namespace: d.namespace, name });
    const lease = await d.queue.get(5_000);
    if (!lease) throw new Error('the Job queue handed out no lease');
    d.jobs.last = undefined;
    const outcome = await reconcileOne(d.deps, lease);
    if (outcome === 'dead-lettered' || outcome === 'lease-lost') throw new Error(`Job reconcile ended ${outcome}`);
    const plan = d.jobs.last as PlanResult | undefined; // set by the pass (a closure: not narrowed)
    if (plan === undefined || (plan.actions.length === 0 && plan.requeueAfter !== 0)) return;
  }
  throw new Error(`the Job ${name} did not settle in 40 passes`);
}

/** Runs the Job's one pod to Succeeded and the Job to Complete (fleetq's Job controller); returns the finished Job. */
export async function runJobToComplete(d: JobDriver, name: string): Promise<V1Job> {
  let ended = false;
  let job: V1Job | undefined;
  await waitFor(
    async () => {
      await settleJob(d, name);
      job = await d.batch.readNamespacedJob({ namespace: d.namespace, name });
      if (job.status?.conditions?.some((x) => x.type === 'Complete' && x.status === 'True')) return true;
      const running = (await podsOfJob(d, name)).find((p) => p.status?.phase === 'Running');
      if (!ended && running) {
        await d.core.patchNamespacedPod({
          namespace: d.namespace,
          name: running.metadata!.name!,
          body: [{ op: 'add', path: '/metadata/annotations', value: { [SANDBOX_OUTCOME]: 'Succeeded' } }],
        });
        ended = true;
      }
      return false;
    },
    90_000,
    300,
    `${name} to complete`,
  );
  return job!;
}
