// The TTL-after-finished controller against a real kube-apiserver (sandbox fleetq-2, whose controller-manager runs
// neither job-controller nor ttl-after-finished-controller, but does run the garbage collector): the real runtime
// in-process (reconcileOne, live cluster view, writer), with a registry entry owning Job and TTLAfterFinished. The
// Job controller drives each Job to Complete on its own queue; the TTL controller's keys go through a queue of
// their own, so the delayed requeue that brings a key back when its TTL expires is the queue's, as in production.
// kwok runs the pods; a test ends one by annotating it fleetq.dev/sandbox-outcome.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchV1Api, CoreV1Api, Watch, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import type { Controller, PlanResult } from '../../shared/controllers/controller.js';
import { ttlAfterFinishedController } from '../../shared/controllers/ttl-after-finished/index.js';
import type { ObservedTtlJob } from '../../shared/controllers/ttl-after-finished/types.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { RecordingJobController, runJobToComplete, type JobDriver } from '../helpers/pipeline/job-settle.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-2';

/** One TTL plan, with the clock it was made at. */
type TtlPass = { readonly at: number; readonly plan: PlanResult };

describe('TTL-after-finished controller on a real apiserver', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let batch: BatchV1Api;
  let core: CoreV1Api;
  let jobQueue: MemoryQueue;
  let ttlQueue: MemoryQueue;
  let jobDeps: ReconcileDeps;
  let ttlDeps: ReconcileDeps;
  const passes = new Map<string, TtlPass[]>();
  const jobs = new RecordingJobController();
  let driver: JobDriver;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    batch = c.kc.makeApiClient(BatchV1Api);
    core = c.kc.makeApiClient(CoreV1Api);
    jobQueue = new MemoryQueue();
    ttlQueue = new MemoryQueue();
    const recording: Controller<ObservedTtlJob> = {
      ...ttlAfterFinishedController,
      plan: (o, now) => {
        const plan = ttlAfterFinishedController.plan(o, now);
        const list = passes.get(o.name) ?? [];
        list.push({ at: now.getTime(), plan });
        passes.set(o.name, list);
        return plan;
      },
    };
    const controllers: Array<[string, Controller]> = [
      ['Job', jobs.controller as Controller],
      ['TTLAfterFinished', recording as Controller],
    ];
    const owns = ['Job', 'TTLAfterFinished'] as const;
    jobDeps = inProcessDeps(c, { owns, controllers, queue: jobQueue, service: 'ttl-it-job' });
    driver = { cluster: CLUSTER, namespace: ns.name, queue: jobQueue, deps: jobDeps, jobs, batch, core };
    ttlDeps = inProcessDeps(c, { owns, controllers, queue: ttlQueue, service: 'ttl-it' });
  });

  afterAll(async () => {
    await jobQueue?.close();
    await ttlQueue?.close();
    await ns?.remove();
  });

  const readJob = (name: string) => batch.readNamespacedJob({ namespace: ns.name, name });
  const podsOf = async (name: string): Promise<V1Pod[]> =>
    (await core.listNamespacedPod({ namespace: ns.name, labelSelector: `batch.kubernetes.io/job-name=${name}` })).items;

  async function createJob(name: string, ttlSecondsAfterFinished: number): Promise<void> {
    const template = kwokPodTemplate({ app: name });
    await batch.createNamespacedJob({
      namespace: ns.name,
      body: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name },
        spec: {
          completions: 1,
          parallelism: 1,
          ttlSecondsAfterFinished,
          template: { ...template, spec: { ...template.spec!, restartPolicy: 'Never' } },
        },
      },
    });
  }

  /** What the TTL controller's clock counts from: the Complete condition's lastTransitionTime, + the TTL. */
  function expiryOf(job: V1Job): number {
    const complete = job.status?.conditions?.find((x) => x.type === 'Complete' && x.status === 'True');
    const finished = new Date(complete!.lastTransitionTime!).getTime();
    return finished + (job.spec?.ttlSecondsAfterFinished ?? 0) * 1000;
  }

  /** One TTL reconcile of whatever key the TTL queue hands out next (waiting up to waitMs for it to be due). */
  async function nextTtlPass(waitMs: number): Promise<{ leasedAt: number; name: string } | null> {
    const lease = await ttlQueue.get(waitMs);
    if (!lease) return null;
    const leasedAt = Date.now();
    const outcome = await reconcileOne(ttlDeps, lease);
    if (outcome !== 'done' && outcome !== 'requeued') throw new Error(`TTL reconcile ended ${outcome}`);
    return { leasedAt, name: lease.key.name };
  }

  const ttlKey = (name: string) => ({ cluster: CLUSTER, kind: 'TTLAfterFinished', namespace: ns.name, name });
  const deletes = (p: TtlPass) => p.plan.actions.filter((a) => a.type === 'delete');

  it('ttlSecondsAfterFinished 3600: requeued for the time left, the Job and its pod kept', async () => {
    await createJob('kept', 3600);
    const job = await runJobToComplete(driver, 'kept');
    const expiry = expiryOf(job);
    await ttlQueue.add(ttlKey('kept'));
    expect(await nextTtlPass(5_000)).toMatchObject({ name: 'kept' });
    const [pass] = passes.get('kept') ?? [];
    expect(pass?.plan).toEqual({ actions: [], requeueAfter: expiry - pass!.at });
    expect(pass!.plan.requeueAfter).toBeGreaterThan(3_500_000);
    expect(pass!.plan.requeueAfter).toBeLessThanOrEqual(3_600_000);
    expect((await readJob('kept')).metadata?.deletionTimestamp).toBeUndefined();
    expect(await podsOf('kept')).toHaveLength(1);
    // It waits in the queue, delayed, not ready.
    expect(await ttlQueue.depth()).toBe(1);
  }, 180_000);

  it('ttlSecondsAfterFinished 2: deleted, Foreground with its uid, once 2 s have passed since it finished, not before', async () => {
    await createJob('short', 2);
    const job = await runJobToComplete(driver, 'short');
    const uid = job.metadata?.uid;
    const expiry = expiryOf(job);
    expect(await podsOf('short')).toHaveLength(1);

    // Every version of the Job from here on: a Foreground delete shows it marked for deletion, with the
    // foregroundDeletion finalizer, until the garbage collector has deleted its pod.
    const seen: Array<{ type: string; job: V1Job }> = [];
    const watch = await new Watch(c.kc).watch(
      `/apis/batch/v1/namespaces/${ns.name}/jobs`,
      { fieldSelector: 'metadata.name=short', resourceVersion: job.metadata?.resourceVersion },
      (type: string, obj: V1Job) => seen.push({ type, job: obj }),
      () => undefined,
    );
    try {
      await ttlQueue.add(ttlKey('short'));
      // Its key comes back through the queue when the TTL has passed (requeueAfter), and the pass then deletes it.
      const leased: number[] = [];
      await waitFor(
        async () => {
          const pass = await nextTtlPass(5_000);
          if (pass?.name === 'short') leased.push(pass.leasedAt);
          return (passes.get('short') ?? []).some((p) => deletes(p).length > 0);
        },
        30_000,
        0,
        'the TTL controller to delete short',
      );
      const list = passes.get('short') ?? [];
      const deleteAction = {
        type: 'delete',
        target: { kind: 'Job', namespace: ns.name, name: 'short' },
        uid,
        propagationPolicy: 'Foreground',
        reason: 'TTLExpired',
      };
      for (const p of list) {
        // Before the expiry: no delete, a requeue for exactly the time left. At or after it: the delete, or, when
        // observe's clock (a moment earlier) still had it unexpired and read no fresh copy, a look again at once.
        if (p.at < expiry) expect(p.plan).toEqual({ actions: [], requeueAfter: expiry - p.at });
        else expect([{ actions: [deleteAction] }, { actions: [], requeueAfter: 0 }]).toContainEqual(p.plan);
      }
      const deleting = list.find((p) => deletes(p).length > 0)!;
      expect(deleting.at).toBeGreaterThanOrEqual(expiry);
      // Unless the machine was too slow for it, the first pass came before the expiry and was requeued.
      if (list[0]!.at < expiry) expect(list.length).toBeGreaterThanOrEqual(2);

      // The garbage collector deletes the pod, then the Job goes.
      await waitFor(
        async () => {
          const gone = await readJob('short').then(
            () => false,
            (err: unknown) => {
              if ((err as { code?: unknown }).code === 404) return true;
              throw err;
            },
          );
          return gone && (await podsOf('short')).length === 0;
        },
        60_000,
        200,
        'the Job short and its pod to be gone',
      );
      await waitFor(async () => seen.some((e) => e.type === 'DELETED'), 10_000, 50, 'the watch to see the delete');
      const marked = seen.find((e) => e.type === 'MODIFIED' && e.job.metadata?.deletionTimestamp);
      expect(marked?.job.metadata?.finalizers).toContain('foregroundDeletion');
      expect(new Date(marked!.job.metadata!.deletionTimestamp!).getTime()).toBeGreaterThanOrEqual(expiry);
      expect(seen.find((e) => e.type === 'DELETED')?.job.metadata?.uid).toBe(uid);
    } finally {
      watch.abort();
    }
    // The long TTL's Job is still there.
    expect((await readJob('kept')).metadata?.deletionTimestamp).toBeUndefined();
  }, 180_000);
});
