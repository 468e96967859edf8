-- heartbeat: adds or refreshes this pool member and its registry digest, drops expired members (and their
-- digests) and expired give-ups, settles the suspicions (ACQUIRE: a lease that lapsed while its holder, still a
-- member, was syncing), and reads the pool. A suspicion of this member is dropped: it heartbeats, so it is alive
-- (a lapse). A suspicion whose holder is no longer a live member is a death while syncing, counted as ACQUIRE
-- counts one (at the threshold the cluster is quarantined). Others stay pending.
-- KEYS: 1 members ZSET (holder → membership expiry, server ms).
-- ARGV: 1 holder, 2 leaseMs, 3 digests HASH, 4 this member's digest, 5 give-ups HASH, 6 deaths HASH
-- (cluster-quarantine.ts), 7 suspects HASH, 8 deaths that quarantine, 9 quarantine ms.
-- Returns: {live members, their digests ('' when none), live give-up fields `<cluster>|<holder>`, server ms, the
-- death records as HGETALL gives them (parsed in TypeScript), the suspicions settled: a flat list of
-- `lapsed`|`died`, cluster, holder, death record ('' for a lapse), quarantined now 1|0}.
-- @include server-clock
-- @include quarantine-records
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
local settled = {}
local s = redis.call('HGETALL', ARGV[7])
for i = 1, #s, 2 do
  local cluster, suspicion = s[i], syncingMark(s[i + 1])
  local holder = suspicion and reportHolder(suspicion[3])
  if not suspicion then
    redis.call('HDEL', ARGV[7], cluster)
  elseif holder == ARGV[1] then
    redis.call('HDEL', ARGV[7], cluster)
    for _, v in ipairs({ 'lapsed', cluster, holder, '', 0 }) do settled[#settled + 1] = v end
  elseif not isLiveMember(KEYS[1], holder) then
    redis.call('HDEL', ARGV[7], cluster)
    local record, q = countDeath(ARGV[6], cluster, suspicion[2], suspicion[3], ARGV[8], ARGV[9])
    local quarantined = 0
    if q then quarantined = 1 end
    for _, v in ipairs({ 'died', cluster, holder or '', record, quarantined }) do settled[#settled + 1] = v end
  end
end
return { members, digests, given, NOW, redis.call('HGETALL', ARGV[6]), settled }
