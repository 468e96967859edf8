// Fault: on a Redis Cluster, the primary that serves the queue's hash slot dies (SIGKILL) and the cluster promotes
// its replica, which had not received the primary's last writes. Keys the primary had acknowledged (a Deployment
// created, others scaled) are gone from the queue, and no new event brings them back. The marker (redis-loss.ts) was
// replicated long ago, so it is still there: the forwarder must see the new server and data history of the slot's
// primary (run_id, master_replid, read from the node serving the marker's slot) and resync, so every Deployment
// converges within a bound. The forwarder runs without a periodic resync (FLEETQ_RESYNC_MS=0): the recovery comes
// from the detection alone. Two workers take keys throughout, and no key runs twice at once.
//
// Real parts: six redis-servers in cluster mode (three primaries, one replica each, cluster-node-timeout 1 s so a
// failover takes seconds), the sandbox's chaos-1 apiserver, the forwarder and workers as processes on a Cluster
// client (REDIS_URL naming every node). The replica lags for good: it is stopped (SIGSTOP) and the primary drops
// its replication link before the lost writes, so it cannot reconnect and catch up; it is resumed only after the
// primary is dead, which is what a replica that had not yet received those writes holds when it is promoted.
import { afterAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { waitFor } from '../../infra/sandbox/process.js';
import { epochKey } from '../../shared/queue/redis/redis-loss.js';
import { redisKeyPrefix, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import {
  NamespaceWatcher,
  Pipeline,
  chaosCluster,
  chaosNamespace,
  overlaps,
  removeNamespace,
  type ChaosCluster,
} from '../helpers/chaos/harness.js';
import { createDeployments, deployment, waitRolledOut } from '../helpers/chaos/workloads.js';
import { jsonLines } from '../helpers/processes.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';

/** Every Deployment must be rolled out this soon after the promotion (no periodic resync runs). */
const CONVERGE_BOUND_MS = 30_000;
/** The cluster's failover must be done (the replica a primary, cluster_state:ok everywhere) this soon. */
const FAILOVER_BOUND_MS = 20_000;
const DETECTED = 'Redis data loss detected; resyncing';
/** The watch of every primary (the cache's, checkpoints' and event log's slots) logs this per changed primary. */
const PRIMARY_CHANGED = 'Redis Cluster primary changed (failover, restart or resharding); resyncing';

/** A plain connection to one cluster node (commands on the keys of the slots it serves). */
function nodeClient(port: number): Redis {
  const r = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  return r;
}

async function pidOf(port: number): Promise<number> {
  const r = nodeClient(port);
  try {
    const pid = Number(/^process_id:(\d+)\r?$/m.exec(await r.info('server'))?.[1]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no process_id from the node on ${port}`);
    return pid;
  } finally {
    r.disconnect();
  }
}

describe('chaos: Redis Cluster failover of the queue slot’s primary to a lagging replica', () => {
  let c: ChaosCluster;
  let ns: string | undefined;
  let rc: RedisCluster | undefined;
  let p: Pipeline | undefined;
  let w: NamespaceWatcher | undefined;
  let stoppedPid: number | undefined;
  const admins: Redis[] = [];
  afterAll(async () => {
    if (stoppedPid !== undefined) {
      try {
        process.kill(stoppedPid, 'SIGCONT');
      } catch {
        // gone already; rc.stop() below kills the rest
      }
    }
    w?.stop();
    await p?.stop();
    for (const a of admins) a.disconnect();
    await rc?.stop();
    if (ns) await removeNamespace(c.kc, ns);
  });

  it('what the killed primary acknowledged is lost, the loss is detected, every Deployment converges', async () => {
    c = await chaosCluster('chaos-1');
    ns = await chaosNamespace(c.kc);
    rc = await startRedisCluster({ nodeTimeoutMs: 1_000 });
    w = new NamespaceWatcher(c.kc, 'chaos-1', ns);
    await w.start();
    p = new Pipeline({
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig }],
      driver: 'redis',
      redisUrl: rc.url,
      workers: 2,
      leaseMs: 10_000,
      // Checks every 250 ms: the seconds before the kill hold many checks, each of which must find no loss (a
      // check that read INFO from any node of the cluster, not the marker's, saw a "new server" every few checks).
      forwarderEnv: { FLEETQ_RESYNC_MS: '0', FLEETQ_REDIS_LOSS_CHECK_MS: '250' },
    });
    await p.start();
    const forwarderStartedAt = Date.now();
    const apps = c.kc.makeApiClient(AppsV1Api);
    const scale = async (name: string, replicas: number): Promise<void> => {
      await apps.patchNamespacedDeploymentScale({
        namespace: ns as string,
        name,
        body: [{ op: 'replace', path: '/spec/replicas', value: replicas }],
      });
    };

    // Keys flow through the Cluster: Deployments created, rolled out, scaled.
    const flowing = ['flow-a', 'flow-b', 'flow-c'];
    await createDeployments(
      c.kc,
      ns,
      flowing.map((n) => deployment(n, 1)),
    );
    await waitRolledOut(w, flowing, 60_000);
    for (const name of flowing) await scale(name, 2);
    await waitRolledOut(w, flowing, 60_000);
    const forwarder = [...p.procs].find(([name]) => name.startsWith('forwarder-'))?.[1];
    if (!forwarder) throw new Error('no forwarder process');
    const detections = (): Array<Record<string, unknown>> => jsonLines(forwarder).filter((l) => l.message === DETECTED);
    const primaryChanges = (): Array<Record<string, unknown>> =>
      jsonLines(forwarder).filter((l) => l.message === PRIMARY_CHANGED);
    // Nothing was lost yet: a loss reported now is a false one (and costs every cluster a full list).
    expect(detections().map((l) => l.how)).toEqual([]);
    expect(primaryChanges()).toEqual([]);

    // The primary serving the queue's slot, and its replica (which must hold the marker: replicated long ago).
    const marker = epochKey(p.queue);
    const primary = await rc.primaryFor(marker);
    const replica = (await rc.nodes()).find((n) => n.primaryId === primary.id);
    if (!replica) throw new Error(`the primary on ${primary.port} has no replica`);
    const onPrimary = nodeClient(primary.port);
    const onReplica = nodeClient(replica.port);
    admins.push(onPrimary, onReplica);
    await onReplica.call('READONLY');
    const epoch = await onPrimary.get(marker);
    expect(epoch).not.toBeNull();
    await waitFor(async () => (await onReplica.get(marker)) === epoch, 10_000, 50, 'the marker on the replica');

    // The replica stops following: stopped, and its link dropped by the primary so it cannot catch up later.
    stoppedPid = await pidOf(replica.port);
    process.kill(stoppedPid, 'SIGSTOP');
    await onPrimary.call('CLIENT', 'KILL', 'TYPE', 'replica');
    // The workers stop taking keys, so what the primary acknowledges stays in its pending hash.
    for (const [name] of p.workers) p.pause(name);
    const pausedAt = Date.now();
    await createDeployments(c.kc, ns, [deployment('lost', 2)]);
    for (const name of flowing) await scale(name, 3);
    const all = ['lost', ...flowing];
    const ids = all.map((n) => ['chaos-1', 'Deployment', ns, n].join('/'));
    const pending = redisKeys(redisKeyPrefix(p.queue)).pending;
    await waitFor(
      async () => {
        const held = await onPrimary.hkeys(pending);
        return ids.every((id) => held.includes(id));
      },
      20_000,
      50,
      'every Deployment pending on the primary',
    );
    const acknowledged = Object.keys(await onPrimary.hgetall(pending)).sort();

    // Failover: the primary dies; the replica, resumed, finds it gone and is promoted.
    const killedAt = Date.now();
    await rc.killPrimary(primary.port);
    process.kill(stoppedPid, 'SIGCONT');
    stoppedPid = undefined;
    await rc.waitForFailover(replica.port, FAILOVER_BOUND_MS);
    const promotedAt = Date.now();
    const held = Object.keys(await onReplica.hgetall(pending)).sort();
    const lost = acknowledged.filter((id) => !held.includes(id));
    const markerAfter = await onReplica.get(marker);
    console.log(
      `chaos report: cluster failover: promoted ${promotedAt - killedAt} ms after the kill; the killed primary had ` +
        `${acknowledged.length} pending keys, the promoted replica holds ${held.length}; lost ${JSON.stringify(lost)}; ` +
        `marker ${markerAfter === epoch ? 'kept (the same epoch)' : `changed (${String(markerAfter)})`}`,
    );
    // The loss is real, and the marker alone does not show it.
    expect(lost).toEqual(expect.arrayContaining(ids));
    expect(markerAfter).toBe(epoch);

    for (const [name] of p.workers) p.resume(name);
    const converged = await waitRolledOut(w, all, CONVERGE_BOUND_MS).then(
      () => Date.now() - promotedAt,
      () => undefined,
    );
    const before = detections().filter((l) => Date.parse(String(l.time)) < killedAt);
    const after = detections().filter((l) => Date.parse(String(l.time)) >= killedAt);
    const settledAt = await p.settleRuns();
    const runOverlaps = overlaps(p, { settledAt });
    const invariants = w.allViolations();
    console.log(
      `chaos report: cluster failover: ${all.length} Deployments rolled out ` +
        `${converged === undefined ? `not within ${CONVERGE_BOUND_MS}` : converged} ms after the promotion; ` +
        `detections before the kill ${JSON.stringify(before.map((l) => l.how))}, after ` +
        `${JSON.stringify(after.map((l) => [l.how, Date.parse(String(l.time)) - killedAt]))} (ms after the kill); ` +
        `${p.runs().length} runs, ${runOverlaps.length} overlaps, ${invariants.length} invariant violations; ` +
        `workers paused ${killedAt - pausedAt} ms before the kill, forwarder running ${killedAt - forwarderStartedAt} ms ` +
        `before it\n${[...runOverlaps, ...invariants].join('\n')}`,
    );
    if (converged === undefined) {
      // What the forwarder did about the failover (its loss checks failing meanwhile left out), and every process's end.
      const sinceKill = jsonLines(forwarder).filter(
        (l) => Date.parse(String(l.time)) >= killedAt && l.message !== 'Redis data-loss check failed',
      );
      console.log(
        `chaos report: cluster failover: the forwarder since the kill\n${sinceKill.map((l) => JSON.stringify(l)).join('\n')}\n` +
          `processes' last lines\n${p.tail(30)}`,
      );
    }
    expect(before.map((l) => l.how)).toEqual([]);
    expect(after.map((l) => l.how)).toEqual(['server-changed']);
    // The watch of every primary sees the same failover (the queue's primary serves other slots too): one line,
    // naming the promoted replica.
    await waitFor(async () => primaryChanges().length > 0, 10_000, 50, 'the primary change logged');
    expect(primaryChanges().map((l) => l.node)).toEqual([`127.0.0.1:${replica.port}`]);
    expect(converged).toBeDefined();
    expect(runOverlaps).toEqual([]);
    expect(invariants).toEqual([]);
  });
});
