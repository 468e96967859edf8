-- synced: the holder's first lists are done: its syncing mark goes, and the cluster's deaths are forgotten.
-- KEYS: 1 the lease key (routing only).
-- ARGV: 1 syncing HASH, 2 deaths HASH, 3 cluster, 4 token.
-- Returns: 0 not its mark | 1 done | 2 done, and a death record was removed.
-- @include quarantine-records
if markToken(redis.call('HGET', ARGV[1], ARGV[3])) ~= ARGV[4] then return 0 end
redis.call('HDEL', ARGV[1], ARGV[3])
return 1 + redis.call('HDEL', ARGV[2], ARGV[3])
