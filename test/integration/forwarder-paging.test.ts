// Every list the forwarder makes follows continue tokens to the last page, against a real kube-apiserver
// (sandbox fleetq-1) with pages of 5 and 12 objects of our own: the initial list, the relist after 410 Gone and
// the resync each enqueue each of 12 CronJob keys exactly once, as one page would (CronJobs: nothing on fleetq-1
// reconciles them, so no other event adds their keys); the warm list on resume fills the workload index with all
// 12 Deployments (an orphan Pod then wakes each of them). The lister is the real one (makeLister), wrapped only
// to record which pages were asked for.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { AppsV1Api, BatchV1Api, CoreV1Api, Watch, type V1PodTemplateSpec } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { makeLister, type Lister, type PageRequest, type Resource } from '../../shared/forwarder/resources.js';
import { Logger } from '../../shared/runtime/logger.js';
import { keyString } from '../../shared/kube/key.js';
import type { Kind } from '../../shared/kube/kinds.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { waitFor } from '../../infra/sandbox/process.js';
import '../helpers/long-timeout.js';
import { redisClient } from '../helpers/queue/redis.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { RecordingQueue } from '../helpers/queue/recording-queue.js';

const CLUSTER = 'fleetq-1';
const PAGE = 5;
const NAMES = Array.from({ length: 12 }, (_, i) => `d${i}`);
/** The checkpoint entry naming the cluster's identity (the uid of kube-system). */
const IDENTITY = '@identity';

