// What a forwarder pool (forwarder-pool.ts) is built with, and the settings it resolves from that with their
// defaults: the same for the pool's lifecycle, its membership (pool-membership.ts) and the clusters it holds
// (held-clusters.ts).
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { isCluster, type RedisClient } from '../queue/redis/redis-connection.js';
import { RedisCacheStore } from '../cache/redis-cache-store.js';
import type { Registry } from 'prom-client';
import type { CacheStore } from '../cache/cache-store.js';
import type { RedisCheckpointStore } from '../queue/history/checkpoint-store.js';
import { Logger } from '../runtime/logger.js';
import type { RegistryReload } from '../runtime/registry-reload.js';
import { DEFAULT_QUARANTINE_DEATHS, DEFAULT_QUARANTINE_MS } from './cluster-quarantine.js';
import type { FencingQueue } from './fenced-writes.js';
import type { ForwarderOptions } from './forwarder.js';
import { DEFAULT_FORWARDER_LEASE_MS, type FenceSlots } from './forwarder-lease.js';

export type ForwarderPoolOptions = {
  /** The queue's Redis: leases, membership, checkpoints. */
  readonly redis: RedisClient;
  /** The Redis queue's prefix (RedisQueue.prefix): the forwarder's keys (forwarder-keys.ts) sit under it. */
  readonly queuePrefix: string;
  /** The Redis queue: enqueues go through its fenced add (addFenced); parkInvalid is not fenced. */
  readonly queue: Pick<FencingQueue, 'parkInvalid'> & Partial<Pick<FencingQueue, 'addFenced'>>;
  /** Checkpoints in the same Redis: saves go through the fence. */
  readonly checkpoints: RedisCheckpointStore;
  readonly registry: RegistryReload;
  /** Lease length; default 15 000. A dead holder's clusters are taken within about leaseMs * 4/3. */
  readonly leaseMs?: number;
  /** Failed forwarder starts in a row (one per round) after which the lease is given up; default 3. */
  readonly maxStartFailures?: number;
  /** How long a member that gave a cluster up is left out of its ranking; default 10 × leaseMs. */
  readonly startGiveUpMs?: number;
  /** Holders in a row that died while syncing a cluster before it is quarantined; default 3. */
  readonly quarantineDeaths?: number;
  /** How long a quarantine lasts (server time); default 1 h. */
  readonly quarantineMs?: number;
  /** This forwarder's name in the pool; default `<hostname>/<pid>/<random>`. */
  readonly holder?: string;
  readonly logger?: Logger;
  readonly metrics?: Registry;
  readonly cacheFor?: (cluster: string) => CacheStore;
  /**
   * With queue shards: the prefix of the queue a cluster's keys go to (its shard's); default queuePrefix. Given,
   * or on a Redis Cluster, writes are fenced by the lease's token in their own slots (forwarder-lease.ts).
   */
  readonly clusterQueuePrefix?: (cluster: string) => string;
  /** Every cluster's forwarder options beyond its identity, queue and checkpoints. */
  readonly forwarder: Omit<
    ForwarderOptions,
    | 'cluster'
    | 'kubeConfig'
    | 'owns'
    | 'handOver'
    | 'queue'
    | 'checkpoints'
    | 'cache'
    | 'memory'
    | 'logger'
    | 'registry'
  >;
};

/** The options with their defaults applied. */
export type PoolSettings = {
  readonly holder: string;
  readonly leaseMs: number;
  readonly maxStartFailures: number;
  readonly startGiveUpMs: number;
  readonly quarantineDeaths: number;
  readonly quarantineMs: number;
  readonly logger: Logger;
  /** The Redis queue, checked to have the fenced add. */
  readonly queue: FencingQueue;
  /** Where a cluster's writes are fenced by its token (a Redis Cluster, or queue shards); undefined: by the lease. */
  readonly fenceSlotsOf: (cluster: string) => FenceSlots | undefined;
};

export function poolSettings(o: ForwarderPoolOptions): PoolSettings {
  const { queue } = o;
  if (typeof queue.addFenced !== 'function')
    throw new Error('a forwarder pool needs the Redis queue driver: its enqueues go through the fenced add');
  const holder = o.holder ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  const leaseMs = o.leaseMs ?? DEFAULT_FORWARDER_LEASE_MS;
  return {
    holder,
    leaseMs,
    maxStartFailures: o.maxStartFailures ?? 3,
    startGiveUpMs: o.startGiveUpMs ?? 10 * leaseMs,
    quarantineDeaths: Math.max(1, o.quarantineDeaths ?? DEFAULT_QUARANTINE_DEATHS),
    quarantineMs: Math.max(1, o.quarantineMs ?? DEFAULT_QUARANTINE_MS),
    logger: (o.logger ?? new Logger('fleetq-forwarder')).child({ forwarder: holder }),
    queue: { addFenced: queue.addFenced.bind(queue), parkInvalid: (raw, reason) => queue.parkInvalid(raw, reason) },
    fenceSlotsOf: (cluster) => {
      if (o.clusterQueuePrefix === undefined && !isCluster(o.redis)) return undefined;
      const cache = o.cacheFor?.(cluster);
      return {
        queuePrefix: o.clusterQueuePrefix?.(cluster) ?? o.queuePrefix,
        checkpointsKey: o.checkpoints.keyFor(cluster),
        ...(cache instanceof RedisCacheStore && { cachePrefix: cache.prefix }),
      };
    },
  };
}
