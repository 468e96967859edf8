// What happens to a cluster removed from the registry: its waiting keys are dropped from the Redis queue.
// "Drained" here means: every key of the cluster that waits (ready or delayed) is removed with its failure and
// conflict counts and signature; a key a worker holds finishes its current run, and its mark to run once more
// (dirty) is dropped, so nothing of the cluster runs after that. The cluster's forwarder lease is deleted too,
// which fences off a forwarder still watching it (its next enqueue or checkpoint is refused). Its checkpoints
// are removed by the pool (a cluster added back starts with a full list). The rotation keeps the cluster's
// name until a get() finds its ready list empty, as it does for any cluster.
import type { Redis } from 'ioredis';
import { ScriptRunner } from '../queue/redis/script-runner.js';
import { forwarderLeaseKey } from './forwarder-lease.js';

/** ARGV 1 queue prefix, 2 cluster. → {waiting keys dropped, rerun marks dropped} */
const DRAIN = `
local P = ARGV[1]
local head = ARGV[2] .. '/'
local n = #head
local dropped, marks = 0, 0
for _, id in ipairs(redis.call('HKEYS', P .. 'pending')) do
  if string.sub(id, 1, n) == head then
    redis.call('HDEL', P .. 'pending', id)
    redis.call('ZREM', P .. 'delayed', id)
    if redis.call('HEXISTS', P .. 'held', id) == 0 then
      redis.call('HDEL', P .. 'sig', id)
      redis.call('HDEL', P .. 'fail', id)
      redis.call('HDEL', P .. 'conf', id)
    end
    dropped = dropped + 1
  end
end
for _, id in ipairs(redis.call('HKEYS', P .. 'dirty')) do
  if string.sub(id, 1, n) == head then
    redis.call('HDEL', P .. 'dirty', id)
    marks = marks + 1
  end
end
redis.call('DEL', P .. 'ready:' .. ARGV[2])
redis.call('DEL', KEYS[1])
return { dropped, marks }`;

/** Drops a removed cluster's waiting keys from the Redis queue and deletes its forwarder lease. Idempotent. */
export async function drainCluster(
  redis: Redis,
  queuePrefix: string,
  cluster: string,
): Promise<{ dropped: number; rerunMarks: number }> {
  const runner = new ScriptRunner(redis, forwarderLeaseKey(cluster, queuePrefix), [], { drain: DRAIN });
  const [dropped, marks] = (await runner.run('drain', queuePrefix, cluster)) as [number, number];
  return { dropped: Number(dropped), rerunMarks: Number(marks) };
}
