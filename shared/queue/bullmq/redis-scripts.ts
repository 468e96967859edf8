// One Lua script per atomic state change (the BullMQ way). Each is LUA_PRELUDE plus a body; script-specific
// arguments start at ARGV[6]. KEYS[1] is only a routing key (the pending hash) for Redis Cluster.
import { LUA_PRELUDE } from './lua-common.js';

const body = {
  /** ARGV 6 id, 7 delayMs. */
  add: `
schedule(ARGV[6], NOW + math.max(0, math.floor(tonumber(ARGV[7]))))
return 1`,

  /**
   * ARGV 6 max leases, 7 default cluster cap (-1 = none), 8 JSON cap overrides.
   * Reclaims expired leases, promotes due delayed keys, then hands out up to ARGV[6] keys round-robin over
   * clusters, skipping clusters at their cap. Returns {waitHintMs, id, token, readyAt, failures, ...}.
   */
  get: `
reclaim_expired(100)
local due = redis.call('ZRANGEBYSCORE', P .. 'delayed', '-inf', NOW, 'LIMIT', 0, 1000)
for _, id in ipairs(due) do
  redis.call('ZREM', P .. 'delayed', id)
  push_ready(id)
end
local want = tonumber(ARGV[6])
local default_cap = tonumber(ARGV[7])
local caps = cjson.decode(ARGV[8])
local out = { '-1' }
local got = 0
local skipped = 0
while got < want do
  local n = redis.call('LLEN', P .. 'rot')
  if skipped >= n then break end
  local c = redis.call('LPOP', P .. 'rot')
  local cap = tonumber(caps[c] or default_cap)
  local held = tonumber(redis.call('HGET', P .. 'hc', c) or '0')
  if cap >= 0 and held >= cap then
    redis.call('RPUSH', P .. 'rot', c)
    skipped = skipped + 1
  else
    local rk = P .. 'ready:' .. c
    local id = redis.call('LPOP', rk)
    if redis.call('LLEN', rk) > 0 then redis.call('RPUSH', P .. 'rot', c) end
    if id then
      local ready_at = redis.call('HGET', P .. 'pending', id) or tostring(NOW)
      if redis.call('HDEL', P .. 'pending', id) == 1 then
        local label = label_of(id)
        if redis.call('HINCRBY', P .. 'depth', label, -1) <= 0 then redis.call('HDEL', P .. 'depth', label) end
      end
      local token = tostring(redis.call('INCR', P .. 'seq'))
      redis.call('HSET', P .. 'held', id, token)
      redis.call('HSET', P .. 'hready', id, ready_at)
      redis.call('ZADD', P .. 'leases', NOW + LEASE_MS, id)
      redis.call('HINCRBY', P .. 'hc', cluster_of(id), 1)
      local failures = redis.call('HGET', P .. 'fail', id) or '0'
      out[#out + 1] = id
      out[#out + 1] = token
      out[#out + 1] = ready_at
      out[#out + 1] = failures
      got = got + 1
      skipped = 0
    end
  end
end
if got == 0 then
  local hint = -1
  local d = redis.call('ZRANGE', P .. 'delayed', 0, 0, 'WITHSCORES')
  if d[2] then hint = tonumber(d[2]) - NOW end
  local l = redis.call('ZRANGE', P .. 'leases', 0, 0, 'WITHSCORES')
  if l[2] and (hint < 0 or tonumber(l[2]) - NOW < hint) then hint = tonumber(l[2]) - NOW end
  if hint >= 0 then out[1] = tostring(math.max(1, hint)) end
end
return out`,

  /** ARGV 6 id, 7 token. */
  done: `
local id = ARGV[6]
if not current(id, ARGV[7]) then return 0 end
release(id)
redis.call('HDEL', P .. 'fail', id)
reschedule_dirty(id)
return 1`,

  /** ARGV 6 id, 7 token, 8 reason. Returns {'retried', delayMs} | {'dead-lettered'} | {'lease-lost'}. */
  retry: `
local id = ARGV[6]
if not current(id, ARGV[7]) then return { 'lease-lost' } end
local prev = tonumber(redis.call('HGET', P .. 'fail', id) or '0')
release(id)
local f = prev + 1
if f >= MAX_FAILURES then
  park(id, id, false, ARGV[8], f)
  return { 'dead-lettered' }
end
redis.call('HSET', P .. 'fail', id, f)
redis.call('HDEL', P .. 'dirty', id)
local delay = math.floor(math.min(BASE_MS * 2 ^ math.min(prev, 40), MAX_MS))
schedule(id, NOW + delay)
return { 'retried', tostring(delay) }`,

  /** ARGV 6 id, 7 token, 8 reason, 9 '1' when the id itself is malformed. */
  deadLetter: `
local id = ARGV[6]
if not current(id, ARGV[7]) then return 0 end
local prev = tonumber(redis.call('HGET', P .. 'fail', id) or '0')
release(id)
if ARGV[9] == '1' then
  redis.call('HDEL', P .. 'fail', id)
  park(nil, id, true, ARGV[8], prev)
else
  park(id, id, false, ARGV[8], prev)
end
return 1`,

  /** ARGV 6 id, 7 token. */
  renew: `
local id = ARGV[6]
if not current(id, ARGV[7]) then return 0 end
redis.call('ZADD', P .. 'leases', NOW + LEASE_MS, id)
return 1`,

  /** ARGV 6 id, 7 token. Hands a prefetched, never-run key back: ready again at its old time, no failure. */
  giveBack: `
local id = ARGV[6]
if not current(id, ARGV[7]) then return 0 end
local ready_at = tonumber(redis.call('HGET', P .. 'hready', id) or NOW)
release(id)
redis.call('HDEL', P .. 'dirty', id)
schedule(id, ready_at)
return 1`,

  /** ARGV 6 dead-letter entry id. Raw (unparseable) entries stay parked. */
  redrive: `
local e = redis.call('HGET', P .. 'dl', ARGV[6])
if not e then return 0 end
local d = cjson.decode(e)
if type(d.id) ~= 'string' then return 0 end
redis.call('HDEL', P .. 'dl', ARGV[6])
if redis.call('HEXISTS', P .. 'held', d.id) == 0 then redis.call('HDEL', P .. 'fail', d.id) end
schedule(d.id, NOW)
return 1`,
} as const;

export type ScriptName = keyof typeof body;

export const REDIS_SCRIPTS: Readonly<Record<ScriptName, string>> = Object.fromEntries(
  Object.entries(body).map(([name, text]) => [name, `${LUA_PRELUDE}\n${text}`]),
) as Record<ScriptName, string>;
