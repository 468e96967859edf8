-- The quarantine's values (cluster-quarantine.ts), parsed; nil when garbage: syncingMark(v) → {token, bytes,
-- report} of a `fwd:syncing` mark (also a `fwd:suspects` suspicion: {sinceMs, bytes, report}), deathRecord(v) →
-- {deaths, sinceMs, untilMs, bytes, report} of a `fwd:deaths` record, markToken(v) → a mark's token. num(s): a
-- number of at most 15 digits (a safe integer; longer is garbage). Values are written with %d, never 1e+15.
-- @include server-clock
local function num(s) if s and #s <= 15 then return tonumber(s) end return nil end
local function syncingMark(v)
  if not v then return nil end
  local t, b, r = string.match(v, '^(%d+)|(%d+)|(.*)$')
  if not (num(t) and num(b)) then return nil end
  return { num(t), num(b), r }
end
local function deathRecord(v)
  if not v then return nil end
  local d, s, u, b, r = string.match(v, '^(%d+)|(%d+)|(%d+)|(%d+)|(.*)$')
  if not (num(d) and num(s) and num(u) and num(b)) then return nil end
  return { num(d), num(s), num(u), num(b), r }
end
local function markToken(v) return v and string.match(v, '^(%d+)|') end
-- The holder a report JSON names (nil when it does not parse).
local function reportHolder(report)
  local ok, r = pcall(cjson.decode, report)
  if ok and type(r) == 'table' and type(r.holder) == 'string' and r.holder ~= '' then return r.holder end
  return nil
end
-- Whether holder is a live pool member at NOW (its membership expiry, server ms, still ahead).
local function isLiveMember(membersKey, holder)
  if not holder then return false end
  local score = redis.call('ZSCORE', membersKey, holder)
  return score ~= false and score ~= nil and tonumber(score) > NOW
end
-- One more death while syncing of cluster (the larger object kept); at `threshold` deaths it is quarantined until
-- NOW + quarantineMs. Writes and returns the record, and whether it quarantined the cluster (ACQUIRE and HEARTBEAT).
local function countDeath(deathsKey, cluster, bytes, report, threshold, quarantineMs)
  local rec = deathRecord(redis.call('HGET', deathsKey, cluster))
  local deaths = 1
  if rec then
    deaths = rec[1] + 1
    if rec[4] > bytes then bytes, report = rec[4], rec[5] end
  end
  local since, untilMs = 0, 0
  if deaths >= tonumber(threshold) then since, untilMs = NOW, NOW + tonumber(quarantineMs) end
  local record = string.format('%d|%d|%d|%d|', deaths, since, untilMs, bytes) .. report
  redis.call('HSET', deathsKey, cluster, record)
  return record, untilMs > 0
end
