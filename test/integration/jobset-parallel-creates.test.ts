// How creates go out, on a real apiserver (fleetq-1). Upstream's JobSet manager sends all of a JobSet's Jobs at
// once (createJobs: ParallelizeUntil, at most 50 in flight, every create tried whatever the others met); the
// built-in controllers' slow start (1, 2, 4, …, stopping at the first failing batch) put three round trips
// between the fresh read of a JobSet and its last Job, and a JobSet deleted with foreground propagation in that
// window (JobSet's own e2e spec) was gone before its last Job was made, which then outlived it.
//   - through the runtime: a new JobSet of 4 Jobs has every Job's POST sent before the first is answered;
//   - the writer: with createParallelism every batch is sent though an earlier create failed, and the failure is
//     thrown after; slow start stops at the failing batch;
//   - a JobSet deleted and gone between the pass's fresh read and its creates: the pass deletes the Jobs it made.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchV1Api, CoreV1Api, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { defaultJobSet } from '../../shared/admission/jobset-defaults.js';
import type { Controller } from '../../shared/controllers/controller.js';
import { jobSetController } from '../../shared/controllers/jobset/index.js';
import type { JobSet } from '../../shared/controllers/jobset/types.js';
import type { Action } from '../../shared/kube/actions.js';
import { ApiError } from '../../shared/kube/errors.js';
import type { KubeRest } from '../../shared/kube/rest.js';
import { applyActions, type Fence } from '../../shared/kube/writer.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { reconcileOne } from '../../shared/runtime/reconcile-one.js';
import { inProcessDeps } from '../helpers/pipeline/runtime.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
const ALWAYS_HELD: Fence = { held: () => true, confirm: () => Promise.resolve(true) };

/** What the rest client was asked, in order: each POST's start and answer (the path's last segment). */
function recordPosts(rest: KubeRest): string[] {
  const seen: string[] = [];
  const send = rest.request.bind(rest);
  rest.request = async <T>(method: string, path: string, o?: Parameters<KubeRest['request']>[2]): Promise<T> => {
    if (method !== 'POST') return send<T>(method, path, o);
    const resource = path.split('/').pop() ?? '';
    seen.push(`start ${resource}`);
    try {
      return await send<T>(method, path, o);
    } finally {
      seen.push(`answer ${resource}`);
    }
  };
  return seen;
}

