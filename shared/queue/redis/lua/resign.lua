-- resign: a held key verified by a previous secret gets its current signature, so it still verifies once the
-- rotation window closes.
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7 id, 8 token, 9 signature.
-- Returns: 1, or 0 when the lease was lost.
-- @include lease
local id = ARGV[7]
if not current(id, ARGV[8]) then return 0 end
redis.call('HSET', P .. 'sig', id, ARGV[9])
return 1
