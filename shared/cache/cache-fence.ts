// The fence a shared cache's writes go through when its forwarder holds a lease (forwarder-lease.ts): every
// write script of the Redis store first checks the fence (the lease key against the value this holder set on one
// Redis; on a Redis Cluster the cluster's fencing token in the cache's own slot), and writes nothing when it fails, so a forwarder that lost its lease (paused, partitioned, its commands buffered in the
// client) cannot write its old view over the new holder's. A standalone forwarder has no lease and no fence.
import type { CacheStore } from './cache-store.js';

export interface CacheFence {
  /** Throws when the lease is not held by the local deadline: nothing is sent. */
  assertHeld(): void;
  /**
   * The fence key and what it is compared with (shared/lua/includes/lease-fence.lua) for a write under
   * `slotPrefix` (the cluster cache's key prefix): the lease key and its value on one Redis, or the cluster's
   * fencing token key in that slot and the token on a Redis Cluster.
   */
  leaseArgs(slotPrefix: string): readonly [key: string, value: string];
  /** A write Redis refused: the error to throw (the lease is lost; the holder stops as on any lost lease). */
  refused(): Error;
}

/** A store that can put its writes behind a fence (the Redis store; the in-process one has no other writer). */
export interface FenceableCacheStore extends CacheStore {
  withFence(fence: CacheFence): CacheStore;
}

function isFenceable(store: CacheStore): store is FenceableCacheStore {
  return typeof (store as Partial<FenceableCacheStore>).withFence === 'function';
}

/** `store` with its writes behind `fence` (a view of the same data); an unfenceable store as it is. */
export function fencedCacheStore(store: CacheStore, fence: CacheFence): CacheStore {
  return isFenceable(store) ? store.withFence(fence) : store;
}
