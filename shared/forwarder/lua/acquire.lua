-- acquire: takes a cluster's forwarder lease when it is free and the cluster is not quarantined, marking the
-- cluster as syncing under the new token. A syncing mark left in place is a holder that died while syncing: one
-- more death (the larger object kept); at the threshold the cluster is quarantined. A quarantined cluster is
-- refused.
-- KEYS: 1 the lease key.
-- ARGV: 1 holder, 2 leaseMs, 3 seq key, 4 seen key, 5 cluster, 6 syncing HASH, 7 deaths HASH, 8 deaths that
-- quarantine, 9 quarantine ms, 10 this holder's report JSON.
-- Returns: nil held by another | {0, quarantined now 1|0, death record} refused | {token, ms since the last
-- holder (-1: none), previous holder died 1|0, death record ('' when none)}.
-- @include server-clock
-- @include quarantine-records
if redis.call('EXISTS', KEYS[1]) == 1 then return nil end
local raw = redis.call('HGET', ARGV[7], ARGV[5])
local rec = deathRecord(raw)
if rec and rec[3] > NOW then return { 0, 0, raw } end
local dead = syncingMark(redis.call('HGET', ARGV[6], ARGV[5]))
local record = ''
if dead then
  local deaths, bytes, report = 1, dead[2], dead[3]
  if rec then
    deaths = rec[1] + 1
    if rec[4] > bytes then bytes, report = rec[4], rec[5] end
  end
  local since, untilMs = 0, 0
  if deaths >= tonumber(ARGV[8]) then since, untilMs = NOW, NOW + tonumber(ARGV[9]) end
  record = string.format('%d|%d|%d|%d|', deaths, since, untilMs, bytes) .. report
  redis.call('HSET', ARGV[7], ARGV[5], record)
  if untilMs > 0 then
    redis.call('HDEL', ARGV[6], ARGV[5])
    return { 0, 1, record }
  end
end
local token = redis.call('INCR', ARGV[3])
redis.call('SET', KEYS[1], token .. '|' .. ARGV[1], 'PX', ARGV[2])
redis.call('HSET', ARGV[6], ARGV[5], token .. '|0|' .. ARGV[10])
local seen = redis.call('HGET', ARGV[4], ARGV[5])
redis.call('HSET', ARGV[4], ARGV[5], NOW)
local died = 0
if dead then died = 1 end
if seen then return { token, NOW - tonumber(seen), died, record } end
return { token, -1, died, record }
