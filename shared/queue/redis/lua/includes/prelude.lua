-- The queue header every queue script starts with: its arguments, the server clock, and the ready-list helpers.
-- ARGV header (all queue scripts): 1 key prefix, 2 leaseMs, 3 '1' when messages are signed (the `sig` hash is
-- kept), 4 baseDelayMs, 5 maxDelayMs, 6 '1' when a cluster cap is configured (only then can a release unblock a
-- waiting get()). Script-specific arguments start at ARGV[7].
-- Hot paths count redis.call()s (each costs a few µs inside a script): the held hash stores "token|readyAt", a
-- cluster stays in the rotation until a get finds its ready list empty, and the wake list is trimmed only when
-- it grows.
-- The clock is the Redis server's TIME, so all processes share one clock (scripts are replicated by effect).
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
