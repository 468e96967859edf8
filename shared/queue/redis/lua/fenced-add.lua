-- fenced-add: add or addAfter (add.lua) behind a lease the caller holds (the forwarder pool's lease on the key's
-- cluster).
-- KEYS: 1 routing key only (the pending hash), so Redis Cluster sends the script to the queue's slot.
-- ARGV: 1-6 the queue header (includes/prelude.lua), 7 id, 8 delayMs, 9 signature ('' when unsigned), 10 lease
-- key, 11 the value it must hold (`<token>|<holder>`), 12 writers list, 13 token (shared/lua/includes/lease-fence).
-- Returns: 1 added | 2 added, and the data-loss marker (epoch, redis-loss.ts) is gone: this Redis lost its data |
-- -1 refused by the fence (nothing written).
-- @include schedule
-- @include lease-fence
if not fence_holds(ARGV[10], ARGV[11], ARGV[12], ARGV[13]) then return -1 end
-- @include enqueue
if redis.call('EXISTS', P .. 'epoch') == 1 then return 1 end
return 2
