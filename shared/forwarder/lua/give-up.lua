-- give-up: records that this member gave a cluster up (its forwarder would not start), expiring ms from now
-- (server time): until then the member is left out of the cluster's ranking.
-- KEYS: 1 members ZSET (routing only).
-- ARGV: 1 give-ups HASH, 2 field `<cluster>|<holder>`, 3 ms.
-- Returns: 1.
-- @include server-clock
redis.call('HSET', ARGV[1], ARGV[2], NOW + tonumber(ARGV[3]))
return 1
