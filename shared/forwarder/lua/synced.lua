-- synced: the holder's first lists are done: its syncing mark goes, and the cluster's deaths are forgotten, a
-- suspicion still pending among them (a death found before a finished sync no longer counts towards quarantine).
-- KEYS: 1 the lease key (routing only).
-- ARGV: 1 syncing HASH, 2 deaths HASH, 3 cluster, 4 token, 5 suspects HASH.
-- Returns: 0 not its mark | 1 done | 2 done, and a death record (or a pending suspicion) was removed.
-- @include quarantine-records
if markToken(redis.call('HGET', ARGV[1], ARGV[3])) ~= ARGV[4] then return 0 end
redis.call('HDEL', ARGV[1], ARGV[3])
local forgot = redis.call('HDEL', ARGV[2], ARGV[3]) + redis.call('HDEL', ARGV[5], ARGV[3])
if forgot > 0 then return 2 end
return 1
