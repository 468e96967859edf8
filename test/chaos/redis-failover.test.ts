// Fault: a Redis failover to a replica that lagged. The replica still holds the data-loss marker (it was
// replicated long ago) but not the primary's last writes, so a key enqueued just before the failover is gone and
// no new event brings it back. The forwarder must see the different data history (redis-loss.ts: run_id and
// master_replid) and resync, so the lost key's work is done within a bound. The forwarder runs without a periodic
// resync (the chaos pipeline's FLEETQ_RESYNC_MS=0): the recovery comes from the detection alone.
//
// Real parts: a primary and a replica (two redis-servers, REPLICAOF), and a TCP pass-through in front of them
// that the processes connect to (a failover's stable address: a DNS name or a Sentinel-aware client in a fleet).
// The replica lags for good: it is promoted (REPLICAOF NO ONE) before the lost enqueue, which is what a replica
// that had not yet received that write holds when it is promoted.
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { waitFor } from '../../infra/sandbox/process.js';
import { epochKey } from '../../shared/queue/redis/redis-loss.js';
import { redisKeyPrefix, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import {
  NamespaceWatcher,
  Pipeline,
  chaosCluster,
  chaosNamespace,
  ownRedis,
  removeNamespace,
  type ChaosCluster,
  type OwnRedis,
} from '../helpers/chaos/harness.js';
import { stableEndpoint, type StableEndpoint } from '../helpers/chaos/endpoint.js';
import { createDeployments, deployment, waitRolledOut } from '../helpers/chaos/workloads.js';
import { jsonLines } from '../helpers/processes.js';

/** The lost key's Deployment must be rolled out this soon after the failover (no periodic resync runs). */
const CONVERGE_BOUND_MS = 30_000;

describe('chaos: failover to a lagging Redis replica', () => {
  let c: ChaosCluster;
  let ns: string | undefined;
  let primary: OwnRedis | undefined;
  let replica: OwnRedis | undefined;
  let proxy: StableEndpoint | undefined;
  let p: Pipeline | undefined;
  let w: NamespaceWatcher | undefined;
  const admins: Redis[] = [];
  afterAll(async () => {
    w?.stop();
    await p?.stop();
    for (const a of admins) a.disconnect();
    await proxy?.close();
    await primary?.stop();
    await replica?.stop();
    if (ns) await removeNamespace(c.kc, ns);
  });

  it('a key enqueued on the primary only is run after the failover, and the loss is logged', async () => {
    c = await chaosCluster('chaos-1');
    ns = await chaosNamespace(c.kc);
    primary = await ownRedis();
    replica = await ownRedis();
    const onPrimary = new Redis(primary.url, { maxRetriesPerRequest: 0 });
    const onReplica = new Redis(replica.url, { maxRetriesPerRequest: 0 });
    for (const a of [onPrimary, onReplica]) {
      a.on('error', () => undefined);
      admins.push(a);
    }
    // The first sync goes over the socket (no RDB file in the servers' directory: the work tree), and at once.
    await onPrimary.config('SET', 'repl-diskless-sync', 'yes');
    await onReplica.config('SET', 'repl-diskless-load', 'swapdb');
    await onPrimary.config('SET', 'repl-diskless-sync-delay', '0');
    await onReplica.replicaof('127.0.0.1', primary.port);
    proxy = await stableEndpoint(primary.port);
    w = new NamespaceWatcher(c.kc, 'chaos-1', ns);
    await w.start();
    p = new Pipeline({
      clusters: [{ name: 'chaos-1', kubeconfig: c.state.kubeconfig }],
      driver: 'redis',
      redisUrl: `redis://127.0.0.1:${proxy.port}`,
      workers: 1,
      leaseMs: 10_000,
    });
    await p.start();
    const upAt = Date.now();
    // The replica has the marker the forwarder wrote: a flush check alone sees nothing wrong after the failover.
    const marker = epochKey(p.queue);
    await waitFor(async () => (await onReplica.get(marker)) !== null, 10_000, 50, 'the marker on the replica');

    // The replica stops following (it will be promoted as it is now); the workers stop taking keys.
    await onReplica.replicaof('NO', 'ONE');
    for (const [name] of p.workers) p.pause(name);
    await createDeployments(c.kc, ns, [deployment('lost', 2)]);
    const id = ['chaos-1', 'Deployment', ns, 'lost'].join('/');
    const pending = redisKeys(redisKeyPrefix(p.queue)).pending;
    await waitFor(async () => (await onPrimary.hexists(pending, id)) === 1, 20_000, 50, `${id} pending on the primary`);
    expect(await onReplica.hexists(pending, id)).toBe(0);

    // Failover: the primary dies, the clients' address now leads to the promoted replica.
    await primary.stop();
    primary = undefined; // a second stop() would wait for an exit that has already happened
    proxy.retarget(replica.port);
    const failedOverAt = Date.now();
    for (const [name] of p.workers) p.resume(name);

    const converged = await waitRolledOut(w, ['lost'], CONVERGE_BOUND_MS).then(
      () => Date.now() - failedOverAt,
      () => undefined,
    );
    const forwarder = [...p.procs].find(([name]) => name.startsWith('forwarder-'))?.[1];
    const detections = forwarder
      ? jsonLines(forwarder).filter((l) => l.message === 'Redis data loss detected; resyncing')
      : [];
    console.log(
      `chaos report: failover: lost Deployment rolled out ${converged === undefined ? `not within ${CONVERGE_BOUND_MS}` : converged} ms after (the failover ${failedOverAt - upAt} ms after the pipeline was up); detections ${JSON.stringify(detections.map((l) => l.how))}`,
    );
    if (converged === undefined) {
      // What each process logged from just before the failover on, to tell a slow resync, a refused fenced write
      // or a worker that did not pick the key up apart: the forwarder's lines but its debug ones, each worker's
      // last 60 of any level (a worker logs each key it takes at debug).
      const since = failedOverAt - 2_000;
      for (const [name, proc] of p.procs) {
        const worker = name.startsWith('worker-');
        const lines = jsonLines(proc)
          .filter((l) => (worker || l.level !== 'debug') && Date.parse(String(l.time)) >= since)
          .slice(worker ? -60 : 0);
        console.log(
          `chaos report: failover: ${name} after the failover:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`,
        );
      }
    }
    expect(detections.map((l) => l.how)).toEqual(['server-changed']);
    expect(converged).toBeDefined();
  });
});
