// The Job controller against a real kube-apiserver (sandbox fleetq-2, whose controller-manager runs no job
// controller): reconciles are driven in-process through the real runtime (reconcileOne, MemoryQueue, live cluster
// view, writer) with a registry entry owning Job; kwok runs pods, and a test ends a Running pod by annotating it
// fleetq.dev/sandbox-outcome (infra/sandbox/stages/pod-outcome.yaml).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchV1Api, CoreV1Api, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import type { Controller, PlanResult } from '../../shared/controllers/controller.js';
import { jobController } from '../../shared/controllers/job/index.js';
import type { ObservedJob } from '../../shared/controllers/job/types.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne, type ReconcileDeps } from '../../shared/runtime/reconcile-one.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-2';
const FINALIZER = 'batch.kubernetes.io/job-tracking';
const OUTCOME = 'fleetq.dev/sandbox-outcome';

describe('Job controller on a real apiserver', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let batch: BatchV1Api;
  let core: CoreV1Api;
  let queue: MemoryQueue;
  let deps: ReconcileDeps;
  let lastPlan: PlanResult | undefined;
  /** When set, the next pass's plan goes through it before it is applied (a handler dying part-way). */
  let cut: ((p: PlanResult) => PlanResult) | undefined;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    batch = c.kc.makeApiClient(BatchV1Api);
    core = c.kc.makeApiClient(CoreV1Api);
    queue = new MemoryQueue();
    const recording: Controller<ObservedJob> = {
      ...jobController,
      plan: (o, now) => {
        const planned = jobController.plan(o, now);
        const applied = cut ? cut(planned) : planned;
        cut = undefined;
        return (lastPlan = applied);
      },
    };
    deps = inProcessDeps(c, {
      owns: ['Job'],
      controllers: [['Job', recording as Controller]],
      queue,
      service: 'job-it',
    });
  });

  afterAll(async () => {
    await queue?.close();
    await ns?.remove();
  });

  const key = (name: string) => ({ cluster: CLUSTER, kind: 'Job', namespace: ns.name, name });
  const readJob = (name: string) => batch.readNamespacedJob({ namespace: ns.name, name });
  const podsOf = async (name: string): Promise<V1Pod[]> =>
    (await core.listNamespacedPod({ namespace: ns.name, labelSelector: `batch.kubernetes.io/job-name=${name}` })).items;

  async function createJob(name: string, spec: Partial<NonNullable<V1Job['spec']>>): Promise<V1Job> {
    const template = kwokPodTemplate({ app: name });
    return batch.createNamespacedJob({
      namespace: ns.name,
      body: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name },
        spec: { ...spec, template: { ...template, spec: { ...template.spec!, restartPolicy: 'Never' } } },
      },
    });
  }

  /** One reconcile of the Job through the runtime; returns the plan it applied. */
  async function reconcile(name: string): Promise<PlanResult | undefined> {
    await queue.add(key(name));
    const lease = await queue.get(5_000);
    if (!lease) throw new Error('the queue handed out no lease');
    lastPlan = undefined;
    const outcome = await reconcileOne(deps, lease);
    if (outcome === 'dead-lettered' || outcome === 'lease-lost') throw new Error(`reconcile ended ${outcome}`);
    return lastPlan;
  }

  /** Reconciles until a pass plans nothing to do now (what watch events would drive). */
  async function settle(name: string): Promise<void> {
    for (let i = 0; i < 40; i++) {
      const plan = await reconcile(name);
      if (plan === undefined || (plan.actions.length === 0 && plan.requeueAfter !== 0)) return;
    }
    throw new Error(`the Job ${name} did not settle in 40 passes`);
  }

  /** Ends `count` Running pods of the Job (those without an outcome yet, lowest index first). */
  async function end(name: string, outcome: 'Succeeded' | 'Failed', count: number, index?: number): Promise<string[]> {
    const ended: string[] = [];
    await waitFor(
      async () => {
        await settle(name);
        const running = (await podsOf(name)).filter(
          (p) =>
            p.status?.phase === 'Running' &&
            !p.metadata?.deletionTimestamp &&
            !p.metadata?.annotations?.[OUTCOME] &&
            !ended.includes(p.metadata?.name ?? '') &&
            (index === undefined ||
              p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] === String(index)),
        );
        for (const p of running.slice(0, count - ended.length)) {
          await core.patchNamespacedPod({
            namespace: ns.name,
            name: p.metadata!.name!,
            body: p.metadata?.annotations
              ? [{ op: 'add', path: `/metadata/annotations/${OUTCOME.replace('/', '~1')}`, value: outcome }]
              : [{ op: 'add', path: '/metadata/annotations', value: { [OUTCOME]: outcome } }],
          });
          ended.push(p.metadata!.name!);
        }
        return ended.length >= count;
      },
      60_000,
      300,
      `${count} running pods of ${name} to end ${outcome}`,
    );
    return ended;
  }

  const conditionTypes = (j: V1Job) =>
    (j.status?.conditions ?? []).filter((x) => x.status === 'True').map((x) => x.type);

  async function untilFinished(name: string): Promise<V1Job> {
    let job: V1Job | undefined;
    await waitFor(
      async () => {
        await settle(name);
        job = await readJob(name);
        return conditionTypes(job).some((t) => t === 'Complete' || t === 'Failed');
      },
      90_000,
      300,
      `${name} to finish`,
    );
    return job!;
  }

  it('completions 3, parallelism 2: 2 pods, then a third, Complete with succeeded 3 and no finalizer left', async () => {
    await createJob('three', { completions: 3, parallelism: 2 });
    await reconcile('three');
    const first = await podsOf('three');
    expect(first).toHaveLength(2);
    for (const p of first) {
      expect(p.metadata?.finalizers).toContain(FINALIZER);
      expect(p.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Job', name: 'three', controller: true });
    }
    await end('three', 'Succeeded', 2);
    await end('three', 'Succeeded', 1);
    const job = await untilFinished('three');
    expect(conditionTypes(job)).toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(job.status).toMatchObject({ succeeded: 3, ready: 0, terminating: 0 });
    expect([job.status?.failed ?? 0, job.status?.active ?? 0]).toEqual([0, 0]);
    expect(job.status?.completionTime).toBeDefined();
    const pods = await podsOf('three');
    expect(pods).toHaveLength(3);
    expect(pods.every((p) => !(p.metadata?.finalizers ?? []).includes(FINALIZER))).toBe(true);
  }, 180_000);

  it('an Indexed Job whose index 1 keeps failing reaches Failed with BackoffLimitExceeded', async () => {
    await createJob('indexed', { completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimit: 1 });
    await reconcile('indexed');
    const pods = await podsOf('indexed');
    expect(pods.map((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']).sort()).toEqual([
      '0',
      '1',
    ]);
    const one = pods.find((p) => p.metadata?.labels?.['batch.kubernetes.io/job-completion-index'] === '1')!;
    expect(one.spec?.hostname).toBe('indexed-1');
    expect(one.spec?.containers[0]?.env).toContainEqual({
      name: 'JOB_COMPLETION_INDEX',
      valueFrom: {
        fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" },
      },
    });
    await end('indexed', 'Failed', 1, 1);
    // The replacement of index 1 waits out the 10 s backoff, then fails too: failed 2 > backoffLimit 1.
    await end('indexed', 'Failed', 1, 1);
    const job = await untilFinished('indexed');
    expect(job.status?.conditions?.filter((x) => x.status === 'True').map((x) => `${x.type}/${x.reason}`)).toEqual([
      'FailureTarget/BackoffLimitExceeded',
      'Failed/BackoffLimitExceeded',
    ]);
    expect(job.status).toMatchObject({ failed: 3, terminating: 0 }); // index 0 was deleted: failed too
    expect(job.status?.active ?? 0).toBe(0);
    expect(job.status?.completedIndexes ?? '').toBe('');
    expect(job.status?.completionTime).toBeUndefined();
    const left = await podsOf('indexed');
    expect(left.every((p) => !(p.metadata?.finalizers ?? []).includes(FINALIZER))).toBe(true);
  }, 180_000);

  it('the handler dies after removing finalizers, before the status write that counts them: counts stay exact', async () => {
    await createJob('crash', { completions: 2, parallelism: 2 });
    await reconcile('crash');
    await end('crash', 'Succeeded', 2);
    // end() settled once pods ended; make sure both are recorded as uncounted and still hold their finalizers.
    await waitFor(
      async () => {
        const j = await readJob('crash');
        const u = j.status?.uncountedTerminatedPods?.succeeded ?? [];
        if (u.length === 2) return true;
        await reconcile('crash');
        return false;
      },
      30_000,
      200,
      'two uncounted succeeded pods',
    );
    // Some finalizers may already be gone (a pass that recorded one pod, then removed its finalizer): count what
    // the status says so far, then cut the next pass before its status write.
    const before = await readJob('crash');
    cut = (p) => ({ actions: p.actions.filter((a) => a.type !== 'updateStatus') });
    const cutPlan = await reconcile('crash');
    expect(cutPlan?.actions.some((a) => a.type === 'patch')).toBe(true);
    const mid = await readJob('crash');
    expect(mid.status?.succeeded ?? 0).toBe(before.status?.succeeded ?? 0);
    expect(mid.status?.uncountedTerminatedPods?.succeeded).toHaveLength(2);
    expect((await podsOf('crash')).every((p) => !(p.metadata?.finalizers ?? []).includes(FINALIZER))).toBe(true);
    // A fresh start: the recorded uids whose finalizers are gone are counted once.
    const job = await untilFinished('crash');
    expect(conditionTypes(job)).toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(job.status).toMatchObject({ succeeded: 2 });
    expect(job.status?.failed ?? 0).toBe(0);
    expect(job.status?.uncountedTerminatedPods ?? {}).toEqual({});
  }, 180_000);
});
