// Fault 4: the Redis driver's rotation structures (`<prefix>rot`, `<prefix>rotset`) deleted while keys are
// ready. The per-cluster ready lists survive; a get() that walks only the rotation would never find them
// again. Keys must keep being handed out.
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { REDIS_URL } from '../helpers/queue/redis.js';
import {
  NamespaceWatcher,
  Pipeline,
  chaosCluster,
  chaosNamespace,
  removeNamespace,
  spineReport,
  type ChaosCluster,
} from '../helpers/chaos/harness.js';
import { createDeployments, deployment, waitRolledOut } from '../helpers/chaos/workloads.js';

describe('chaos: rotation structures deleted', () => {
  let c: ChaosCluster;
  let ns: string | undefined;
  let p: Pipeline | undefined;
  let w: NamespaceWatcher | undefined;
  const admin = new Redis(REDIS_URL);
  afterAll(async () => {
    w?.stop();
    await p?.stop();
    if (p) {
      const keys = await admin.keys(`fleetq:{${p.queue}}:*`);
      if (keys.length > 0) await admin.del(...keys);
    }
    admin.disconnect();
    if (ns) await removeNamespace(c.kc, ns);
  });

  it('keys keep being handed out', async () => {
    c = await chaosCluster('chaos-1');
    ns = await chaosNamespace(c.kc);
    w = new NamespaceWatcher(c.kc, 'chaos-1', ns);
    await w.start();
    p = new Pipeline({
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig, qps: 20, burst: 20 }],
      driver: 'redis',
      redisUrl: REDIS_URL,
      workers: 2,
      leaseMs: 10_000,
    });
    await p.start();
    const prefix = `fleetq:{${p.queue}}:`;
    const names = ['a', 'b', 'c', 'd'];
    await createDeployments(
      c.kc,
      ns,
      names.map((n) => deployment(n, 2)),
    );
    await waitRolledOut(w, names, 60_000);

    // Scale every Deployment up, and delete the rotation while the keys these events make are ready.
    const apps = c.kc.makeApiClient(AppsV1Api);
    let deletions = 0;
    const deleting = (async () => {
      const until = Date.now() + 8_000;
      while (Date.now() < until) {
        deletions += await admin.del(`${prefix}rot`, `${prefix}rotset`);
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (const n of names) {
      await apps.patchNamespacedDeploymentScale({
        namespace: ns,
        name: n,
        body: [{ op: 'replace', path: '/spec/replicas', value: 20 }],
      });
    }
    await deleting;
    const healedFrom = Date.now();
    console.log(`rotation: ${deletions} deletions of ${prefix}rot/rotset`);
    const converged = await waitRolledOut(w, names, 60_000).then(
      () => true,
      () => false,
    );
    const report = await spineReport(p, w, { boundMs: 20_000, boundFrom: healedFrom });
    expect(deletions).toBeGreaterThan(0);
    expect(converged).toBe(true);
    expect(report.unfollowed).toEqual([]);
    expect(report.overlaps).toEqual([]);
    expect(report.invariants).toEqual([]);
    expect(report.deadLettersWithoutRun).toEqual([]);
  });
});
