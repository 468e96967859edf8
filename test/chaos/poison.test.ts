// Fault 6: poison objects. A Pod whose controller owner reference names "Not A Name" (no valid key), a
// ConfigMap labelled fleetq.dev/mirror-of: a._b (names an invalid source), and a Deployment whose key exceeds
// 130 characters (a 63-character namespace and a 75-character name; longer than an SQS group id). None may
// wedge the pipeline: a normal Deployment created after them converges, the forwarder's checkpoint moves past
// them, the two bad ones are in the dead-letter list with their identity, and the long (valid) key runs.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { REDIS_URL } from '../helpers/queue/redis.js';
import { Redis } from 'ioredis';
import {
  NamespaceWatcher,
  Pipeline,
  chaosCluster,
  chaosNamespace,
  redisCheckpoints,
  redisDeadLetters,
  removeNamespace,
  spineReport,
  type ChaosCluster,
} from '../helpers/chaos/harness.js';
import { createDeployments, deployment, waitRolledOut } from '../helpers/chaos/workloads.js';
import { KWOK_TOLERATION } from '../helpers/sandbox/clusters.js';

const HOLD_FINALIZER = 'fleetq.dev/chaos-hold';

describe('chaos: poison objects', () => {
  let c: ChaosCluster;
  const namespaces: string[] = [];
  let p: Pipeline | undefined;
  const watchers: NamespaceWatcher[] = [];
  afterAll(async () => {
    for (const w of watchers) w.stop();
    await p?.stop();
    if (p) {
      const admin = new Redis(REDIS_URL);
      const keys = await admin.keys(`fleetq:{${p.queue}}:*`);
      keys.push(...(await admin.keys(`fleetq:{fleetq:${p.queue}}:*`)));
      if (keys.length > 0) await admin.del(...keys);
      admin.disconnect();
    }
    if (namespaces[0])
      await c.kc
        .makeApiClient(CoreV1Api)
        .patchNamespacedPod({
          namespace: namespaces[0],
          name: 'poison-pod',
          body: [{ op: 'remove', path: '/metadata/finalizers' }],
        })
        .catch(() => undefined);
    await Promise.all(namespaces.map((n) => removeNamespace(c.kc, n)));
  });

  it('a Deployment created after them converges, the checkpoint moves, the bad ones are dead-lettered', async () => {
    c = await chaosCluster('chaos-1');
    const ns = await chaosNamespace(c.kc);
    const longNs = await chaosNamespace(c.kc, `test-${randomUUID()}-${'x'.repeat(63)}`.slice(0, 63));
    namespaces.push(ns, longNs);
    const w = new NamespaceWatcher(c.kc, 'chaos-1', ns, { kinds: ['Pod', 'ReplicaSet', 'Deployment', 'ConfigMap'] });
    const wLong = new NamespaceWatcher(c.kc, 'chaos-1', longNs);
    watchers.push(w, wLong);
    await Promise.all([w.start(), wLong.start()]);
    p = new Pipeline({
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig }],
      driver: 'redis',
      redisUrl: REDIS_URL,
      workers: 2,
      leaseMs: 10_000,
      forwarderEnv: { FLEETQ_CHECKPOINTS: 'redis' },
    });
    await p.start();

    const core = c.kc.makeApiClient(CoreV1Api);
    const pod = await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: {
          name: 'poison-pod',
          // The garbage collector deletes a pod whose owner does not exist, at once; the forwarder's pod watch
          // starts after its workload lists have synced, so on a loaded machine the pod could be gone before any
          // list or watch of the forwarder saw it. The finalizer keeps it there (Terminating) until afterAll.
          finalizers: [HOLD_FINALIZER],
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'Not A Name', uid: randomUUID(), controller: true },
          ],
        },
        spec: {
          containers: [{ name: 'app', image: 'registry.example/app:1' }],
          tolerations: [KWOK_TOLERATION],
        },
      },
    });
    const cm = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'poison-cm', labels: { 'fleetq.dev/mirror-of': 'a._b' } }, data: { x: '1' } },
    });
    const longName = `long-${'y'.repeat(70)}`;
    await createDeployments(c.kc, longNs, [deployment(longName, 2)]);
    const poisonRv = BigInt(Math.max(Number(pod.metadata?.resourceVersion), Number(cm.metadata?.resourceVersion)));

    await createDeployments(c.kc, ns, [deployment('after', 3)]);
    const afterCm = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'after-cm' } } });
    const converged = await waitRolledOut(w, ['after'], 60_000).then(
      () => true,
      () => false,
    );
    const longConverged = await waitRolledOut(wLong, [longName], 60_000).then(
      () => true,
      () => false,
    );
    // The checkpoint moves past the poison objects (pods and configmaps alike).
    let checkpoints: Record<string, string> = {};
    const moved = (): boolean => {
      const rvs = Object.entries(checkpoints).filter(([r, v]) => /pods|configmaps/i.test(r) && /^\d+$/.test(v));
      return rvs.length >= 2 && rvs.every(([, v]) => BigInt(v) > poisonRv);
    };
    await waitFor(
      async () => {
        checkpoints = await redisCheckpoints(REDIS_URL, p!.queue);
        return moved();
      },
      30_000,
      250,
      'checkpoints past the poison objects',
    ).catch(() => undefined);
    let letters = await redisDeadLetters(REDIS_URL, p.queue);
    const named = (what: string): boolean => letters.some((d) => JSON.stringify(d).includes(what));
    await waitFor(
      async () => {
        letters = await redisDeadLetters(REDIS_URL, p!.queue);
        return named('poison-pod') && named('poison-cm');
      },
      20_000,
      250,
      'both poison objects dead-lettered',
    ).catch(() => undefined);
    const longRan = p.runs().some((r) => r.id === `chaos-1/Deployment/${longNs}/${longName}` && r.outcome === 'done');
    console.log(
      `poison: after converged=${converged}, long converged=${longConverged} (ran ${longRan}), ` +
        `checkpoints ${JSON.stringify(checkpoints)} vs poison rv ${poisonRv} (after-cm rv ${afterCm.metadata?.resourceVersion}), ` +
        `dead letters ${JSON.stringify(letters)}`,
    );
    // (b) over the keys that can exist: not the poison pod's owner key (never a valid key) nor the ConfigMaps.
    const report = await spineReport(p, w, {
      boundMs: 30_000,
      keyFilter: (k) => !k.includes('/ConfigMap/') && !k.endsWith('/Not A Name'),
    });
    expect(converged).toBe(true);
    expect(longConverged).toBe(true);
    expect(longRan).toBe(true);
    expect(moved()).toBe(true);
    expect(named('poison-pod')).toBe(true);
    expect(named('poison-cm')).toBe(true);
    for (const d of letters) expect(JSON.stringify(d)).toContain(ns);
    expect(report.overlaps).toEqual([]);
    expect(report.unfollowed).toEqual([]);
    expect(report.invariants).toEqual([]);
  });
});
