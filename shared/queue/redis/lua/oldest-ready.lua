-- oldestReady: per cluster, the ready time of the key that has waited longest among the keys ready to be handed
-- out (due, not delayed into the future, not held), for the queue latency `fleetq status` shows. Reads only.
-- Where ready keys are: a list per cluster (ready:<cluster>) in the order get() takes them, each key's ready time
-- in the pending hash (what get() hands out as the lease's readyAt, the start of workqueue_queue_duration); and keys
-- whose delay has ended that no get() has moved to their list yet, still in the delayed set scored by their ready
-- time. A list is in ready-time order except for a key put back late (the rerun of a key re-added while held keeps
-- that add's time; a due key moved by a later get(); a rotation heal), so the first ARGV[2] entries of each list
-- are read (exact when the list is no longer) with the ARGV[3] due delayed keys of the oldest ready times.
-- Cost: per cluster LLEN, LRANGE, HMGET and ZMSCORE of at most ARGV[2] entries; once per call a ZRANGEBYSCORE and
-- an HMGET of at most ARGV[3] entries.
-- A ready time that is not a positive number no later than now (a corrupt entry, or a server whose clock went
-- back) is skipped and counted, never shown. A list entry of a key that is not pending-and-ready is stale (get()
-- skips it) and ignored.
-- Not the queue header: this script needs only the prefix.
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1 queue key prefix, 2 list entries read per cluster, 3 due delayed keys read, 4... clusters.
-- Returns: {now ms, due delayed keys read, then five fields per cluster: cluster, oldest ready time ms ('' when
-- none), list length, list entries read, ready times skipped as unusable}.
local P = ARGV[1]
local per_list = math.max(1, math.floor(tonumber(ARGV[2])))
local due_max = math.max(1, math.floor(tonumber(ARGV[3])))
local T = redis.call('TIME')
local NOW = tonumber(T[1]) * 1000 + math.floor(tonumber(T[2]) / 1000)

local oldest, skipped, length, read, counted = {}, {}, {}, {}, {}
for i = 4, #ARGV do
  skipped[ARGV[i]] = 0
end

-- A key's ready time as stored (HMGET's reply: false when absent) taken into its cluster's figure.
local function consider(c, id, v)
  local t = tonumber(v)
  if t and t == t and t > 0 and t <= NOW then
    if not oldest[c] or t < oldest[c] then oldest[c] = t end
  elseif not counted[id] then
    counted[id] = true
    skipped[c] = skipped[c] + 1
  end
end

local function cluster_of(id)
  return string.match(id, '^([^/]*)/') or id
end

local due = redis.call('ZRANGEBYSCORE', P .. 'delayed', '-inf', NOW, 'LIMIT', 0, due_max)
local due_ids = {}
for _, id in ipairs(due) do
  if skipped[cluster_of(id)] then due_ids[#due_ids + 1] = id end
end
if #due_ids > 0 then
  local at = redis.call('HMGET', P .. 'pending', unpack(due_ids))
  for j, id in ipairs(due_ids) do
    if at[j] then consider(cluster_of(id), id, at[j]) end
  end
end

for i = 4, #ARGV do
  local c = ARGV[i]
  local list = P .. 'ready:' .. c
  length[c] = redis.call('LLEN', list)
  local ids = redis.call('LRANGE', list, 0, per_list - 1)
  read[c] = #ids
  if #ids > 0 then
    local at = redis.call('HMGET', P .. 'pending', unpack(ids))
    local delayed = redis.call('ZMSCORE', P .. 'delayed', unpack(ids))
    for j, id in ipairs(ids) do
      if at[j] and not delayed[j] then consider(c, id, at[j]) end
    end
  end
end

local out = { string.format('%.0f', NOW), tostring(#due) }
for i = 4, #ARGV do
  local c = ARGV[i]
  out[#out + 1] = c
  out[#out + 1] = oldest[c] and string.format('%.0f', oldest[c]) or ''
  out[#out + 1] = tostring(length[c])
  out[#out + 1] = tostring(read[c])
  out[#out + 1] = tostring(skipped[c])
end
return out
