// Fault 3: FLUSHALL in the middle of a rollout. Everything the queue held (waiting keys, leases, delayed
// requeues) is gone at once; the forwarder's watches go on seeing only new events. The rollout must complete
// and every key of the namespace, including ones no new event touches, must be re-enqueued and run within a
// bound. The forwarder runs without a periodic resync (the chaos pipeline's FLEETQ_RESYNC_MS=0): the keys come
// back through the data-loss detection (redis-loss.ts) alone.
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { waitFor } from '../../infra/sandbox/process.js';
import {
  NamespaceWatcher,
  Pipeline,
  chaosCluster,
  chaosNamespace,
  keysNotRunWithin,
  ownRedis,
  removeNamespace,
  spineReport,
  workloadKeys,
  type ChaosCluster,
  type OwnRedis,
} from '../helpers/chaos/harness.js';
import {
  activePodsByReplicaSet,
  createDeployments,
  deployment,
  setImage,
  waitRolledOut,
} from '../helpers/chaos/workloads.js';

/** Keys must run again this soon after the flush. */
const REENQUEUE_BOUND_MS = 20_000;

describe('chaos: FLUSHALL mid-rollout', () => {
  let c: ChaosCluster;
  let ns: string | undefined;
  let redis: OwnRedis | undefined;
  let p: Pipeline | undefined;
  let w: NamespaceWatcher | undefined;
  afterAll(async () => {
    w?.stop();
    await p?.stop();
    await redis?.stop();
    if (ns) await removeNamespace(c.kc, ns);
  });

  it('the rollout completes and every key is re-enqueued within the bound', async () => {
    c = await chaosCluster('chaos-1');
    ns = await chaosNamespace(c.kc);
    redis = await ownRedis();
    w = new NamespaceWatcher(c.kc, 'chaos-1', ns);
    await w.start();
    p = new Pipeline({
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig, qps: 20, burst: 20 }],
      driver: 'redis',
      redisUrl: redis.url,
      workers: 2,
      leaseMs: 10_000,
    });
    await p.start();
    const names = ['roll', 'idle-a', 'idle-b'];
    await createDeployments(c.kc, ns, [deployment('roll', 40), deployment('idle-a', 5), deployment('idle-b', 5)]);
    await waitRolledOut(w, names, 120_000);

    await setImage(c.kc, ns, 'roll', 'registry.example/app:2');
    // Mid-rollout: the new ReplicaSet has pods, the old one still has some.
    await waitFor(
      async () => {
        const rss = [...w!.objects.ReplicaSet.values()].filter((rs) => rs.metadata.name?.startsWith('roll-'));
        const pods = activePodsByReplicaSet(w!);
        return rss.length === 2 && rss.every((rs) => (pods.get(rs.metadata.name ?? '') ?? 0) > 0);
      },
      60_000,
      50,
      'the rollout half way',
    );
    const admin = new Redis(redis.url);
    await admin.flushall();
    admin.disconnect();
    const flushedAt = Date.now();
    const keysAtFlush = workloadKeys(w);

    const completed = await waitRolledOut(w, names, 120_000, {}).then(
      () => true,
      () => false,
    );
    await waitFor(
      async () => keysNotRunWithin(p!, keysAtFlush, flushedAt, REENQUEUE_BOUND_MS).length === 0,
      REENQUEUE_BOUND_MS + 5_000,
      250,
      'every key run after the flush',
    ).catch(() => undefined);
    const notRerun = keysNotRunWithin(p, keysAtFlush, flushedAt, REENQUEUE_BOUND_MS);
    console.log(
      `flush: rollout completed=${completed}; keys not run within ${REENQUEUE_BOUND_MS} ms of the flush: ${notRerun.join(', ')}`,
    );
    const report = await spineReport(p, w, { boundMs: 30_000 });
    expect(notRerun).toEqual([]);
    expect(completed).toBe(true);
    expect(report.overlaps).toEqual([]);
    expect(report.invariants).toEqual([]);
    expect(report.unfollowed).toEqual([]);
    expect(report.deadLettersWithoutRun).toEqual([]);
  });
});
