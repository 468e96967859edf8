// The forwarder's own keys in the queue's Redis, named here and nowhere else: the pool's leases, membership and
// give-ups (forwarder-lease.ts, pool-membership.ts) and the quarantine's syncing marks, suspicions and death records
// (cluster-quarantine.ts). Each sits under the queue's prefix (`fleetq:{fleetq}:`, its `{name}` hash tag), so the
// lease and the queue's keys share one slot and the queue driver's fenced add (RedisQueue.addFenced) can compare a
// lease in the same script that enqueues. Only these keys start `fwd:`; the queue's own keys are the driver's
// (shared/queue/redis/redis-keys.ts) and the forwarder never names them.
import { redisKeyPrefix } from '../queue/redis/redis-keys.js';

/** The queue prefix (`fleetq:{fleetq}:`) of a queue name, as the Redis driver builds it. */
export function queuePrefixOf(queueName = 'fleetq', redisPrefix = 'fleetq'): string {
  return redisKeyPrefix(queueName, redisPrefix);
}

/** STRING `<token>|<holder>`, expiring: a cluster's forwarder lease. */
export function forwarderLeaseKey(cluster: string, queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:lease:${cluster}`;
}

/**
 * STRING: the largest lease token of a cluster seen in one slot, the fence of the writes there when they cannot
 * reach the lease (a Redis Cluster, or queue shards: forwarder-lease.ts). `slotPrefix` puts it in that slot: a
 * queue's prefix, a cluster cache's prefix, or the checkpoints hash's name followed by `:`.
 */
export function forwarderFenceKey(cluster: string, slotPrefix: string): string {
  return `${slotPrefix}fwd:fence:${cluster}`;
}

/** STRING counter: the per-cluster sequence fencing tokens come from (it only grows). */
export function forwarderLeaseSeqKey(cluster: string, queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:seq:${cluster}`;
}

/** LIST of the tokens that wrote (enqueued or checkpointed) for a cluster, appended when the writer changes. */
export function forwarderWritersKey(cluster: string, queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:writers:${cluster}`;
}

/** HASH cluster → server ms when its lease was last acquired, renewed or released (takeover latency). */
export function forwarderLastSeenKey(queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:seen`;
}

/** ZSET holder → membership expiry (server ms): the live forwarders of the pool. */
export function forwarderMembersKey(queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:members`;
}

/** HASH holder → the digest of its registry (registryDigest), written with each heartbeat. */
export function forwarderDigestsKey(queuePrefix: string): string {
  return `${queuePrefix}fwd:digests`;
}

/** HASH `<cluster>|<holder>` → server ms until which that member is left out of the cluster's ranking. */
export function forwarderGiveUpsKey(queuePrefix: string): string {
  return `${queuePrefix}fwd:giveups`;
}

/** HASH cluster → `<token>|<bytes>|<report>`: the holder of the cluster's lease has not finished syncing it. */
export function forwarderSyncingKey(queuePrefix: string): string {
  return `${queuePrefix}fwd:syncing`;
}

/** HASH cluster → `<deaths>|<sinceMs>|<untilMs>|<bytes>|<report>`: deaths while syncing, and the quarantine. */
export function forwarderDeathsKey(queuePrefix: string): string {
  return `${queuePrefix}fwd:deaths`;
}

/**
 * HASH cluster → `<sinceMs>|<bytes>|<report>`: a syncing mark ACQUIRE found whose holder was still a live pool
 * member (its lease lapsed; whether it died is settled by HEARTBEAT: cluster-quarantine.ts).
 */
export function forwarderSuspectsKey(queuePrefix: string): string {
  return `${queuePrefix}fwd:suspects`;
}
