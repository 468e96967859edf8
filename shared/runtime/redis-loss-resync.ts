// Redis as a cache that can vanish (README "Configuration"): when the queue's Redis loses its data, every
// forwarder of this process resyncs, so every owned object's key is enqueued again within one check interval
// plus one list of each cluster, instead of waiting for the next periodic resync (5 min by default). A loss is a
// missing or replaced marker (FLUSHALL, a restart without persistence) or a different server or data history
// (a failover to a replica that may have lagged, a restart): see redis-loss.ts.
import type { Redis } from 'ioredis';
import { Counter, type Registry } from 'prom-client';
import { connectRedis } from '../queue/redis/redis-connection.js';
import type { WorkQueue } from '../queue/work-queue.js';
import { epochKey, watchRedisLoss, type RedisLoss, type RedisLossWatcher } from '../queue/redis/redis-loss.js';
import type { FleetqConfig } from './config.js';
import { errorFields, type Logger } from './logger.js';

/** What is resynced: a FleetForwarder's forwarders (structurally, so this module does not import the forwarder). */
export type Resyncable = {
  readonly forwarders: ReadonlyMap<string, { resync(): Promise<number>; refillCache?(): Promise<void> }>;
};

export type RedisLossResync = { readonly watcher: RedisLossWatcher; stop(): Promise<void> };

/** Resyncs every forwarder of `fleet` now; resolves with the keys enqueued per cluster (failures logged). */
export async function resyncAll(fleet: Resyncable, logger: Logger): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await Promise.all(
    [...fleet.forwarders].map(async ([cluster, forwarder]) => {
      try {
        // A cache kept in that Redis lost its objects too, or (a failover to a lagging replica) holds an older
        // state that still looks synced: list them again, and only then enqueue every key, so that no key is run
        // from the older state and then not again (a Deployment created just before the failover was run from a
        // cache without it, planned nothing, and was never run again).
        await forwarder.refillCache?.();
        out.set(cluster, await forwarder.resync());
      } catch (err) {
        logger.error('Resync after Redis data loss failed', { cluster, error: errorFields(err) });
      }
    }),
  );
  return out;
}

/**
 * Watches the queue's Redis (REDIS_URL, FLEETQ_QUEUE, FLEETQ_REDIS_PREFIX) for data loss every
 * FLEETQ_REDIS_LOSS_CHECK_MS and resyncs `fleet` on a loss. Uses its own connection unless `redis` is given.
 */
export async function resyncOnRedisLoss(
  fleet: Resyncable,
  config: Pick<
    FleetqConfig,
    'REDIS_URL' | 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX' | 'FLEETQ_REDIS_TLS_CA' | 'FLEETQ_REDIS_LOSS_CHECK_MS'
  >,
  logger: Logger,
  o: {
    readonly redis?: Redis;
    readonly onResynced?: (loss: RedisLoss, keys: Map<string, number>) => void;
    /**
     * The queue the forwarders enqueue into: a Redis queue tells when an enqueue finds the loss marker gone, and
     * the marker is checked then, not only every FLEETQ_REDIS_LOSS_CHECK_MS (keys enqueued just before a flush
     * are lost until the resync; the sooner it comes, the shorter a rollout's stall).
     */
    readonly queue?: Pick<WorkQueue, 'onEpochMissing'>;
    /** Where fleetq_redis_data_loss_total{how} is counted (missing | replaced | server-changed). */
    readonly registry?: Registry;
  } = {},
): Promise<RedisLossResync> {
  const redis =
    o.redis ?? connectRedis(config.REDIS_URL, { tlsCaFile: config.FLEETQ_REDIS_TLS_CA }, { maxRetriesPerRequest: 1 });
  const losses =
    o.registry &&
    new Counter({
      name: 'fleetq_redis_data_loss_total',
      help: "Data losses of the queue's Redis seen by this process (each one resyncs its forwarders), by how: missing, replaced, server-changed",
      labelNames: ['how'],
      registers: [o.registry],
    });
  const watcher = await watchRedisLoss(
    redis,
    epochKey(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX),
    (loss) => {
      losses?.inc({ how: loss.how });
      logger.warn('Redis data loss detected; resyncing', {
        how: loss.how,
        epoch: loss.epoch,
        ...(loss.previousServer && { previousServer: loss.previousServer }),
        ...(loss.server && { server: loss.server }),
      });
      // A resync that fails is logged, never left as an unhandled rejection (which would end the process); the
      // periodic resync still comes.
      void resyncAll(fleet, logger).then(
        (keys) => {
          logger.info('Resynced after Redis data loss', { keys: Object.fromEntries(keys) });
          o.onResynced?.(loss, keys);
        },
        (err: unknown) => logger.error('Resync after Redis data loss failed', { error: errorFields(err) }),
      );
    },
    {
      intervalMs: config.FLEETQ_REDIS_LOSS_CHECK_MS,
      onError: (err) => logger.warn('Redis data-loss check failed', { error: errorFields(err) }),
    },
  );
  const unlisten = o.queue?.onEpochMissing?.(() => {
    watcher.check().catch((err: unknown) => logger.warn('Redis data-loss check failed', { error: errorFields(err) }));
  });
  return {
    watcher,
    stop: async () => {
      unlisten?.();
      watcher.stop();
      if (!o.redis) redis.disconnect();
    },
  };
}
