-- release: gives the lease up if it is still this holder's. A holder that releases did not die: its syncing mark
-- goes, even when the lease itself had already expired.
-- KEYS: 1 the lease key.
-- ARGV: 1 the lease's value `<token>|<holder>`, 2 seen key, 3 cluster, 4 syncing HASH, 5 token.
-- Returns: 1 released | 0 not ours.
-- @include server-clock
-- @include quarantine-records
if markToken(redis.call('HGET', ARGV[4], ARGV[3])) == ARGV[5] then redis.call('HDEL', ARGV[4], ARGV[3]) end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', ARGV[2], ARGV[3], NOW)
return 1
