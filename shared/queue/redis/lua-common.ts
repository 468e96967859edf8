// Lua shared by every Redis script: the argument header, the server clock and the state transitions that
// more than one script performs. Each script is this prelude plus its own body, run atomically by EVALSHA.
//
// ARGV header (all scripts): 1 key prefix, 2 leaseMs, 3 '1' when messages are signed (the `sig` hash is kept),
// 4 baseDelayMs, 5 maxDelayMs, 6 '1' when a cluster cap is configured (only then can a release unblock a
// waiting get()).
// Hot paths count redis.call()s (each costs a few µs inside a script): the held hash stores
// "token|readyAt", a cluster stays in the rotation until a get finds its ready list empty, and the wake list
// is trimmed only when it grows.
// The clock is the Redis server's TIME, so all processes share one clock (scripts are replicated by effect).
export const LUA_PRELUDE = `
local P = ARGV[1]
local LEASE_MS = tonumber(ARGV[2])
local SIGNED = ARGV[3] == '1'
local BASE_MS = tonumber(ARGV[4])
local MAX_MS = tonumber(ARGV[5])
local HAS_CAPS = ARGV[6] == '1'
local T = redis.call('TIME')
local NOW = tonumber(T[1]) * 1000 + math.floor(tonumber(T[2]) / 1000)

local function cluster_of(id)
  return string.match(id, '^([^/]*)/') or id
end

local function wake()
  if redis.call('RPUSH', P .. 'wake', '1') > 16 then redis.call('LTRIM', P .. 'wake', -16, -1) end
end

local function push_ready(id)
  local c = cluster_of(id)
  if redis.call('RPUSH', P .. 'ready:' .. c, id) == 1 and redis.call('SADD', P .. 'rotset', c) == 1 then
    redis.call('RPUSH', P .. 'rot', c)
  end
end

-- add/addAfter: waiting keeps the earlier ready time; held marks dirty (earlier wins); else enqueue.
local function schedule(id, at)
  if redis.call('HEXISTS', P .. 'held', id) == 1 then
    local d = redis.call('HGET', P .. 'dirty', id)
    if (not d) or at < tonumber(d) then redis.call('HSET', P .. 'dirty', id, at) end
    return
  end
  local p = redis.call('HGET', P .. 'pending', id)
  if p then
    if at >= tonumber(p) then return end
    if not redis.call('ZSCORE', P .. 'delayed', id) then return end
  end
  redis.call('HSET', P .. 'pending', id, at)
  if at <= NOW then
    if p then redis.call('ZREM', P .. 'delayed', id) end
    push_ready(id)
  else
    redis.call('ZADD', P .. 'delayed', at, id)
  end
  wake()
end

local function release(id)
  redis.call('HDEL', P .. 'held', id)
  redis.call('ZREM', P .. 'leases', id)
  redis.call('HINCRBY', P .. 'hc', cluster_of(id), -1)
  if HAS_CAPS then wake() end
end

-- The held value is "token|readyAt".
local function held_token(v)
  if not v then return nil end
  return string.match(v, '^([^|]*)')
end

local function reschedule_dirty(id)
  local d = redis.call('HGET', P .. 'dirty', id)
  if d then
    redis.call('HDEL', P .. 'dirty', id)
    schedule(id, tonumber(d))
  end
end

-- A key that left the queue (not pending, not held) no longer needs its signature.
local function forget_signature(id)
  if SIGNED and redis.call('HEXISTS', P .. 'pending', id) == 0 and redis.call('HEXISTS', P .. 'held', id) == 0 then
    redis.call('HDEL', P .. 'sig', id)
  end
end

-- Writes one dead-letter entry (a raw one may keep the signature it carried); returns its sequence number.
local function record_dead(entry_id, id, raw, reason, failures, sig)
  local seq = redis.call('INCR', P .. 'seq')
  local e = { reason = reason, failures = failures, at = NOW, seq = seq }
  if raw then e.raw = id else e.id = id end
  if raw and sig and sig ~= '' then e.sig = sig end
  redis.call('HSET', P .. 'dl', entry_id or ('raw:' .. seq), cjson.encode(e))
  return seq
end

-- Parks a released key (or a held raw message) in the dead-letter hash; a dirty key still runs, failures reset.
-- A raw message loses its dirty mark, failure count and signature: it never runs.
local function park(entry_id, id, raw, reason, failures, sig)
  record_dead(entry_id, id, raw, reason, failures, sig)
  redis.call('HDEL', P .. 'conf', id)
  if raw then
    redis.call('HDEL', P .. 'dirty', id)
    redis.call('HDEL', P .. 'fail', id)
    if SIGNED then redis.call('HDEL', P .. 'sig', id) end
  else
    redis.call('HDEL', P .. 'fail', id)
    reschedule_dirty(id)
    forget_signature(id)
  end
end

-- A lease that expired: the key is ready again now and the loss counts as a failure (no dead letter: the
-- contract retries without end).
local function reclaim(id)
  local f = tonumber(redis.call('HGET', P .. 'fail', id) or '0') + 1
  release(id)
  redis.call('HSET', P .. 'fail', id, f)
  redis.call('HDEL', P .. 'dirty', id)
  schedule(id, NOW)
end

local function reclaim_expired(limit)
  local ids = redis.call('ZRANGEBYSCORE', P .. 'leases', '-inf', NOW, 'LIMIT', 0, limit)
  for _, id in ipairs(ids) do reclaim(id) end
end

-- True when token holds id with an unexpired lease; an expired lease is reclaimed on the spot.
local function current(id, token)
  if held_token(redis.call('HGET', P .. 'held', id)) ~= token then return false end
  local exp = tonumber(redis.call('ZSCORE', P .. 'leases', id) or '0')
  if exp <= NOW then
    reclaim(id)
    return false
  end
  return true
end

-- The rotation (rot list + rotset) is derived state: if it is deleted or evicted, the ready lists are still
-- there but no get() would visit them. Rebuilds it from the pending hash: every cluster with a non-empty
-- ready list joins rot; ids that are pending, not delayed and whose ready list is gone are pushed again.
-- O(pending); run when rot is empty while ready ids exist, and every few seconds (see get).
local function heal_rotation()
  local in_rot = {}
  for _, c in ipairs(redis.call('LRANGE', P .. 'rot', 0, -1)) do in_rot[c] = true end
  local by_cluster = {}
  local order = {}
  for _, id in ipairs(redis.call('HKEYS', P .. 'pending')) do
    local c = cluster_of(id)
    if not by_cluster[c] then
      by_cluster[c] = {}
      order[#order + 1] = c
    end
    table.insert(by_cluster[c], id)
  end
  local healed = 0
  for _, c in ipairs(order) do
    if redis.call('LLEN', P .. 'ready:' .. c) == 0 and not in_rot[c] then
      for _, id in ipairs(by_cluster[c]) do
        if not redis.call('ZSCORE', P .. 'delayed', id) then
          redis.call('RPUSH', P .. 'ready:' .. c, id)
          healed = healed + 1
        end
      end
    end
    if redis.call('LLEN', P .. 'ready:' .. c) > 0 then
      redis.call('SADD', P .. 'rotset', c)
      if not in_rot[c] then
        redis.call('RPUSH', P .. 'rot', c)
        in_rot[c] = true
        healed = healed + 1
      end
    end
  end
  return healed
end
`;
