// Redis as a cache that can vanish (README "Configuration"): when the queue's Redis loses its data, every
// forwarder of this process resyncs, so every owned object's key is enqueued again within one check interval
// plus one list of each cluster, instead of waiting for the periodic resync (a safety net every 12-24 h by default,
// shared/forwarder/resync-period.ts). The resync is recorded as owed in the cluster's checkpoints until it is done,
// so a forwarder that dies before its end leaves it to the next holder of the cluster (Forwarder.resyncAfterLoss).
// A loss is a missing or replaced marker (FLUSHALL, a restart without persistence) or a different server or data history
// (a failover to a replica that may have lagged, a restart): see redis-loss.ts. On a Redis Cluster every primary is
// watched too (watchClusterPrimaries): the object cache, the checkpoints and the event log are in other slots than
// the queue's marker, maybe on other primaries, and a failover or restart of any primary resyncs every forwarder of
// this process (a log line names the primary and its slots).
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { Counter, type Registry } from 'prom-client';
import { connectRedis, isCluster } from '../queue/redis/redis-connection.js';
import type { WorkQueue } from '../queue/work-queue.js';
import {
  epochKey,
  watchClusterPrimaries,
  watchRedisLoss,
  type ClusterPrimariesWatcher,
  type RedisLoss,
  type RedisLossWatcher,
} from '../queue/redis/redis-loss.js';
import { shardQueueNames } from '../queue/queue-shards.js';
import type { FleetqConfig } from './config.js';
import { errorFields, type Logger } from './logger.js';

/** What is resynced: a FleetForwarder's forwarders (structurally, so this module does not import the forwarder). */
export type Resyncable = {
  readonly forwarders: ReadonlyMap<
    string,
    {
      resync(): Promise<number>;
      refillCache?(): Promise<void>;
      /** Refill, resync, recorded as owed until done (a Forwarder's); without it, refillCache then resync. */
      resyncAfterLoss?(): Promise<number>;
    }
  >;
};

export type RedisLossResync = {
  /** The first queue shard's watcher (the queue's, without shards). */
  readonly watcher: RedisLossWatcher;
  /** One per queue shard (FLEETQ_QUEUE_SHARDS): each shard's marker sits in its own slot, maybe on another node. */
  readonly watchers: readonly RedisLossWatcher[];
  /** On a Redis Cluster: the watch of every primary (the cache's, checkpoints' and event log's slots). */
  readonly primaries?: ClusterPrimariesWatcher;
  stop(): Promise<void>;
};

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
        if (forwarder.resyncAfterLoss) {
          out.set(cluster, await forwarder.resyncAfterLoss());
        } else {
          await forwarder.refillCache?.();
          out.set(cluster, await forwarder.resync());
        }
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
  > &
    Partial<Pick<FleetqConfig, 'FLEETQ_QUEUE_SHARDS'>>,
  logger: Logger,
  o: {
    readonly redis?: RedisClient;
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
  // Each queue shard's marker is watched (FLEETQ_QUEUE_SHARDS): a FLUSHALL is seen by each, a resync each.
  const onLoss = (loss: RedisLoss): void => {
    losses?.inc({ how: loss.how });
    if (loss.primaries)
      for (const change of loss.primaries)
        logger.warn('Redis Cluster primary changed (failover, restart or resharding); resyncing', {
          how: loss.how,
          node: change.node,
          slots: change.slots.map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`)).join(','),
          previousServer: change.previousServer,
          server: change.server,
        });
    else
      logger.warn('Redis data loss detected; resyncing', {
        how: loss.how,
        epoch: loss.epoch,
        ...(loss.previousServer && { previousServer: loss.previousServer }),
        ...(loss.server && { server: loss.server }),
      });
    // A resync that fails is logged, never left as an unhandled rejection (which would end the process); it stays
    // recorded as owed (the next start or holder of the cluster runs it), and the periodic resync still comes.
    void resyncAll(fleet, logger).then(
      (keys) => {
        logger.info('Resynced after Redis data loss', { keys: Object.fromEntries(keys) });
        o.onResynced?.(loss, keys);
      },
      (err: unknown) => logger.error('Resync after Redis data loss failed', { error: errorFields(err) }),
    );
  };
  const watchers = await Promise.all(
    shardQueueNames(config.FLEETQ_QUEUE, config.FLEETQ_QUEUE_SHARDS ?? 1).map((name) =>
      watchRedisLoss(redis, epochKey(name, config.FLEETQ_REDIS_PREFIX), onLoss, {
        intervalMs: config.FLEETQ_REDIS_LOSS_CHECK_MS,
        onError: (err) => logger.warn('Redis data-loss check failed', { error: errorFields(err) }),
      }),
    ),
  );
  const onError = (err: unknown): void => logger.warn('Redis data-loss check failed', { error: errorFields(err) });
  // The marker watchers see their own slots' primaries; the object cache, checkpoints and event log can be on any
  // other. A failover of a primary that holds both is then seen twice: one more resync, never correctness (a
  // forwarder runs its resyncs after a loss one after the other, Forwarder.resyncAfterLoss).
  const primaries = isCluster(redis)
    ? await watchClusterPrimaries(
        redis,
        (changes) => {
          const [first] = changes as [(typeof changes)[number], ...typeof changes];
          const epoch = watchers[0]!.epoch;
          onLoss({
            previousEpoch: epoch,
            epoch,
            how: 'server-changed',
            previousServer: first.previousServer,
            server: first.server,
            primaries: changes,
          });
        },
        { intervalMs: config.FLEETQ_REDIS_LOSS_CHECK_MS, onError },
      )
    : undefined;
  const unlisten = o.queue?.onEpochMissing?.(() => {
    for (const watcher of watchers)
      watcher.check().catch((err: unknown) => logger.warn('Redis data-loss check failed', { error: errorFields(err) }));
  });
  return {
    watcher: watchers[0]!,
    watchers,
    ...(primaries && { primaries }),
    stop: async () => {
      unlisten?.();
      primaries?.stop();
      for (const watcher of watchers) watcher.stop();
      if (!o.redis) redis.disconnect();
    },
  };
}
