// The forwarder pool's mechanics on real Redis, three pools in this process: even spread, takeover after a
// member stops renewing (its process "died": no release, no membership removal), rebalance when one joins, and
// the registry re-read (an added cluster is taken, a removed one released and drained). The clusters' servers
// are unreachable here (the watches retry in the background): what is checked is who holds which lease. The
// chaos test forwarder-pool-kill.test.ts runs real forwarder processes against real sandbox clusters.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { ForwarderPool } from '../../shared/forwarder/forwarder-pool.js';
import { readLeaseHolders } from '../../shared/forwarder/forwarder-lease.js';
import { RegistryReload } from '../../shared/runtime/registry-reload.js';
import { Logger } from '../../shared/runtime/logger.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { redisClient, testQueueName } from '../helpers/queue/redis.js';

const redis = redisClient();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await redis.quit();
});

const LEASE_MS = 2_000;
const quiet = new Logger('test-pool', 'error', () => undefined);

async function registryFile(dir: string, names: readonly string[]): Promise<string> {
  const path = join(dir, 'fleet.yaml');
  await writeFile(join(dir, 'token'), 'x');
  const entries = names.map(
    (n) => `  - name: ${n}\n    server: http://127.0.0.1:9\n    tokenFile: token\n    allowInsecure: true\n`,
  );
  await writeFile(path, `defaults:\n  owns: [Deployment]\nclusters:\n${entries.join('')}`);
  return path;
}

describe('forwarder pool', () => {
  it('spreads clusters, takes a dead member’s clusters within the bound, rebalances, follows the registry', async () => {
    const name = testQueueName();
    const queue = new RedisQueue({ name, redis });
    const checkpoints = new RedisCheckpointStore(redis, name);
    const dir = await mkdtemp(join(tmpdir(), 'fleetq-pool-'));
    cleanups.push(
      () => rm(dir, { recursive: true, force: true }),
      () => deleteQueueKeys(redis, queue.prefix),
      () => checkpoints.clear(),
    );
    const names = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    const path = await registryFile(dir, names);
    const pool = (holder: string) =>
      new ForwarderPool({
        redis,
        queuePrefix: queue.prefix,
        queue,
        checkpoints,
        registry: new RegistryReload(path, new ClusterRegistry(loadRegistry(path), () => undefined), quiet),
        leaseMs: LEASE_MS,
        holder,
        logger: quiet,
        metrics: new Registry(),
        forwarder: { resyncMs: 0, backoff: { initialMs: 5_000, maxMs: 5_000 } },
      });
    const pools = [pool('A'), pool('B'), pool('C')];
    cleanups.push(() => Promise.all(pools.map((p) => p.stop())));
    for (const p of pools) await p.start();

    const holders = async () =>
      new Map([...(await readLeaseHolders(redis, queue.prefix))].map(([c, h]) => [c, h.holder]));
    const perHolder = async () => {
      const counts = new Map<string, number>();
      for (const h of (await holders()).values()) counts.set(h, (counts.get(h) ?? 0) + 1);
      return counts;
    };
    // Even spread: 2 each, every cluster held.
    await waitFor(
      async () => {
        const c = await perHolder();
        return (await holders()).size === 6 && ['A', 'B', 'C'].every((h) => c.get(h) === 2);
      },
      15_000,
      100,
      'six clusters, two per forwarder',
    );
    expect(pools.map((p) => p.clusters.length)).toEqual([2, 2, 2]);

    // C dies: no more rounds, nothing released. Its clusters are taken within the bound.
    const c = pools[2] as ForwarderPool;
    const lost = new Set(c.clusters);
    c['stopped'] = true;
    clearInterval(c['timer']);
    const diedAt = Date.now();
    await waitFor(
      async () => {
        const h = await holders();
        return [...lost].every((cl) => h.get(cl) === 'A' || h.get(cl) === 'B');
      },
      4 * LEASE_MS,
      50,
      "C's clusters taken by A and B",
    );
    const takeoverMs = Date.now() - diedAt;
    expect(takeoverMs).toBeLessThanOrEqual(LEASE_MS + LEASE_MS / 3 + 2_000); // slack for a loaded CI machine
    expect([...(await perHolder()).values()].sort()).toEqual([3, 3]);
    // C's own view, once it runs again: every lease refused, nothing held.
    c['stopped'] = false;
    await c.tick();
    await waitFor(async () => c.clusters.length === 0, 5_000, 50, 'C knows it lost its clusters');
    await c.stop();

    // A fourth joins: the others give up their extras, it ends with floor..ceil of 6/3.
    const d = pool('D');
    pools.push(d);
    await d.start();
    await waitFor(
      async () => {
        const counts = await perHolder();
        return (await holders()).size === 6 && ['A', 'B', 'D'].every((h) => counts.get(h) === 2);
      },
      6 * LEASE_MS,
      100,
      'two each for A, B and D',
    );

    // Registry: c6 removed (its waiting key dropped), c7 added.
    const gone = 'c6';
    const holderOfGone = (await holders()).get(gone);
    await redis.hset(`${queue.prefix}pending`, `${gone}/Deployment/ns/x`, 0);
    await redis.rpush(`${queue.prefix}ready:${gone}`, `${gone}/Deployment/ns/x`);
    await queue.add({ cluster: 'c1', kind: 'Deployment', namespace: 'ns', name: 'kept' });
    await registryFile(dir, [...names.filter((n) => n !== gone), 'c7']);
    await waitFor(
      async () => {
        const h = await holders();
        return h.has('c7') && !h.has(gone) && h.size === 6;
      },
      6 * LEASE_MS,
      100,
      'c7 taken, c6 released',
    );
    await waitFor(
      async () => (await redis.hexists(`${queue.prefix}pending`, `${gone}/Deployment/ns/x`)) === 0,
      6 * LEASE_MS,
      100,
      "c6's waiting key dropped",
    );
    expect(await redis.hkeys(`${queue.prefix}pending`)).toEqual(['c1/Deployment/ns/kept']);
    expect(await redis.llen(`${queue.prefix}ready:${gone}`)).toBe(0);
    expect(holderOfGone).toBeDefined();
  }, 90_000);
});
