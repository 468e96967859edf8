// Fault 5: Redis down for 90 s while events flow. The queue's Redis (a redis-server of this test's own) is
// killed (SIGKILL: nothing saved) while the pipeline runs on chaos-1, held down for 90 s while Deployments keep
// being scaled, and started again empty on the same port: waiting keys, leases, requeue timers, checkpoints
// and dead letters are all gone. Every key touched before or during the outage must run successfully within
// a bound of Redis coming back (including a Deployment no event touches after the restart), every Deployment
// must converge to its last spec, no process may have crashed, and nothing of the namespace may change while
// Redis is down once the lease of a run in flight at the kill has run out (no lease, no write).
// Every pipeline watches its whole cluster: a test running at the same time with its own pipeline on chaos-1
// reconciles this namespace too, which shows here as changes while Redis is down (run the suite in band).
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api } from '@kubernetes/client-node';
import {
  CHAOS_LOG_DIR,
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
import { createDeployments, deployment, rolledOut, waitRolledOut } from '../helpers/chaos/workloads.js';
import { waitFor } from '../../infra/sandbox/process.js';

const OUTAGE_MS = 90_000;
const LEASE_MS = 10_000;
/** Every key touched before or during the outage runs this soon after Redis is back. */
const RECOVERY_BOUND_MS = 30_000;
/**
 * One scale during the outage this often (bounded: OUTAGE_MS / SCALE_EVERY_MS of them at most), always to at
 * least as many replicas as any Deployment has pods when Redis dies: while no controller can act, a scale-down
 * below the pods present would break the watcher's surge bound by the test's own hand, not the controller's.
 */
const SCALE_EVERY_MS = 3_000;
const SCALED = ['a', 'b', 'c'];
/**
 * Untouched since it converged before the outage: only a resync on the data loss (a new run_id, a missing marker)
 * runs its keys again; the forwarder has no periodic one (the chaos pipeline's FLEETQ_RESYNC_MS=0).
 */
const IDLE = 'idle';

describe('chaos: Redis down for 90 s while events flow', () => {
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

  it('every key runs within the bound after Redis is back; Deployments converge; nothing crashed', async () => {
    c = await chaosCluster('chaos-1');
    ns = await chaosNamespace(c.kc);
    const namespace = ns;
    redis = await ownRedis();
    w = new NamespaceWatcher(c.kc, 'chaos-1', ns);
    await w.start();
    p = new Pipeline({
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig }],
      driver: 'redis',
      redisUrl: redis.url,
      workers: 2,
      leaseMs: LEASE_MS,
      // Checkpoints where production keeps them: in the Redis that goes down.
      forwarderEnv: { FLEETQ_CHECKPOINTS: 'redis' },
    });
    await p.start();
    const names = [...SCALED, IDLE];
    await createDeployments(
      c.kc,
      ns,
      names.map((n) => deployment(n, 2)),
    );
    await waitRolledOut(w, names, 90_000);

    const apps = c.kc.makeApiClient(AppsV1Api);
    const finalReplicas = new Map(names.map((n) => [n, 2]));
    const scale = async (name: string, replicas: number): Promise<void> => {
      await apps.patchNamespacedDeploymentScale({
        namespace,
        name,
        body: [{ op: 'replace', path: '/spec/replicas', value: replicas }],
      });
      finalReplicas.set(name, replicas);
    };
    // A change in flight when Redis dies: its key (and the ReplicaSet work it makes) may be lost with it.
    await scale('a', 4);
    await redis.stop();
    const downAt = Date.now();

    // The fault, held for OUTAGE_MS while events keep coming: one scale every SCALE_EVERY_MS.
    let scales = 0;
    for (let i = 0; i < OUTAGE_MS / SCALE_EVERY_MS && Date.now() < downAt + OUTAGE_MS - SCALE_EVERY_MS; i++) {
      await scale(SCALED[i % SCALED.length] as string, 4 + ((i * 7) % 5));
      scales++;
      await new Promise((r) => setTimeout(r, SCALE_EVERY_MS));
    }
    await new Promise((r) => setTimeout(r, Math.max(0, downAt + OUTAGE_MS - Date.now())));
    const alive = (): string[] =>
      [...p!.procs].filter(([, q]) => q.child.exitCode === null && q.child.signalCode === null).map(([n]) => n);
    const aliveDuringOutage = alive();
    await redis.start();
    const upAt = Date.now();
    const outageMs = upAt - downAt;

    // Every Deployment and ReplicaSet of the namespace, and every key an event touched before or during the
    // outage, must run after Redis is back.
    const touched = new Set([...workloadKeys(w), ...w.events.filter((e) => e.at <= upAt).flatMap((e) => e.keys)]);
    const keys = [...touched].filter((k) => !k.includes('/ConfigMap/'));
    await waitFor(
      async () => keysNotRunWithin(p!, keys, upAt, RECOVERY_BOUND_MS).length === 0,
      RECOVERY_BOUND_MS + 5_000,
      250,
      'every key run after Redis is back',
    ).catch(() => undefined);
    const notRun = keysNotRunWithin(p, keys, upAt, RECOVERY_BOUND_MS);
    const firstRunAfter = keys.map((k) => {
      const r = p!
        .runs()
        .find((x) => x.id === k && x.start >= upAt && (x.outcome === 'done' || x.outcome === 'requeued'));
      return r ? r.start - upAt : Infinity;
    });
    const recoveryMs = Math.max(...firstRunAfter);
    const recovery = Number.isFinite(recoveryMs) ? `${recoveryMs} ms` : 'never (a key did not run)';

    const converged = await waitRolledOut(w, names, 120_000).then(
      () => true,
      () => false,
    );
    const specs = Object.fromEntries(
      names.map((n) => [n, (w!.objects.Deployment.get(n)?.spec as { replicas?: number } | undefined)?.replicas]),
    );
    const convergedAt = Date.now();
    console.log(
      `redis down: outage ${outageMs} ms with ${scales} scales; recovery (last key's first successful run after ` +
        `Redis was back) ${recovery} over ${keys.length} keys (bound ${RECOVERY_BOUND_MS} ms); ` +
        `converged=${converged} ${convergedAt - upAt} ms after; specs ${JSON.stringify(specs)} want ` +
        `${JSON.stringify(Object.fromEntries(finalReplicas))}; not run in time: ${notRun.join(', ')}`,
    );
    const report = await spineReport(p, w, { boundMs: RECOVERY_BOUND_MS, boundFrom: upAt, followTimeoutMs: 60_000 });
    // While Redis is down no lease can be granted or renewed, so no pod or ReplicaSet of the namespace may change
    // once the lease of a run in flight at the kill has run out (its fence stops it). A change there is a write
    // without a lease (or another controller acting on this namespace).
    const writesDuringOutage = w.events.filter(
      (e) =>
        e.at > downAt + LEASE_MS &&
        e.at < upAt &&
        (e.kind === 'ReplicaSet' || (e.kind === 'Pod' && e.type !== 'MODIFIED')),
    );
    console.log(
      `redis down: ${writesDuringOutage.length} pod/ReplicaSet changes while Redis was down ` +
        `${JSON.stringify(writesDuringOutage.slice(0, 5))}; invariant breaks (ms from Redis back): ` +
        JSON.stringify(w.violations.map((v) => [v.invariant.split(':')[0], v.from - upAt, v.to - upAt])),
    );
    console.log(`redis down: logs kept in ${join(CHAOS_LOG_DIR, p.queue)} when the pipeline stops`);
    const aliveAtEnd = alive();
    expect(scales).toBeGreaterThanOrEqual(20);
    expect(writesDuringOutage).toEqual([]);
    expect(aliveDuringOutage).toEqual([...p.procs.keys()]);
    expect(aliveAtEnd).toEqual([...p.procs.keys()]);
    expect(notRun).toEqual([]);
    expect(converged).toBe(true);
    expect(rolledOut(w, names)).toBe(true);
    expect(specs).toEqual(Object.fromEntries(finalReplicas));
    expect(report.overlaps).toEqual([]);
    expect(report.unfollowed).toEqual([]);
    expect(report.invariants).toEqual([]);
    expect(report.deadLettersWithoutRun).toEqual([]);
  });
});
