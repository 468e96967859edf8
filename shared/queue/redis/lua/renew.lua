-- renew: extends a lease by the queue's lease length from now (WorkQueue renew).
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7 id, 8 token.
-- Returns: 1, or 0 when the lease was lost.
-- @include lease
local id = ARGV[7]
if not current(id, ARGV[8]) then return 0 end
redis.call('ZADD', P .. 'leases', NOW + LEASE_MS, id)
return 1