describe('forwarder lists every page', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let checkpoints: RedisCheckpointStore;
  const redis = redisClient();
  const running: Forwarder[] = [];
  const queues: RecordingQueue[] = [];
  /** Page requests, in order. */
  let pages: Array<{ resource: Resource; page: PageRequest }> = [];
  const keyOf = (kind: Kind, name: string): string => keyString({ cluster: CLUSTER, kind, namespace: ns.name, name });
  const keys = (kind: Kind): string[] => NAMES.map((n) => keyOf(kind, n)).sort();
  const ours = (q: RecordingQueue, from = 0): string[] =>
    q.added.slice(from).filter((k) => k.split('/')[2] === ns.name);
  const apps = (): AppsV1Api => c.kc.makeApiClient(AppsV1Api);
  const batch = (): BatchV1Api => c.kc.makeApiClient(BatchV1Api);
  const waitForAll = (q: RecordingQueue, kind: Kind, from = 0): Promise<void> =>
    waitFor(async () => keys(kind).every((k) => ours(q, from).includes(k)), 30_000, 50, `all 12 ${kind} keys`);
  /** How many pages of `resource` after a first one were read (requests with a continue token). */
  const morePages = (resource: Resource): number =>
    pages.filter((p) => p.resource === resource && p.page.continueToken !== undefined).length;

  function forwarder(owns: readonly Kind[]): { f: Forwarder; q: RecordingQueue } {
    const real = makeLister(c.kc);
    const lister: Lister = (resource, page) => {
      pages.push({ resource, page });
      return real(resource, page);
    };
    const q = new RecordingQueue();
    const f = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns,
      queue: q,
      checkpoints,
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 0,
      pageSize: PAGE,
      lister,
    });
    running.push(f);
    queues.push(q);
    return { f, q };
  }

  function jobTemplate(): V1PodTemplateSpec {
    const base = kwokPodTemplate({});
    return { ...base, spec: { containers: [], ...base.spec, restartPolicy: 'Never' } };
  }

  async function createCronJob(name: string): Promise<void> {
    await batch().createNamespacedCronJob({
      namespace: ns.name,
      body: {
        metadata: { name },
        spec: { schedule: '0 3 * * *', suspend: true, jobTemplate: { spec: { template: jobTemplate() } } },
      },
    });
  }

  async function createCronJobs(): Promise<void> {
    for (const name of NAMES) await createCronJob(name);
  }

  /** One selector for all: an orphan Pod labelled paging=yes is adopted by (enqueues) every one of them. */
  async function createDeployments(): Promise<void> {
    for (const name of NAMES) {
      await apps().createNamespacedDeployment({
        namespace: ns.name,
        body: {
          metadata: { name },
          spec: {
            replicas: 0,
            selector: { matchLabels: { paging: 'yes' } },
            template: kwokPodTemplate({ paging: 'yes' }),
          },
        },
      });
    }
  }

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
  });

  beforeEach(async () => {
    ns = await testNamespace(c.kc);
    checkpoints = new RedisCheckpointStore(redis, `test-${randomUUID()}`);
    pages = [];
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((f) => f.stop()));
    await Promise.all(queues.splice(0).map((q) => q.inner.close()));
    await checkpoints.clear();
    await ns.remove();
  });

  afterAll(async () => redis.quit());

  it('initial list: all 12, each enqueued once', async () => {
    await createCronJobs();
    const { f, q } = forwarder(['CronJob']);
    await f.start();
    await f.synced();
    await waitForAll(q, 'CronJob');
    expect(morePages('cronjobs')).toBeGreaterThanOrEqual(2);
    expect(ours(q).sort()).toEqual(keys('CronJob'));
    expect(f.stats.relists.initial).toBe(f.resources.length);
  });

  it('warm list on resume: the workload index holds all 12 (an orphan Pod wakes every one)', async () => {
    await createDeployments();
    const first = forwarder(['Deployment']);
    await first.f.start();
    await first.f.synced();
    await first.f.stop();

    pages = [];
    const second = forwarder(['Deployment']);
    await second.f.start();
    await second.f.synced();
    expect(second.f.stats.warmLists).toBeGreaterThanOrEqual(1);
    expect(second.f.stats.relists).toEqual({ initial: 0, expired: 0 });
    expect(morePages('deployments')).toBeGreaterThanOrEqual(2);

    const from = second.q.added.length;
    const core = c.kc.makeApiClient(CoreV1Api);
    await waitFor(
      async () => {
        await core.createNamespacedPod({
          namespace: ns.name,
          body: { metadata: { name: 'orphan', labels: { paging: 'yes' } }, spec: kwokPodTemplate({}).spec },
        });
        return true;
      },
      30_000,
      200,
      'orphan pod created (the namespace default ServiceAccount must exist first)',
    );
    await waitForAll(second.q, 'Deployment', from);
    // Each event of the pod (added, scheduled, running) wakes all 12: the distinct keys are exactly ours.
    expect([...new Set(ours(second.q, from))].sort()).toEqual(keys('Deployment'));
  });

  it('relist after 410 Gone: all 12, each enqueued once', async () => {
    await untilTooOld();
    await createCronJobs();
    const core = c.kc.makeApiClient(CoreV1Api);
    const kubeSystem = await core.readNamespace({ name: 'kube-system' });
    const jobs = await batch().listJobForAllNamespaces({ limit: 1 });
    await checkpoints.save(
      CLUSTER,
      new Map([
        [IDENTITY, kubeSystem.metadata?.uid ?? ''],
        ['cronjobs', '1'],
        ['jobs', jobs.metadata?.resourceVersion ?? ''],
      ]),
    );
    pages = [];
    const { f, q } = forwarder(['CronJob']);
    await f.start();
    await waitForAll(q, 'CronJob');
    // A paged relist enqueues each page's keys as it comes and counts itself at its end, just after the last page.
    await waitFor(async () => f.stats.relists.expired > 0, 10_000, 20, 'the expired relist counted');
    expect(f.stats.relists).toEqual({ initial: 0, expired: 1 });
    expect(morePages('cronjobs')).toBeGreaterThanOrEqual(2);
    expect(ours(q).sort()).toEqual(keys('CronJob'));
  });

  it('resync: all 12, each enqueued once', async () => {
    await createCronJobs();
    const { f, q } = forwarder(['CronJob']);
    await f.start();
    await f.synced();
    await waitForAll(q, 'CronJob');
    pages = [];
    const from = q.added.length;
    const count = await f.resync();
    expect(count).toBeGreaterThanOrEqual(NAMES.length);
    expect(morePages('cronjobs')).toBeGreaterThanOrEqual(2);
    expect(ours(q, from).sort()).toEqual(keys('CronJob'));
  });

  /** CronJob events until a watch from resourceVersion 1 answers 410 (at once, if an earlier run did it). */
  async function untilTooOld(): Promise<void> {
    let i = 0;
    await waitFor(
      async () => {
        if ((await firstWatchAnswer('1')) === 'ERROR 410') return true;
        for (let n = 0; n < 20; n++, i++) {
          await createCronJob(`churn-${i}`);
          await batch().deleteNamespacedCronJob({ namespace: ns.name, name: `churn-${i}` });
        }
        return false;
      },
      300_000,
      250,
      'a watch of cronjobs from resourceVersion 1 to answer 410',
    );
  }

  async function firstWatchAnswer(rv: string): Promise<string> {
    return new Promise<string>((resolve) => {
      let answered = false;
      const answer = (a: string): void => {
        if (answered) return;
        answered = true;
        resolve(a);
      };
      void new Watch(c.kc)
        .watch(
          '/apis/batch/v1/cronjobs',
          { resourceVersion: rv, timeoutSeconds: 2 },
          (type: string, obj: { code?: number }) => answer(type === 'ERROR' ? `ERROR ${obj.code}` : type),
          (err: unknown) => answer(err ? `failed ${String(err)}` : 'ended'),
        )
        .then((ctl) => (answered ? ctl.abort() : undefined));
    });
  }
});
