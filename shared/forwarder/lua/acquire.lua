-- acquire: takes a cluster's forwarder lease when it is free and the cluster is not quarantined, marking the
-- cluster as syncing under the new token. A syncing mark left in place is a holder that neither synced nor released:
--   - its holder is this acquirer (the same process): it is alive, its lease lapsed: a lapse, not a death;
--   - its holder is still a live pool member (membership expiry ahead): a suspicion (`fwd:suspects`), settled by
--     HEARTBEAT: a death once the holder's membership expires without another heartbeat, dropped (a lapse) when
--     the holder heartbeats;
--   - otherwise (not a member, or its membership expired): it died while syncing: one more death (the larger
--     object kept); at the threshold the cluster is quarantined.
-- A suspicion of the cluster still pending when a later holder's mark is found is settled here: the same rule
-- (its holder cannot have heartbeated since, or it would be gone: with equal leases it is no longer a member).
-- A quarantined cluster is refused.
-- KEYS: 1 the lease key.
-- ARGV: 1 holder, 2 leaseMs, 3 seq key, 4 seen key, 5 cluster, 6 syncing HASH, 7 deaths HASH, 8 deaths that
-- quarantine, 9 quarantine ms, 10 this holder's report JSON, 11 members ZSET, 12 suspects HASH.
-- Returns: nil held by another | {0, quarantined now 1|0, death record} refused | {token, ms since the last
-- holder (-1: none), deaths counted now, death record ('' when none), suspected holder ('' none), lapses}.
-- @include server-clock
-- @include quarantine-records
if redis.call('EXISTS', KEYS[1]) == 1 then return nil end
local raw = redis.call('HGET', ARGV[7], ARGV[5])
local rec = deathRecord(raw)
if rec and rec[3] > NOW then return { 0, 0, raw } end
local record, quarantined, deaths, lapses, suspected = '', false, 0, 0, ''
local function death(bytes, report)
  local q
  record, q = countDeath(ARGV[7], ARGV[5], bytes, report, ARGV[8], ARGV[9])
  quarantined = quarantined or q
  deaths = deaths + 1
end
local mark = syncingMark(redis.call('HGET', ARGV[6], ARGV[5]))
local old = syncingMark(redis.call('HGET', ARGV[12], ARGV[5]))
if old then
  local holder = reportHolder(old[3])
  if holder == ARGV[1] then
    redis.call('HDEL', ARGV[12], ARGV[5])
    lapses = lapses + 1
  elseif mark then
    redis.call('HDEL', ARGV[12], ARGV[5])
    death(old[2], old[3])
  end
end
if mark then
  local holder = reportHolder(mark[3])
  if holder == ARGV[1] then
    lapses = lapses + 1
  elseif isLiveMember(ARGV[11], holder) then
    redis.call('HSET', ARGV[12], ARGV[5], string.format('%d|%d|', NOW, mark[2]) .. mark[3])
    suspected = holder
  else
    death(mark[2], mark[3])
  end
end
if quarantined then
  redis.call('HDEL', ARGV[6], ARGV[5])
  return { 0, 1, record }
end
local token = redis.call('INCR', ARGV[3])
redis.call('SET', KEYS[1], token .. '|' .. ARGV[1], 'PX', ARGV[2])
redis.call('HSET', ARGV[6], ARGV[5], token .. '|0|' .. ARGV[10])
local seen = redis.call('HGET', ARGV[4], ARGV[5])
redis.call('HSET', ARGV[4], ARGV[5], NOW)
local gap = -1
if seen then gap = NOW - tonumber(seen) end
return { token, gap, deaths, record, suspected, lapses }
