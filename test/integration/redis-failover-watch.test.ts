// The data-loss watcher across a Redis failover (redis-loss.ts): real redis-servers of the test's own, a primary
// and a replica (REPLICAOF), reached through a TCP pass-through the test points at the promoted replica (the
// stable address a failover keeps). The replica still holds the loss marker, so only the server identity
// (run_id, master_replid) tells that the data history changed. The forwarders here are stand-ins that count
// their resyncs; test/chaos/redis-failover.test.ts runs the real pipeline.
import { afterEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { waitFor } from '../../infra/sandbox/process.js';
import { epochKey, type RedisLoss } from '../../shared/queue/redis/redis-loss.js';
import { Logger } from '../../shared/runtime/logger.js';
import { resyncOnRedisLoss, type RedisLossResync } from '../../shared/runtime/redis-loss-resync.js';
import { stableEndpoint, type StableEndpoint } from '../helpers/chaos/endpoint.js';
import { startOwnRedis, type OwnRedis } from '../helpers/queue/redis.js';

const quiet = () => new Logger('test', 'error', () => undefined);

describe('Redis data-loss watcher: failover', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function server(): Promise<{ own: OwnRedis; admin: Redis }> {
    const started = await startOwnRedis();
    let stopped: Promise<void> | undefined;
    // stop() once: a second call would wait for an exit that has already happened.
    const own = { ...started, stop: () => (stopped ??= started.stop()) };
    const admin = new Redis(own.url, { maxRetriesPerRequest: 0 });
    admin.on('error', () => undefined);
    cleanups.push(
      () => own.stop(),
      () => admin.disconnect(),
    );
    return { own, admin };
  }

  async function watch(url: string, user?: { username: string; password: string }) {
    const queue = `test-${randomUUID()}`;
    const client = new Redis(url, { maxRetriesPerRequest: 1, ...user, ...(user && { enableReadyCheck: false }) });
    client.on('error', () => undefined);
    const registry = new Registry();
    const losses: RedisLoss[] = [];
    const errors: unknown[] = [];
    let resyncs = 0;
    const fleet = { forwarders: new Map([['c1', { resync: async () => ++resyncs }]]) };
    const config = {
      REDIS_URL: url,
      FLEETQ_QUEUE: queue,
      FLEETQ_REDIS_PREFIX: 'fleetq',
      FLEETQ_REDIS_TLS_CA: undefined,
      FLEETQ_REDIS_LOSS_CHECK_MS: 60_000, // the reconnect is what must trigger the check
    };
    const logger = quiet();
    const warn = logger.warn.bind(logger);
    logger.warn = (message: string, fields?: Record<string, unknown>) => {
      if (message === 'Redis data-loss check failed') errors.push(fields?.error);
      warn(message, fields);
    };
    const w: RedisLossResync = await resyncOnRedisLoss(fleet, config, logger, {
      redis: client,
      registry,
      onResynced: (loss) => losses.push(loss),
    });
    cleanups.push(
      () => client.disconnect(),
      () => w.stop(),
    );
    const counted = async () =>
      (await registry.getSingleMetric('fleetq_redis_data_loss_total')?.get())?.values.map((v) => [
        v.labels.how,
        v.value,
      ]);
    return { w, losses, errors, counted, marker: epochKey(queue), resyncs: () => resyncs };
  }

  it('a failover to a replica that lagged, marker and all, is a loss: resync once, counted', async () => {
    const primary = await server();
    const replica = await server();
    await primary.admin.config('SET', 'repl-diskless-sync-delay', '0'); // the first sync at once, not in 5 s
    await replica.admin.replicaof('127.0.0.1', primary.own.port);
    const proxy: StableEndpoint = await stableEndpoint(primary.own.port);
    cleanups.push(() => proxy.close());
    const t = await watch(`redis://127.0.0.1:${proxy.port}`);
    await waitFor(async () => (await replica.admin.get(t.marker)) !== null, 10_000, 20, 'the marker replicated');
    expect(await t.w.watcher.check()).toBe(false);

    await replica.admin.replicaof('NO', 'ONE');
    await primary.own.stop();
    proxy.retarget(replica.own.port);
    await waitFor(async () => t.losses.length > 0, 10_000, 20, 'the loss reported after the reconnect');

    expect(t.losses.map((l) => l.how)).toEqual(['server-changed']);
    expect(t.losses[0]?.previousServer?.runId).not.toBe(t.losses[0]?.server?.runId);
    expect(t.resyncs()).toBe(1);
    expect(await t.counted()).toEqual([['server-changed', 1]]);
    // The new history is now the known one: no second resync.
    expect(await t.w.watcher.check()).toBe(false);
    expect(t.w.watcher.epoch).toBe(await replica.admin.get(t.marker));
  });

  it('a server that refuses INFO: told once, and a FLUSHALL is still a loss', async () => {
    const s = await server();
    await s.admin.acl('SETUSER', 'noinfo', 'on', '>pw', '~*', '&*', '+@all', '-info');
    const t = await watch(s.own.url, { username: 'noinfo', password: 'pw' });
    expect(await t.w.watcher.check()).toBe(false);
    expect(await t.w.watcher.check()).toBe(false);
    expect(t.errors).toHaveLength(1);
    expect(String((t.errors[0] as { message?: unknown }).message)).toMatch(/refused INFO/);

    await s.admin.flushall();
    expect(await t.w.watcher.check()).toBe(true);
    await waitFor(async () => t.losses.length > 0, 5_000, 20, 'the resync after FLUSHALL');
    expect(t.losses.map((l) => l.how)).toEqual(['missing']);
  });
});
