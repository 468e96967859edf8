// Forwarder ticks (Forwarder.runFor, as the Lambda tick runs it) whose lists are longer than a tick, against a real
// kube-apiserver (sandbox fleetq-2): 12 suspended CronJobs of our own (nothing on fleetq-2 runs CronJobs), pages of
// 5, and each tick allowed one page of each cronjobs list only (the real lister; the next page asked is held back
// until the tick ends), so that a list spans several ticks whatever the machine's load.
//  1. The initial list and a periodic resync, both interrupted: every tick resolves (it saved pages) and the next
//     one goes on from the saved continue tokens; the resync is recorded (@resync) in the tick where it ends, and
//     each of our keys was enqueued by both.
//  2. The same container's next tick (its ForwarderMemory current at the checkpoint): no warm list, no page.
//  3. A cold container (an empty memory) whose warm list spans ticks: it goes on from the token kept in memory,
//     and once done the workload index holds all 12 CronJobs; no key is enqueued for a warm list.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { BatchV1Api } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import {
  Forwarder,
  LIST_PROGRESS_SUFFIX,
  RESYNC_CHECKPOINT,
  RESYNC_PROGRESS,
} from '../../shared/forwarder/forwarder.js';
import { ForwarderMemory } from '../../shared/forwarder/forwarder-memory.js';
import { makeLister, type Lister, type PageRequest, type Resource } from '../../shared/forwarder/resources.js';
import { Logger } from '../../shared/runtime/logger.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { redisClient } from '../helpers/queue/redis.js';
import { RecordingQueue } from '../helpers/queue/recording-queue.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const CLUSTER = 'fleetq-2';
const NAMES = Array.from({ length: 12 }, (_, i) => `r${i}`);
const TICK_MS = 1_500;

describe('forwarder ticks whose lists are longer than a tick (fleetq-2)', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  const redis = redisClient();
  const prefix = `test-${randomUUID()}`;
  const checkpoints = new RedisCheckpointStore(redis, prefix);
  const entry = `cronjobs${LIST_PROGRESS_SUFFIX}`;

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

  /**
   * The lists each continue token belongs to (a request without one starts a list), to tell lists apart: two lists
   * of the same objects at the same resourceVersion get the same token, so a token holds a list per request.
   */
  const listOf = new Map<string, number[]>();
  let lists = 0;

  /** One tick's forwarder; its lister answers `pages` cronjobs pages of each list, then holds the next back. */
  function tick(o: { pages: number; memory: ForwarderMemory; resyncMs: number }) {
    const real = makeLister(c.kc);
    const asked: PageRequest[] = [];
    const answered = new Map<number, number>();
    const lister: Lister = async (resource: Resource, page) => {
      if (resource !== 'cronjobs') return real(resource, page);
      asked.push(page);
      const token = page.continueToken;
      const ids = token === undefined ? [] : (listOf.get(token) ?? []);
      if (token !== undefined) listOf.set(token, ids);
      const list = ids.shift() ?? ++lists;
      const n = answered.get(list) ?? 0;
      if (n >= o.pages) {
        ids.push(list); // asked again next tick
        return new Promise(() => undefined);
      }
      answered.set(list, n + 1);
      const got = await real(resource, page);
      if (got.continueToken !== undefined) {
        listOf.set(got.continueToken, [...(listOf.get(got.continueToken) ?? []), list]);
      }
      return got;
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
      resyncMs: o.resyncMs,
      pageSize: 5,
      lister,
      memory: o.memory,
    });
    return { f, queue, asked, run: () => f.runFor(TICK_MS) };
  }
  const ours = (q: RecordingQueue): string[] =>
    q.added.filter((k) => k.startsWith(`${CLUSTER}/CronJob/${ns.name}/`)).map((k) => k.split('/')[3] ?? '');
  const saved = async (name: string): Promise<string> => (await checkpoints.load(CLUSTER, [name])).get(name) ?? '';

  it('goes on from the saved tokens tick after tick, records the resync where it ends, and warms across ticks', async () => {
    // 1. Initial list and resync, a page of each a tick.
    const memory = new ForwarderMemory();
    const listed = new Map<string, number>();
    const resynced: string[] = [];
    let ticks = 0;
    let resyncTick = 0;
    let tokensResumed = 0;
    const deadline = Date.now() + 120_000;
    for (;;) {
      // Due at once (none recorded yet), and not again within the test once recorded.
      const t = tick({ pages: 1, memory, resyncMs: 600_000 });
      const tokensBefore = [await saved(entry), await saved(RESYNC_PROGRESS)].filter((v) => v !== '');
      await t.run(); // resolves: every tick saved pages
      ticks++;
      // A tick with saved progress asks first for the page after it, never the first page again.
      for (const token of tokensBefore.map((v) => (JSON.parse(v) as { continueToken?: string }).continueToken)) {
        if (token === undefined) continue;
        expect(t.asked.slice(0, 2).map((p) => p.continueToken)).toContain(token);
        tokensResumed++;
      }
      for (const name of ours(t.queue)) listed.set(name, (listed.get(name) ?? 0) + 1);
      if (t.f.stats.resyncs > 0) {
        resyncTick = ticks;
        resynced.push(...ours(t.queue));
      }
      const done = (await saved('cronjobs')) !== '' && (await saved(RESYNC_CHECKPOINT)) !== '';
      if (done && (await saved(RESYNC_PROGRESS)) === '') break;
      if (Date.now() > deadline) throw new Error(`not done after ${ticks} ticks`);
    }
    expect(ticks).toBeGreaterThan(1);
    expect(tokensResumed).toBeGreaterThan(0);
    expect(resyncTick).toBeGreaterThan(0);
    expect(await saved(entry)).toBe('');
    // Each of our CronJobs: its key from the initial list and from the resync (twice at most: once each).
    expect([...listed.keys()].sort()).toEqual([...NAMES].sort());
    expect(Math.max(...listed.values())).toBeLessThanOrEqual(2);

    // 2. The same container's next tick: the memory is current at the checkpoint, no warm list, no page.
    const warmTick = tick({ pages: 0, memory, resyncMs: 0 });
    await warmTick.run();
    expect(warmTick.asked).toEqual([]);
    expect(warmTick.f.stats.warmLists).toBe(0);
    expect(ours(warmTick.queue)).toEqual([]);

    // 3. A cold container: its warm list of cronjobs goes on from the token in its memory, tick after tick.
    const cold = new ForwarderMemory();
    let warmTicks = 0;
    let lastToken: string | undefined;
    for (;;) {
      const t = tick({ pages: 1, memory: cold, resyncMs: 0 });
      await t.run();
      warmTicks++;
      if (warmTicks > 1) expect(t.asked[0]?.continueToken).toBe(lastToken);
      lastToken = t.asked[1]?.continueToken;
      expect(ours(t.queue)).toEqual([]); // a warm list enqueues nothing
      expect(t.f.stats.relists).toEqual({ initial: 0, expired: 0 });
      if (cold.isCurrentAt('cronjobs', await saved('cronjobs'))) break; // its warm list is done
      if (Date.now() > deadline) throw new Error(`warm list not done after ${warmTicks} ticks`);
    }
    expect(warmTicks).toBeGreaterThan(1);
    for (const name of NAMES) expect(cold.index.get('CronJob', ns.name, name)?.name).toBe(name);
    process.stderr.write(
      `lambda tick resume: list+resync over ${ticks} ticks (resync recorded in tick ${resyncTick}), warm list over ${warmTicks}\n`,
    );
  });
});
