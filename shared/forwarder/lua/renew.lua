-- renew: extends the lease if it is still this holder's; while the holder syncs, its syncing mark is refreshed
-- (only a mark of its own token).
-- KEYS: 1 the lease key.
-- ARGV: 1 the lease's value `<token>|<holder>`, 2 leaseMs, 3 seen key, 4 cluster, 5 syncing HASH, 6 token, 7 the
-- new syncing mark ('' none).
-- Returns: 1 renewed | 0 not ours.
-- @include server-clock
-- @include quarantine-records
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', ARGV[3], ARGV[4], NOW)
if ARGV[7] ~= '' and markToken(redis.call('HGET', ARGV[5], ARGV[4])) == ARGV[6] then
  redis.call('HSET', ARGV[5], ARGV[4], ARGV[7])
end
return 1
