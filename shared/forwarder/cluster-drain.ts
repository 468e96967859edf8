// What happens to a cluster removed from the registry: its waiting keys are dropped from the Redis queue
// (the driver's drain, shared/queue/redis/lua/drain-cluster.lua, says what "drained" means), and a forwarder still
// watching it is fenced off (its next enqueue or checkpoint is refused). On one Redis, the drain deletes its
// forwarder lease in the same atomic step. With fence slots (a Redis Cluster, queue shards: forwarder-lease.ts) the
// lease is deleted and a token burned (the next from its counter, held by no one), that token installed as the
// fence in every slot of the cluster's writes, and then its queue drained: the last holder's writes are refused
// everywhere, and a holder of the cluster added back has a larger token. Its checkpoints are removed by the pool (a
// cluster added back starts with a full list).
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { drainQueueCluster } from '../queue/redis/redis-queue.js';
import { installFences, type FenceSlots } from './forwarder-lease.js';
import { forwarderLeaseKey, forwarderLeaseSeqKey } from './forwarder-keys.js';

/** Drops a removed cluster's waiting keys from the Redis queue and fences off its forwarder lease. Idempotent. */
export async function drainCluster(
  redis: RedisClient,
  queuePrefix: string,
  cluster: string,
  fenceSlots?: FenceSlots,
): Promise<{ dropped: number; rerunMarks: number }> {
  if (fenceSlots === undefined)
    return drainQueueCluster(redis, queuePrefix, cluster, { alsoDelete: forwarderLeaseKey(cluster, queuePrefix) });
  // The lease and its counter share the queue prefix's slot: one transaction.
  const replies = await redis
    .multi()
    .del(forwarderLeaseKey(cluster, queuePrefix))
    .incr(forwarderLeaseSeqKey(cluster, queuePrefix))
    .exec();
  const [err, burned] = replies?.[1] ?? [new Error('transaction aborted'), undefined];
  if (err) throw err;
  await installFences(redis, cluster, Number(burned), fenceSlots);
  return drainQueueCluster(redis, fenceSlots.queuePrefix, cluster);
}
