// The forwarder pool and its registry, on real Redis, with in-process pools: members whose registry files differ
// hold still (no drain, no take, no release) until every member reports the same digest; a changed entry
// never runs two forwarders of one cluster in one process; a cluster whose forwarder cannot start is given up
// for another member. The clusters' servers are unreachable (the watches retry in the background): what is
// checked is who holds which lease, what is drained, and the forwarders' starts and stops.
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { RedisCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { Forwarder } from '../../shared/forwarder/forwarder.js';
import { ForwarderPool } from '../../shared/forwarder/forwarder-pool.js';
import { forwarderLeaseSeqKey } from '../../shared/forwarder/forwarder-keys.js';
import { readLeaseHolders } from '../../shared/forwarder/forwarder-lease.js';
import { RegistryReload, registryDigest } from '../../shared/runtime/registry-reload.js';
import { forwarderMembers } from '../../shared/ops/forwarder-status.js';
import { Logger } from '../../shared/runtime/logger.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { redisClient, testQueueName } from '../helpers/queue/redis.js';

const redis = redisClient();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await redis.quit();
});

const LEASE_MS = 1_500;
const quiet = new Logger('test-pool', 'error', () => undefined);

type Entry = string | { readonly name: string; readonly kubeconfig: string };

/** A registry file at `path`; entries share one token file (same resolved paths: same digest in any folder). */
async function writeRegistry(path: string, token: string, entries: readonly Entry[], owns = 'Deployment') {
  const lines = entries.map((e) =>
    typeof e === 'string'
      ? `  - name: ${e}\n    server: http://127.0.0.1:9\n    tokenFile: ${token}\n    allowInsecure: true\n`
      : `  - name: ${e.name}\n    kubeconfig: ${e.kubeconfig}\n`,
  );
  await writeFile(path, `defaults:\n  owns: [${owns}]\nclusters:\n${lines.join('')}`);
}

async function fixture() {
  const name = testQueueName();
  const queue = new RedisQueue({ name, redis });
  const checkpoints = new RedisCheckpointStore(redis, name);
  const dir = await mkdtemp(join(tmpdir(), 'fleetq-pool-reg-'));
  const token = join(dir, 'token');
  await writeFile(token, 'x');
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    () => deleteQueueKeys(redis, queue.prefix),
    () => checkpoints.clear(),
    () => queue.close(),
  );
  const pool = (holder: string, path: string, extra: Partial<ConstructorParameters<typeof ForwarderPool>[0]> = {}) => {
    const p = new ForwarderPool({
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
      ...extra,
    });
    cleanups.push(() => p.stop());
    return p;
  };
  const holders = async () =>
    new Map([...(await readLeaseHolders(redis, queue.prefix))].map(([c, h]) => [c, h.holder]));
  return { queue, dir, token, pool, holders, name };
}

