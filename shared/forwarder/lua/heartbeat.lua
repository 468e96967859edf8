-- heartbeat: adds or refreshes this pool member and its registry digest, drops expired members (and their
-- digests) and expired give-ups, and reads the pool.
-- KEYS: 1 members ZSET (holder → membership expiry, server ms).
-- ARGV: 1 holder, 2 leaseMs, 3 digests HASH, 4 this member's digest, 5 give-ups HASH, 6 deaths HASH
-- (cluster-quarantine.ts).
-- Returns: {live members, their digests ('' when none), live give-up fields `<cluster>|<holder>`, server ms, the
-- death records as HGETALL gives them (parsed in TypeScript)}.
-- @include server-clock
redis.call('ZADD', KEYS[1], NOW + tonumber(ARGV[2]), ARGV[1])
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', NOW)) do redis.call('HDEL', ARGV[3], m) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', NOW)
redis.call('HSET', ARGV[3], ARGV[1], ARGV[4])
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local digests = {}
for i, m in ipairs(members) do digests[i] = redis.call('HGET', ARGV[3], m) or '' end
local given = {}
local g = redis.call('HGETALL', ARGV[5])
for i = 1, #g, 2 do
  if tonumber(g[i + 1]) <= NOW then redis.call('HDEL', ARGV[5], g[i]) else given[#given + 1] = g[i] end
end
return { members, digests, given, NOW, redis.call('HGETALL', ARGV[6]) }
