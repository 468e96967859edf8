-- endReplace: the relist is complete: the kind's watermark is the list's rv unless a newer one is there. A relist
-- the cache was reset in the middle of (its 'rl' mark gone) sets none: what it filed before the reset is gone, and
-- a watermark would make the next list's objects below it read as deleted since; that next list sets it.
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header, 4 kind, 5 rv, 6 watermark value.
-- Returns: 1 | 0 reset in the middle (no watermark set) | {'w', the newer watermark kept} | -1 fenced off.
-- @include prelude
if redis.call('HEXISTS', P .. 'rl', ARGV[4]) == 0 then return 0 end
local cur = redis.call('HGET', P .. 'wm', ARGV[4])
local kept = nil
if not cur or not rv_lt(ARGV[5], wm_rv(cur)) then
  redis.call('HSET', P .. 'wm', ARGV[4], ARGV[6])
else
  kept = { 'w', cur }
end
redis.call('HDEL', P .. 'rl', ARGV[4])
return kept or 1
