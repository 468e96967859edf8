// Forwarders that fail over (docs/operations.md, "Forwarder pool"). Three real forwarder processes (`fleetq forwarder --pool`) share six
// registry entries on the Redis driver. Six apiservers would not fit two cores beside everything else, so the six
// entries are three names each for two real sandbox clusters (chaos-1, and the standard fleetq-1): every name is a cluster of its
// own to the forwarders (its own lease, checkpoints and keys `<name>/Deployment/...`).
//   1. kill -9 one forwarder: its clusters are leased again by the others within the bound (leaseMs + a round,
//      ≤ 30 s), their watches resume from the checkpoint (not a relist), and every Deployment the test creates
//      meanwhile, as recorded by an independent test-side watch, reaches the queue under each of its names.
//   2. SIGSTOP another past its lease, create Deployments, SIGCONT it: its clusters went to the others, and
//      Redis shows it wrote nothing for them after: each cluster's list of writer tokens (appended by the fenced
//      enqueue and checkpoint scripts) never goes back to a lower token; the events of the pause reach the queue.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { waitFor } from '../../infra/sandbox/process.js';
import { readLeaseHolders, readWriterTokens, queuePrefixOf } from '../../shared/forwarder/forwarder-lease.js';
import { checkpointsKey, deleteAllCheckpoints } from '../../shared/queue/history/checkpoint-store.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { NamespaceWatcher, chaosCluster, chaosNamespace, removeNamespace } from '../helpers/chaos/harness.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { jsonLines, spawnTsx, type Proc } from '../helpers/processes.js';
import { REDIS_URL } from '../helpers/queue/redis.js';
import { sandboxCluster } from '../helpers/sandbox/clusters.js';

const LEASE_MS = 6_000;
const BOUND_MS = 30_000;
const REAL = ['chaos-1', 'fleetq-1'] as const;
const NAMES = REAL.flatMap((r) => ['a', 'b', 'c'].map((s) => `${r}-${s}`));
const realOf = (name: string): string => name.slice(0, name.lastIndexOf('-'));

type Real = { kc: KubeConfig; ns: string; watcher: NamespaceWatcher };

