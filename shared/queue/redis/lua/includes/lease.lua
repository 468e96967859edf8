-- Leases: release, the dirty rerun, the signature's lifetime, reclaiming expired leases, and current(id, token),
-- the check every transition on a held key starts with.
-- @include schedule

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