describe('creates: all at once for JobSet, slow start for the rest', () => {
  let c: TestCluster;
  let batch: BatchV1Api;
  let core: CoreV1Api;
  const namespaces: Array<{ name: string; remove: () => Promise<void> }> = [];

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    batch = c.kc.makeApiClient(BatchV1Api);
    core = c.kc.makeApiClient(CoreV1Api);
  });

  afterAll(async () => {
    await Promise.all(namespaces.map((n) => n.remove()));
  });

  async function namespace(): Promise<string> {
    const ns = await testNamespace(c.kc);
    namespaces.push(ns);
    return ns.name;
  }

  function deps(queue: MemoryQueue) {
    return inProcessDeps(c, {
      owns: ['JobSet', 'Job'],
      controllers: [['JobSet', jobSetController as Controller]],
      queue,
      service: 'jobset-parallel-creates-it',
    });
  }

  it('a new JobSet of 4 Jobs: every Job POST is sent before the first is answered', async () => {
    const ns = await namespace();
    const body = {
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: { name: 'js', namespace: ns },
      spec: {
        network: { enableDNSHostnames: false },
        replicatedJobs: [{ name: 'rjob', replicas: 4, template: { spec: { template: kwokPodTemplate({}) } } }],
      },
    } as unknown as JobSet;
    await KubernetesObjectApi.makeApiClient(c.kc).create(defaultJobSet(body).jobSet as unknown as KubernetesObject);

    const queue = new MemoryQueue();
    const d = deps(queue);
    const posts = recordPosts(d.clients(CLUSTER).rest);
    try {
      await queue.add({ cluster: CLUSTER, kind: 'JobSet', namespace: ns, name: 'js' });
      const lease = await queue.get(10_000);
      if (!lease) throw new Error('the queue handed out no lease');
      expect(await reconcileOne(d, lease)).toBe('done');
    } finally {
      await queue.close();
    }
    const jobPosts = posts.filter((p) => p.endsWith(' jobs'));
    expect(jobPosts).toEqual([...Array<string>(4).fill('start jobs'), ...Array<string>(4).fill('answer jobs')]);
    expect((await batch.listNamespacedJob({ namespace: ns })).items).toHaveLength(4);
  });

  it('a JobSet deleted in the foreground and gone between its fresh read and its Job creates: the pass deletes the Jobs it created for it', async () => {
    const ns = await namespace();
    const objects = KubernetesObjectApi.makeApiClient(c.kc);
    const jobSet = defaultJobSet({
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: { name: 'js', namespace: ns },
      spec: {
        network: { enableDNSHostnames: false },
        replicatedJobs: [{ name: 'rjob', replicas: 4, template: { spec: { template: kwokPodTemplate({}) } } }],
      },
    } as unknown as JobSet).jobSet as unknown as KubernetesObject;
    await objects.create(jobSet);
    const header = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet' };

    const queue = new MemoryQueue();
    const d = deps(queue);
    const rest = d.clients(CLUSTER).rest;
    const send = rest.request.bind(rest);
    let deleted: Promise<void> | undefined;
    /** Every request the pass sent after its Job POSTs: method, path, and whether it found the object. */
    const after: string[] = [];
    // The first Job POST waits until the JobSet is deleted (foreground: with no Jobs yet, the garbage collector
    // finishes it at once) and gone, as when the e2e spec's delete lands between the pass's fresh read and its
    // creates; then every POST goes out.
    rest.request = async <T>(method: string, path: string, o?: Parameters<KubeRest['request']>[2]): Promise<T> => {
      if (method === 'POST' && path.endsWith('/jobs')) {
        deleted ??= (async () => {
          await objects.delete(jobSet, undefined, undefined, undefined, undefined, 'Foreground');
          await waitFor(
            () =>
              objects.read({ ...header, metadata: { name: 'js', namespace: ns } }).then(
                () => false,
                (e: unknown) => (e as { code?: number }).code === 404,
              ),
            20_000,
            50,
            'the JobSet to be gone',
          );
        })();
        await deleted;
        return send<T>(method, path, o);
      }
      if (deleted === undefined) return send<T>(method, path, o);
      try {
        const out = await send<T>(method, path, o);
        after.push(`${method} ${path.split('/').slice(-2).join('/')}`);
        return out;
      } catch (err) {
        after.push(`${method} ${path.split('/').slice(-2).join('/')} ${(err as { code?: number }).code ?? '?'}`);
        throw err;
      }
    };
    try {
      await queue.add({ cluster: CLUSTER, kind: 'JobSet', namespace: ns, name: 'js' });
      const lease = await queue.get(10_000);
      if (!lease) throw new Error('the queue handed out no lease');
      // Its status write finds the JobSet gone too, which may end the pass done or retried: either way what it
      // created must be gone when it ends.
      expect(['done', 'retried']).toContain(await reconcileOne(d, lease));
    } finally {
      await queue.close();
    }
    expect(deleted).toBeDefined();
    // The pass read the JobSet again after its creates, and each Job it made was deleted by it, or found gone
    // already (the garbage collector, when quick, beats it): none is left to the collector's own timing.
    expect(after).toContain('GET jobsets/js 404');
    for (const i of [0, 1, 2, 3]) {
      expect(after.filter((r) => r === `DELETE jobs/js-rjob-${i}` || r === `GET jobs/js-rjob-${i} 404`)).toHaveLength(
        1,
      );
    }
    expect((await batch.listNamespacedJob({ namespace: ns })).items.map((j) => j.metadata?.name)).toEqual([]);
  });

  /** 5 ConfigMap creates; the first has an invalid name, so the apiserver refuses it (422). */
  function configMapCreates(ns: string): Action[] {
    return ['Bad_Name', 'cm-1', 'cm-2', 'cm-3', 'cm-4'].map((name) => ({
      type: 'create',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: {} },
      reason: 'test',
    }));
  }

  async function configMaps(ns: string): Promise<string[]> {
    const items = (await core.listNamespacedConfigMap({ namespace: ns })).items;
    return items.map((m) => m.metadata?.name ?? '').filter((n) => n.startsWith('cm-'));
  }

  it('createParallelism 2: the batches after a failed create are still sent, and the failure is thrown', async () => {
    const ns = await namespace();
    const rest = deps(new MemoryQueue()).clients(CLUSTER).rest;
    const thrown = await applyActions(rest, configMapCreates(ns), ALWAYS_HELD, { createParallelism: 2 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe(422);
    expect((await configMaps(ns)).sort()).toEqual(['cm-1', 'cm-2', 'cm-3', 'cm-4']);
  });

  it('slow start: the failing first batch stops the creates', async () => {
    const ns = await namespace();
    const rest = deps(new MemoryQueue()).clients(CLUSTER).rest;
    const thrown = await applyActions(rest, configMapCreates(ns), ALWAYS_HELD).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((thrown as ApiError).code).toBe(422);
    expect(await configMaps(ns)).toEqual([]);
  });
});