describe('chaos: forwarder pool, a forwarder killed and another paused', () => {
  const queue = `fwdpool-${randomUUID().slice(0, 8)}`;
  const prefix = queuePrefixOf(queue);
  const redis = new Redis(REDIS_URL);
  const reals = new Map<string, Real>();
  const procs: Proc[] = [];
  let registry: string;

  beforeAll(async () => {
    const kubeconfigs = new Map<string, string>();
    for (const r of REAL) {
      const { kc, state } = r === 'chaos-1' ? await chaosCluster(r) : await sandboxCluster(r);
      const ns = await chaosNamespace(kc);
      const watcher = new NamespaceWatcher(kc, r, ns, { kinds: ['Deployment'] });
      await watcher.start();
      reals.set(r, { kc, ns, watcher });
      kubeconfigs.set(r, state.kubeconfig);
    }
    registry = writeRegistry(
      NAMES.map((name) => ({ name, kubeconfig: kubeconfigs.get(realOf(name)) ?? '', owns: ['Deployment'] })),
    );
    const env = {
      FLEETQ_REGISTRY: registry,
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queue,
      REDIS_URL,
      FLEETQ_FORWARDER_LEASE_MS: String(LEASE_MS),
      FLEETQ_RESYNC_MS: '0',
      FLEETQ_EVENT_LOG: 'none',
      FLEETQ_READS: 'live',
      LOG_LEVEL: 'info',
    };
    for (let i = 0; i < 3; i++)
      procs.push(spawnTsx('functions/cli.ts', env, `forwarder-${i}`, ['forwarder', '--pool']));
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => (p.child.kill('SIGCONT'), p.stop('SIGKILL'))));
    for (const { kc, ns, watcher } of reals.values()) {
      watcher.stop();
      await removeNamespace(kc, ns);
    }
    await deleteQueueKeys(redis, prefix);
    await deleteAllCheckpoints(redis, `fleetq:${queue}`);
    redis.disconnect();
  });

  const holders = async (): Promise<Map<string, { pid: number; token: number }>> =>
    new Map(
      [...(await readLeaseHolders(redis, prefix))].map(([c, h]) => [
        c,
        { pid: Number(h.holder.split('/')[1]), token: h.token },
      ]),
    );
  const clustersOf = (h: Map<string, { pid: number }>, pid: number): string[] =>
    [...h].filter(([, v]) => v.pid === pid).map(([c]) => c);
  const checkpointed = async (cluster: string): Promise<boolean> =>
    (await redis.hget(checkpointsKey(`fleetq:${queue}`, cluster), 'deployments')) !== null;

  let n = 0;
  /** Creates one Deployment (0 replicas: only its events matter) in each real cluster. */
  const createEverywhere = async (tag: string): Promise<void> => {
    n++;
    await Promise.all(
      [...reals.values()].map(({ kc, ns }) =>
        kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
          namespace: ns,
          body: {
            metadata: { name: `${tag}-${n}` },
            spec: {
              replicas: 0,
              selector: { matchLabels: { app: `${tag}-${n}` } },
              template: {
                metadata: { labels: { app: `${tag}-${n}` } },
                spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
              },
            },
          },
        }),
      ),
    );
  };
  /** Every Deployment the independent watch saw added, as the key each registry name must have enqueued. */
  const expectedKeys = (): string[] =>
    NAMES.flatMap((name) => {
      const real = reals.get(realOf(name)) as Real;
      return real.watcher.events
        .filter((e) => e.kind === 'Deployment' && e.type === 'ADDED')
        .map((e) => `${name}/Deployment/${real.ns}/${e.name}`);
    });
  const missingKeys = async (): Promise<string[]> => {
    const expected = expectedKeys();
    if (expected.length === 0) return [];
    const present = await redis.hmget(`${prefix}pending`, ...expected);
    return expected.filter((_, i) => present[i] === null);
  };

  it('kill -9: clusters leased again within the bound, resumed from checkpoints, no event lost', async () => {
    await waitFor(
      async () => {
        const h = await holders();
        const pids = new Set([...h.values()].map((v) => v.pid));
        const each = [...pids].map((pid) => clustersOf(h, pid).length);
        return h.size === 6 && pids.size === 3 && each.every((c) => c === 2);
      },
      180_000,
      250,
      'six clusters leased, two per forwarder',
    );
    await waitFor(async () => (await Promise.all(NAMES.map(checkpointed))).every(Boolean), 60_000, 250, 'checkpoints');
    const before = await holders();
    const victim = procs[0] as Proc;
    const victimClusters = clustersOf(before, victim.child.pid ?? -1);
    expect(victimClusters).toHaveLength(2);

    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    let takenAt: number | undefined;
    // Events while the clusters have no forwarder, until they are leased again.
    while (takenAt === undefined && Date.now() - killedAt < BOUND_MS + 10_000) {
      await createEverywhere('dead');
      const h = await holders();
      if (victimClusters.every((c) => h.get(c) !== undefined && h.get(c)?.pid !== victim.child.pid))
        takenAt = Date.now();
      else await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(takenAt).toBeDefined();
    const takeoverMs = (takenAt ?? Infinity) - killedAt;
    console.log(`forwarder pool: takeover after kill -9 in ${takeoverMs} ms (lease ${LEASE_MS} ms)`);
    expect(takeoverMs).toBeLessThanOrEqual(BOUND_MS);
    for (let i = 0; i < 2; i++) await createEverywhere('after');

    await waitFor(
      async () => (await missingKeys()).length === 0,
      90_000,
      500,
      'every watched Deployment enqueued',
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}; missing: ${(await missingKeys()).join(', ')}`);
    });
    // The new holders resumed each victim cluster's watch from its checkpoint (no initial relist).
    for (const cluster of victimClusters) {
      const watching = procs
        .slice(1)
        .flatMap((p) => jsonLines(p))
        .filter((l) => l.message === 'Watching' && l.cluster === cluster && Date.parse(String(l.time)) >= killedAt);
      expect(watching.length).toBeGreaterThan(0);
      for (const l of watching) expect(Object.keys((l.resumed ?? {}) as object)).toContain('deployments');
    }
  });

  it('SIGSTOP past the lease, then SIGCONT: no enqueue or checkpoint for a cluster it no longer holds', async () => {
    const paused = procs[1] as Proc;
    const pid = paused.child.pid ?? -1;
    await waitFor(
      async () => clustersOf(await holders(), pid).length > 0,
      60_000,
      250,
      'the paused one holds clusters',
    );
    const its = clustersOf(await holders(), pid);
    const stoppedAt = Date.now();
    paused.child.kill('SIGSTOP');
    let takenAt: number | undefined;
    while (takenAt === undefined && Date.now() - stoppedAt < BOUND_MS + 10_000) {
      await createEverywhere('paused');
      const h = await holders();
      if (its.every((c) => h.get(c) !== undefined && h.get(c)?.pid !== pid)) takenAt = Date.now();
      else await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(takenAt).toBeDefined();
    console.log(`forwarder pool: takeover after SIGSTOP in ${(takenAt ?? 0) - stoppedAt} ms`);
    await createEverywhere('paused');
    paused.child.kill('SIGCONT');
    await createEverywhere('resumed');
    // It finds out: each lease it held is lost (local deadline passed, or renewal refused).
    await paused.waitForLine(/"message":"Forwarder lease lost"/, 30_000);
    await waitFor(
      async () => (await missingKeys()).length === 0,
      90_000,
      500,
      'every watched Deployment enqueued',
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}; missing: ${(await missingKeys()).join(', ')}`);
    });
    const refused = jsonLines(paused).filter((l) => l.message === 'Fenced write refused').length;
    console.log(`forwarder pool: the resumed forwarder had ${refused} write(s) refused by the fence`);
    for (const cluster of NAMES) {
      const tokens = await readWriterTokens(redis, cluster, prefix);
      expect(tokens).toEqual([...tokens].sort((a, b) => a - b));
    }
  });
});
