-- giveBack: hands a prefetched, never-run key back: ready again at its old time, no failure counted.
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7 id, 8 token.
-- Returns: 1, or 0 when the lease was lost.
-- @include lease
local id = ARGV[7]
if not current(id, ARGV[8]) then return 0 end
local ready_at = tonumber(string.match(redis.call('HGET', P .. 'held', id), '|(.*)$') or NOW)
release(id)
redis.call('HDEL', P .. 'dirty', id)
schedule(id, ready_at)
return 1
