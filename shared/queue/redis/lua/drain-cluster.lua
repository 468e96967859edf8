-- drainCluster: drops a removed cluster's waiting keys. Every key of the cluster that waits (ready or delayed) is
-- removed with its failure and conflict counts and signature; a held key finishes its current run, and its mark
-- to run once more (dirty) is dropped, so nothing of the cluster runs after that. The rotation keeps the
-- cluster's name until a get() finds its ready list empty, as it does for any cluster.
-- Not the queue header: this script needs only the prefix.
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1 queue key prefix, 2 cluster, 3 a key of the queue's slot deleted in the same step ('' = none; the
-- cluster's forwarder lease, which fences off a forwarder still enqueueing for it).
-- Returns: {waiting keys dropped, rerun marks dropped}.
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
if ARGV[3] ~= '' then redis.call('DEL', ARGV[3]) end
return { dropped, marks }