describe('forwarder pool and the registry', () => {
  it('holds still while members have different registries; drains and takes once they agree', async () => {
    const { queue, dir, token, pool, holders, name } = await fixture();
    await mkdir(join(dir, 'a'));
    await mkdir(join(dir, 'b'));
    const pathA = join(dir, 'a', 'fleet.yaml');
    const pathB = join(dir, 'b', 'fleet.yaml');
    const before = ['c1', 'c2', 'c3', 'c4'];
    const after = ['c1', 'c2', 'c3', 'c5']; // c4 removed, c5 added
    await writeRegistry(pathA, token, before);
    await writeRegistry(pathB, token, before);
    const a = pool('A', pathA);
    const b = pool('B', pathB);
    await a.start();
    await b.start();
    await waitFor(
      async () => (await holders()).size === 4 && a.clusters.length === 2 && b.clusters.length === 2,
      15_000,
      100,
      'four clusters, two per member',
    );
    const c4Key = { cluster: 'c4', kind: 'Deployment', namespace: 'ns', name: 'x' };
    await queue.add(c4Key);
    const heldBefore = await holders();
    const c4Seq = await redis.get(forwarderLeaseSeqKey('c4', queue.prefix));

    // B's copy of the registry changes first.
    await writeRegistry(pathB, token, after);
    // Several rounds of both while they differ: nothing drained, taken, released or moved.
    for (let i = 0; i < 4; i++) await Promise.all([a.tick(), b.tick()]);
    expect(await redis.hexists(`${queue.prefix}pending`, 'c4/Deployment/ns/x')).toBe(1);
    expect(await holders()).toEqual(heldBefore);
    expect(await redis.get(forwarderLeaseSeqKey('c4', queue.prefix))).toBe(c4Seq);
    expect([a.registryAgreed, b.registryAgreed]).toEqual([false, false]);
    // `fleetq status` given the new registry marks A, still on the old one.
    const members = await forwarderMembers(
      redis,
      { FLEETQ_QUEUE: name, FLEETQ_REDIS_PREFIX: 'fleetq' },
      registryDigest(loadRegistry(pathB)),
    );
    expect(members.map((m) => [m.holder, m.current])).toEqual([
      ['A', false],
      ['B', true],
    ]);

    // A's copy catches up: they agree, c4 is released and drained, c5 taken, and c4 is never taken again.
    await writeRegistry(pathA, token, after);
    await waitFor(
      async () => {
        const h = await holders();
        return a.registryAgreed === true && b.registryAgreed === true && h.has('c5') && !h.has('c4') && h.size === 4;
      },
      15_000,
      100,
      'agreement, c5 taken, c4 released',
    );
    await waitFor(
      async () => (await redis.hexists(`${queue.prefix}pending`, 'c4/Deployment/ns/x')) === 0,
      10_000,
      100,
      "c4's waiting key drained",
    );
    for (let i = 0; i < 3; i++) await Promise.all([a.tick(), b.tick()]);
    expect((await holders()).has('c4')).toBe(false);
    expect(await redis.get(forwarderLeaseSeqKey('c4', queue.prefix))).toBe(c4Seq);
    expect([a.clusters.length, b.clusters.length].sort()).toEqual([2, 2]);
  }, 60_000);

  it('stops the old forwarder of a changed entry before starting the new one', async () => {
    const { dir, token, pool } = await fixture();
    const path = join(dir, 'fleet.yaml');
    await writeRegistry(path, token, ['c1']);
    // Count the forwarders of c1 running at once in this process; a stop takes a while (as one flushing
    // checkpoints to a slow Redis does), which is when a second start would overlap it.
    let live = 0;
    let peak = 0;
    let starts = 0;
    const start = Forwarder.prototype.start;
    const stop = Forwarder.prototype.stop;
    const startSpy = jest.spyOn(Forwarder.prototype, 'start').mockImplementation(async function (this: Forwarder) {
      await start.call(this);
      starts++;
      peak = Math.max(peak, ++live);
    });
    const stopSpy = jest.spyOn(Forwarder.prototype, 'stop').mockImplementation(async function (this: Forwarder) {
      await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
      await stop.call(this);
      live--;
    });
    cleanups.push(async () => {
      startSpy.mockRestore();
      stopSpy.mockRestore();
    });
    const p = pool('A', path);
    await p.start();
    await waitFor(async () => starts === 1, 10_000, 50, 'c1 started');
    await writeRegistry(path, token, ['c1'], 'Deployment, ReplicaSet');
    await waitFor(async () => starts === 2, 15_000, 50, 'c1 restarted with its new entry');
    expect(peak).toBe(1);
    expect(p.clusters).toEqual(['c1']);
    await p.stop();
    startSpy.mockRestore();
    stopSpy.mockRestore();
  }, 40_000);

  it('gives up a cluster whose forwarder does not start, so another member tries it', async () => {
    const { dir, token, pool, holders } = await fixture();
    const path = join(dir, 'fleet.yaml');
    // A kubeconfig that is not there: every start of `bad` fails.
    await writeRegistry(path, token, ['ok1', { name: 'bad', kubeconfig: join(dir, 'missing-kubeconfig.yaml') }]);
    const metrics = { A: new Registry(), B: new Registry() };
    const a = pool('A', path, { maxStartFailures: 2, startGiveUpMs: 30_000, metrics: metrics.A });
    const b = pool('B', path, { maxStartFailures: 2, startGiveUpMs: 30_000, metrics: metrics.B });
    await a.start();
    await b.start();
    const giveUps = async (r: Registry) =>
      (await r.getSingleMetric('fleetq_forwarder_start_giveups_total')?.get())?.values[0]?.value ?? 0;
    // Each member in turn holds it, fails to start it maxStartFailures rounds in a row and gives it up.
    await waitFor(
      async () => (await giveUps(metrics.A)) >= 1 && (await giveUps(metrics.B)) >= 1,
      20_000,
      50,
      '`bad` given up by one member, then tried and given up by the other',
    );
    // Both gave it up: nobody takes it again until a give-up expires (no start loop), and ok1 stays watched.
    for (let i = 0; i < 3; i++) await Promise.all([a.tick(), b.tick()]);
    expect((await holders()).has('bad')).toBe(false);
    expect([await giveUps(metrics.A), await giveUps(metrics.B)]).toEqual([1, 1]);
    await waitFor(async () => (await holders()).has('ok1'), 10_000, 50, 'ok1 held');
  }, 40_000);
});
