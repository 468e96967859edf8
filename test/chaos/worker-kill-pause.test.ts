// Fault 7: a worker killed (SIGKILL) in the middle of a scale-up, and another stopped (SIGSTOP) in the middle of
// one for twice its lease, then resumed (SIGCONT). The cluster is registered with a low qps, so a scale-up of
// 12 pods takes seconds. No two runs of a key may overlap, no Deployment may have more active pods than its
// replicas (maxSurge 0, plain scaling: there is no legitimate excess, so no grace), and the resumed worker,
// whose lease was handed to another while it was stopped, must make no write (no pod of its ReplicaSet is
// added after it resumed, once the heir had finished).
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api } from '@kubernetes/client-node';
import { waitFor } from '../../infra/sandbox/process.js';
import { REDIS_URL } from '../helpers/queue/redis.js';
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
  WATCH_SKEW_MS,
} from '../helpers/chaos/harness.js';
import { activePodsByReplicaSet, createDeployments, deployment, waitRolledOut } from '../helpers/chaos/workloads.js';

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
      // 4 requests per second: a scale-up of 11 pods takes about 2.5 s, so the test catches it mid-create, and the
      // heir finishes it within the pause (2 × lease), before the paused worker resumes.
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig, qps: 4, burst: 2 }],
      driver: 'redis',
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

    /**
     * Scales `d` up and returns the run that is creating its ReplicaSet's pods: the latest run of the key that
     * started before the first new pod was seen and has not ended. (The scale's first create can come before
     * this test's watch shows the new spec, so "the first run after the spec changed" may be a later no-op.)
     */
    const scaleAndCatch = async (d: string): Promise<Run> => {
      const rs = rsOf(d);
      const id = `chaos-1/ReplicaSet/${namespace}/${rs}`;
      // The watch of pods may lag the Deployment's status: wait until it shows the one pod there is, so the first
      // pod ADDED after the patch is a new one.
      await waitFor(async () => activePodsByReplicaSet(w!).get(rs) === 1, 30_000, 20, `${rs}'s one pod seen`);
      const patchedAt = Date.now();
      await apps.patchNamespacedDeploymentScale({
        namespace,
        name: d,
        body: [{ op: 'replace', path: '/spec/replicas', value: TARGET }],
      });
      let run: Run | undefined;
      await waitFor(
        async () => {
          const firstAdd = w!.events.find(
            (e) => e.kind === 'Pod' && e.type === 'ADDED' && e.at >= patchedAt && e.keys.includes(id),
          );
          if (!firstAdd) return false;
          run = p!
            .runs()
            .filter((r) => r.id === id && r.start <= firstAdd.at + WATCH_SKEW_MS)
            .pop();
          return run !== undefined;
        },
        30_000,
        10,
        `the run creating ${rs}'s pods`,
      );
      if (run!.end !== undefined) throw new Error(`${id}: the creating run ${run!.token} ended before it was caught`);
      return run!;
    };

    const k = await scaleAndCatch('killed');
    const caughtAt = Date.now();
    await p.kill(k.proc);
    const podsAtKill = activePodsByReplicaSet(w).get(rsOf('killed')) ?? 0;
    const killedAdds = w.events
      .filter((e) => e.kind === 'Pod' && e.type === 'ADDED' && e.keys.includes(k.id))
      .map((e) => e.at - k.start);
    console.log(
      `kill timing: run started ${k.start}, caught +${caughtAt - k.start} ms, killed +${(p.kills.get(k.proc) ?? 0) - k.start} ms; ` +
        `pods added at +${killedAdds.join(', +')} ms`,
    );

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
