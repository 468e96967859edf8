// A scheduled run (Forwarder.runFor, the Lambda tick) whose first list is longer than the run goes on from the
// continue token in the next run, against a real kube-apiserver (sandbox fleetq-1), pages of 5, 12 suspended
// CronJobs of our own (nothing on fleetq-1 reconciles them): the first run is stopped while the third page is
// in flight (the real lister, held back for that one page), unsynced but not failed (it saved pages); the second
// run starts with the saved continue token, not from the first page, completes the list and checkpoints it; every
// one of our 12 keys was enqueued exactly once over the two runs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { BatchV1Api } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { Forwarder, LIST_PROGRESS_SUFFIX } from '../../shared/forwarder/forwarder.js';
import { makeLister, type Lister, type PageRequest, type Resource } from '../../shared/forwarder/resources.js';
import { Logger } from '../../shared/runtime/logger.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { redisClient } from '../helpers/queue/redis.js';
import { RecordingQueue } from '../helpers/queue/recording-queue.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-1';
const NAMES = Array.from({ length: 12 }, (_, i) => `r${i}`);

describe('a list longer than a scheduled run', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  const redis = redisClient();
  const prefix = `test-${randomUUID()}`;
  const checkpoints = new RedisCheckpointStore(redis, prefix);

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    const batch = c.kc.makeApiClient(BatchV1Api);
    const base = kwokPodTemplate({});
    for (const name of NAMES) {
      await batch.createNamespacedCronJob({
        namespace: ns.name,
        body: {
          metadata: { name },
          spec: {
            schedule: '0 3 * * *',
            suspend: true,
            jobTemplate: {
              spec: { template: { ...base, spec: { containers: [], ...base.spec, restartPolicy: 'Never' } } },
            },
          },
        },
      });
    }
  });
  afterAll(async () => {
    await ns?.remove();
    const keys = await redis.keys(`*${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  function forwarder(hold?: (resource: Resource, page: PageRequest, n: number) => boolean) {
    const real = makeLister(c.kc);
    const asked: Array<{ resource: Resource; page: PageRequest }> = [];
    const lister: Lister = (resource, page) => {
      asked.push({ resource, page });
      const n = asked.filter((a) => a.resource === resource).length;
      return hold?.(resource, page, n) ? new Promise(() => undefined) : real(resource, page);
    };
    const queue = new RecordingQueue();
    const f = new Forwarder({
      cluster: CLUSTER,
      kubeConfig: c.kc,
      owns: ['CronJob'],
      queue,
      checkpoints,
      logger: new Logger('test', 'error', () => undefined),
      registry: new Registry(),
      resyncMs: 0,
      pageSize: 5,
      lister,
    });
    return { f, queue, asked };
  }
  const ours = (q: RecordingQueue): string[] => q.added.filter((k) => k.split('/')[2] === ns.name);

  it('continues from the saved continue token and enqueues each key once over both runs', async () => {
    const first = forwarder((resource, _page, n) => resource === 'cronjobs' && n === 3);
    // Not synced, but pages of its list were saved: a run that made lasting progress is not a failed one.
    await first.f.runFor(3_000);
    const cronPages1 = first.asked.filter((a) => a.resource === 'cronjobs');
    expect(cronPages1).toHaveLength(3);
    const saved = (await checkpoints.load(CLUSTER, [`cronjobs${LIST_PROGRESS_SUFFIX}`, 'cronjobs'])) as Map<
      string,
      string
    >;
    const progress = JSON.parse(saved.get(`cronjobs${LIST_PROGRESS_SUFFIX}`) ?? '{}') as { continueToken?: string };
    expect(progress.continueToken).toBe(cronPages1[2]?.page.continueToken);
    expect(saved.get('cronjobs')).toBeUndefined(); // no checkpoint before the list is complete

    const second = forwarder();
    await second.f.runFor(3_000);
    const cronPages2 = second.asked.filter((a) => a.resource === 'cronjobs');
    expect(cronPages2[0]?.page.continueToken).toBe(progress.continueToken);
    expect(second.f.stats.relists.initial).toBeGreaterThanOrEqual(1);
    const after = await checkpoints.load(CLUSTER, [`cronjobs${LIST_PROGRESS_SUFFIX}`, 'cronjobs']);
    expect(after.get('cronjobs')).toMatch(/^\d+$/);
    expect(after.get(`cronjobs${LIST_PROGRESS_SUFFIX}`) ?? '').toBe('');

    const keys = [...ours(first.queue), ...ours(second.queue)].filter((k) => k.includes('/CronJob/'));
    expect(keys.sort()).toEqual(NAMES.map((n) => `${CLUSTER}/CronJob/${ns.name}/${n}`).sort());
  });
});
