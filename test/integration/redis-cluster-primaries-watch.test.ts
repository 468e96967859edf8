// The data-loss watch on a Redis Cluster covers every primary, not only the one serving the queue's marker: a real
// six-node cluster (three primaries, one replica each), and the primary killed is one that serves a member
// cluster's object cache slot (`{cache:<cluster>}`) but not the queue's slot. The marker is untouched, so only the
// identity of the primary now serving the cache's slots (the promoted replica's run_id and master_replid) tells
// that this data may have lost writes. Before the kill, checks, a slot map refresh and reconnects to the same
// servers report nothing. The forwarders are stand-ins that count their resyncs; the chaos test
// redis-cluster-failover runs the real pipeline.
import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { waitFor } from '../../infra/sandbox/process.js';
import { connectRedis, isCluster, keySlot, readyMasterNodes } from '../../shared/queue/redis/redis-connection.js';
import { epochKey, type RedisLoss } from '../../shared/queue/redis/redis-loss.js';
import { Logger } from '../../shared/runtime/logger.js';
import { resyncOnRedisLoss, type RedisLossResync } from '../../shared/runtime/redis-loss-resync.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';

const FAILOVER_BOUND_MS = 20_000;
/** The loss must be reported this soon after the promotion (checks every CHECK_MS). */
const DETECT_BOUND_MS = 10_000;
const CHECK_MS = 200;

describe('Redis data-loss watcher on a Cluster: every primary', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  let rc: RedisCluster | undefined;
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await rc?.stop();
  });

  it("a failover of a primary serving a cache slot but not the queue's is a loss, and resyncs", async () => {
    rc = await startRedisCluster({ nodeTimeoutMs: 1_000 });
    const queue = `test-${randomUUID()}`;
    const marker = epochKey(queue);
    const queuePrimary = await rc.primaryFor(marker);
    let member: string | undefined;
    let cachePrimaryPort: number | undefined;
    for (let i = 0; member === undefined; i++) {
      if (i > 100) throw new Error('no member name whose cache slot is on another primary than the queue');
      const port = (await rc.primaryFor(`fleetq:{cache:member-${i}}:x`)).port;
      if (port !== queuePrimary.port) [member, cachePrimaryPort] = [`member-${i}`, port];
    }
    const cacheSlot = keySlot(`fleetq:{cache:${member}}:x`);

    const client = connectRedis(rc.url, {}, { maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    cleanups.push(() => client.disconnect());
    const losses: RedisLoss[] = [];
    const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    let resyncs = 0;
    const fleet = { forwarders: new Map([[member, { resync: async () => ++resyncs }]]) };
    const logger = new Logger('test', 'error', () => undefined);
    const warn = logger.warn.bind(logger);
    logger.warn = (message: string, fields?: Record<string, unknown>) => {
      warnings.push({ message, ...(fields && { fields }) });
      warn(message, fields);
    };
    const config = {
      REDIS_URL: rc.url,
      FLEETQ_QUEUE: queue,
      FLEETQ_REDIS_PREFIX: 'fleetq',
      FLEETQ_REDIS_TLS_CA: undefined,
      FLEETQ_REDIS_LOSS_CHECK_MS: CHECK_MS,
    };
    const w: RedisLossResync = await resyncOnRedisLoss(fleet, config, logger, {
      redis: client,
      onResynced: (loss) => losses.push(loss),
    });
    cleanups.push(() => w.stop());
    const checkAll = () => Promise.all([...w.watchers.map((x) => x.check()), w.primaries?.check()]);

    // No false loss: checks, a slot map read again, every primary's connection dropped and made again.
    for (let i = 0; i < 5; i++) await checkAll();
    if (!isCluster(client)) throw new Error('the test cluster gave a single-node client');
    await new Promise<void>((resolve, reject) => client.refreshSlotsCache((err) => (err ? reject(err) : resolve())));
    await checkAll();
    for (const node of await readyMasterNodes(client)) node.disconnect(true);
    await waitFor(
      async () => {
        const nodes = await readyMasterNodes(client);
        await Promise.all(nodes.map((n) => n.ping()));
        return nodes.every((n) => n.status === 'ready');
      },
      10_000,
      100,
      'every primary connection back',
    );
    for (let i = 0; i < 3; i++) await checkAll();
    expect(losses).toEqual([]);
    expect(resyncs).toBe(0);

    const { replica } = await rc.killPrimary(cachePrimaryPort);
    await rc.waitForFailover(replica.port, FAILOVER_BOUND_MS);
    const promoted = Date.now();
    await waitFor(async () => resyncs > 0, DETECT_BOUND_MS, 50, 'the loss reported and resynced');
    const seenMs = Date.now() - promoted;

    const [loss] = losses;
    expect(loss?.how).toBe('server-changed');
    const change = loss?.primaries?.find((c) => c.node === `127.0.0.1:${replica.port}`);
    expect(change).toBeDefined();
    expect(change?.slots.some(([from, to]) => from <= cacheSlot && cacheSlot <= to)).toBe(true);
    expect(change?.server.runId).not.toBe(change?.previousServer.runId);
    // The marker's watcher saw nothing: its slot's primary did not change.
    expect(losses.filter((l) => !l.primaries)).toEqual([]);
    const line = warnings.find((x) => x.message.startsWith('Redis Cluster primary changed'));
    expect(line?.fields).toMatchObject({ node: `127.0.0.1:${replica.port}`, how: 'server-changed' });
    expect(String(line?.fields?.slots)).toMatch(/\d/);
    process.stdout.write(`loss reported and resynced ${seenMs} ms after the promotion\n`);
  });
});
