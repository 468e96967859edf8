// Fault 1: a namespace with more pods than one list page (the runaway). 11 Deployments × 50 replicas in one
// namespace is 550 pods, more than the 500-item page a live list reads at a time: a view that reads only the
// first page sees too few pods for some ReplicaSets and creates more, without end.
import { afterAll, describe, expect, it } from '@jest/globals';
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
import {
  activePodsByReplicaSet,
  createDeployments,
  deployment,
  rolledOut,
  waitRolledOut,
} from '../helpers/chaos/workloads.js';

const DEPLOYMENTS = 11;
const REPLICAS = 50;

describe('chaos: more pods than one list page', () => {
  let c: ChaosCluster;
  let ns: string | undefined;
  let p: Pipeline | undefined;
  let w: NamespaceWatcher | undefined;
  afterAll(async () => {
    w?.stop();
    await p?.stop();
    if (ns) await removeNamespace(c.kc, ns);
  });

  it('every ReplicaSet converges to exactly its replicas, pods never past replicas + maxSurge', async () => {
    c = await chaosCluster('chaos-1');
    ns = await chaosNamespace(c.kc);
    w = new NamespaceWatcher(c.kc, 'chaos-1', ns);
    await w.start();
    p = new Pipeline({
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig, qps: 200, burst: 400 }],
      driver: 'redis',
      redisUrl: REDIS_URL,
      workers: 2,
      leaseMs: 15_000,
      // A burst of 550 pods' events: the test's watch can fall behind the forwarder's by more than the skew
      // tolerance; the forwarder's event log says when it saw each one.
      eventLog: true,
    });
    await p.start();
    const names = Array.from({ length: DEPLOYMENTS }, (_, i) => `web-${i}`);
    // maxSurge 0: the pod bound is exactly the replicas.
    await createDeployments(
      c.kc,
      ns,
      names.map((n) => deployment(n, REPLICAS, { maxSurge: 0 })),
    );

    const converged = await waitRolledOut(w, names, 240_000).then(
      () => true,
      () => false,
    );
    const pods = activePodsByReplicaSet(w);
    const total = [...pods.values()].reduce((a, b) => a + b, 0);
    console.log(
      `paging: converged=${converged}, ${total} active pods (want ${DEPLOYMENTS * REPLICAS}), per ReplicaSet ${JSON.stringify([...pods.values()])}`,
    );
    const report = await spineReport(p, w, { boundMs: 60_000 });
    expect(report.invariants).toEqual([]);
    expect(converged).toBe(true);
    expect(total).toBe(DEPLOYMENTS * REPLICAS);
    expect(rolledOut(w, names)).toBe(true);
    expect(report.overlaps).toEqual([]);
    expect(report.unfollowed).toEqual([]);
    expect(report.deadLettersWithoutRun).toEqual([]);
    expect(report.deadLetters).toEqual([]);
  });
});
