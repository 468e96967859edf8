// What happens to a cluster removed from the registry: its waiting keys are dropped from the Redis queue
// (the driver's drain, shared/queue/redis/lua/drain-cluster.lua, says what "drained" means), and in the same
// atomic step its forwarder lease is deleted, which fences off a forwarder still watching it (its next enqueue or
// checkpoint is refused). Its checkpoints are removed by the pool (a cluster added back starts with a full list).
import type { Redis } from 'ioredis';
import { drainQueueCluster } from '../queue/redis/redis-queue.js';
import { forwarderLeaseKey } from './forwarder-keys.js';

/** Drops a removed cluster's waiting keys from the Redis queue and deletes its forwarder lease. Idempotent. */
export async function drainCluster(
  redis: Redis,
  queuePrefix: string,
  cluster: string,
): Promise<{ dropped: number; rerunMarks: number }> {
  return drainQueueCluster(redis, queuePrefix, cluster, { alsoDelete: forwarderLeaseKey(cluster, queuePrefix) });
}
