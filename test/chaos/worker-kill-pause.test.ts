// Fault 7: a worker killed (SIGKILL) in the middle of a scale-up, and another stopped (SIGSTOP) in the middle of
// one for twice its lease, then resumed (SIGCONT). The cluster is registered with a low qps, so a scale-up of
// 12 pods takes seconds. No two runs of a key may overlap, no Deployment may have more active pods than its
// replicas (maxSurge 0, plain scaling: there is no legitimate excess, so no grace), and the resumed worker,
// whose lease was handed to another while it was stopped, must make no write (no pod of its ReplicaSet is
// added after it resumed, once the heir had finished).
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { REDIS_URL } from '../helpers/redis.js';
import { Redis } from 'ioredis';
import {
  NamespaceWatcher,
  Pipeline,
  chaosCluster,
  chaosNamespace,
  removeNamespace,
  spineReport,
  type ChaosCluster,
  type Run,
} from '../helpers/chaos-harness.js';
import { activePodsByReplicaSet, createDeployments, deployment, waitRolledOut } from '../helpers/chaos-workloads.js';

const LEASE_MS = 4_000;
const TARGET = 12;

describe('chaos: a worker killed and another paused mid-create', () => {
  let c: ChaosCluster;
  let ns: string | undefined;
  let p: Pipeline | undefined;
  let w: NamespaceWatcher | undefined;
  afterAll(async () => {
    w?.stop();
    await p?.stop();
    if (p) {
      const admin = new Redis(REDIS_URL);
      const keys = await admin.keys(`fleetq:{${p.queue}}:*`);
      if (keys.length > 0) await admin.del(...keys);
      admin.disconnect();
    }
    if (ns) await removeNamespace(c.kc, ns);
  });

  it('no overlap, no pod past replicas, no write by the resumed worker', async () => {
    c = await chaosCluster('chaos-1');
    ns = await chaosNamespace(c.kc);
    const namespace = ns;
    w = new NamespaceWatcher(c.kc, 'chaos-1', ns, { podGraceMs: 0 });
    await w.start();
    p = new Pipeline({
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig, qps: 4, burst: 2 }],
      driver: 'bullmq',
      redisUrl: REDIS_URL,
      workers: 3,
      leaseMs: LEASE_MS,
      concurrency: 2,
    });
    await p.start();
    await createDeployments(c.kc, ns, [
      deployment('killed', 1, { maxSurge: 0 }),
      deployment('paused', 1, { maxSurge: 0 }),
    ]);
    await waitRolledOut(w, ['killed', 'paused'], 60_000);
    const apps = c.kc.makeApiClient(AppsV1Api);
    const rsOf = (d: string): string =>
      [...w!.objects.ReplicaSet.values()].find((rs) => rs.metadata.name?.startsWith(`${d}-`))?.metadata.name ?? '';

    /** Scales `d` up and returns the first run of its ReplicaSet's key that starts after the spec changed. */
    const scaleAndCatch = async (d: string): Promise<Run> => {
      await apps.patchNamespacedDeploymentScale({
        namespace,
        name: d,
        body: [{ op: 'replace', path: '/spec/replicas', value: TARGET }],
      });
      const rs = rsOf(d);
      await waitFor(
        async () => (w!.objects.ReplicaSet.get(rs)?.spec as { replicas?: number } | undefined)?.replicas === TARGET,
        30_000,
        20,
        `${rs} scaled`,
      );
      const scaledAt = Date.now();
      let run: Run | undefined;
      await waitFor(
        async () =>
          (run = p!
            .runs()
            .find((r) => r.id === `chaos-1/ReplicaSet/${namespace}/${rs}` && r.start >= scaledAt - 300)) !== undefined,
        30_000,
        10,
        `a run of ${rs}`,
      );
      return run!;
    };

    const k = await scaleAndCatch('killed');
    await p.kill(k.proc);
    const podsAtKill = activePodsByReplicaSet(w).get(rsOf('killed')) ?? 0;

    const s = await scaleAndCatch('paused');
    p.pause(s.proc);
    const pausedRs = rsOf('paused');
    const podsAtPause = activePodsByReplicaSet(w).get(pausedRs) ?? 0;
    // The fault: stopped for twice the lease (the heir takes the key meanwhile).
    await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
    p.resume(s.proc);
    const resumedAt = Date.now();

    const converged = await waitRolledOut(w, ['killed', 'paused'], 90_000).then(
      () => true,
      () => false,
    );
    // Give the resumed worker time to finish what it was doing (its run ends, one way or the other).
    await waitFor(
      async () => p!.runs().find((r) => r.token === s.token)?.end !== undefined,
      30_000,
      100,
      'the paused run ended',
    ).catch(() => undefined);
    const pausedRun = p.runs().find((r) => r.token === s.token);
    const heirDoneAt = Math.min(
      ...p
        .runs()
        .filter((r) => r.id === s.id && r.proc !== s.proc && r.start > resumedAt - 2 * LEASE_MS && r.end !== undefined)
        .map((r) => r.end ?? Infinity),
    );
    const addedAfterResume = w.events.filter(
      (e) =>
        e.kind === 'Pod' &&
        e.type === 'ADDED' &&
        e.at > resumedAt &&
        e.keys.includes(`chaos-1/ReplicaSet/${namespace}/${pausedRs}`),
    );
    console.log(
      `kill/pause: killed ${k.proc} with ${podsAtKill}/${TARGET} pods, paused ${s.proc} with ${podsAtPause}/${TARGET} pods; ` +
        `paused run ${JSON.stringify(pausedRun)}; heir's first run ended ${heirDoneAt - resumedAt} ms after resume; ` +
        `${addedAfterResume.length} pods of ${pausedRs} added after resume; converged=${converged}`,
    );
    const report = await spineReport(p, w, { boundMs: 30_000, pausedRunsEndAtPause: addedAfterResume.length === 0 });
    expect(podsAtKill).toBeLessThan(TARGET);
    expect(podsAtPause).toBeLessThan(TARGET);
    expect(report.invariants).toEqual([]);
    expect(converged).toBe(true);
    expect(addedAfterResume.filter((e) => e.at > heirDoneAt)).toEqual([]);
    expect(report.overlaps).toEqual([]);
    expect(report.unfollowed).toEqual([]);
    expect(report.deadLettersWithoutRun).toEqual([]);
  });
});
