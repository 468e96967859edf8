-- add: enqueues a key now or after a delay (WorkQueue add, addAfter).
-- KEYS: 1 routing key only (the pending hash), so Redis Cluster sends the script to the queue's slot.
-- ARGV: 1-6 the queue header (includes/prelude.lua), 7 id, 8 delayMs, 9 signature ('' when unsigned).
-- Returns: whether the data-loss marker (epoch) is there (1 | 0): 0 tells the caller that this Redis lost its
-- data (redis-loss.ts), at the first enqueue after the loss.
-- @include schedule
-- @include enqueue
return redis.call('EXISTS', P .. 'epoch')
