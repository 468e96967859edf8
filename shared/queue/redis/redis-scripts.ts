// One Lua script per atomic state change (the BullMQ way). Each is LUA_PRELUDE plus a body; script-specific
// arguments start at ARGV[7]. KEYS[1] is only a routing key (the pending hash) for Redis Cluster.
import { LUA_PRELUDE } from './lua-common.js';

/**
 * What an enqueue does (ARGV 7 id, 8 delayMs, 9 signature), shared by the add script below and the forwarder
 * pool's fenced add (shared/forwarder/forwarder-lease.ts), which runs it behind the lease compare.
 */
export const ADD_BODY = `
if ARGV[9] ~= '' then redis.call('HSET', P .. 'sig', ARGV[7], ARGV[9]) end
schedule(ARGV[7], NOW + math.max(0, math.floor(tonumber(ARGV[8]))))`;

/**
 * hand_out(max leases, default cluster cap (-1 = none), JSON cap overrides, token prefix (unique per call; the
 * n-th lease gets token prefix .. n), heal period ms).
 * Reclaims expired leases, promotes due delayed keys, heals the rotation if it was lost (at once when it is
 * empty while ready keys exist, else at most once per heal period), then hands out up to max keys round-robin
 * over clusters, skipping clusters at their cap.
 * Returns {waitHintMs, id, token, readyAt, failures, conflicts, signature, ...} (signature '' when none is
 * stored).
 */
const HAND_OUT = `
local function hand_out(max_leases, default_cap_arg, caps_json, token_prefix, heal_ms)
  reclaim_expired(100)
  local due = redis.call('ZRANGEBYSCORE', P .. 'delayed', '-inf', NOW, 'LIMIT', 0, 1000)
  for _, id in ipairs(due) do
    redis.call('ZREM', P .. 'delayed', id)
    push_ready(id)
  end
  if (redis.call('LLEN', P .. 'rot') == 0 and redis.call('HLEN', P .. 'pending') > redis.call('ZCARD', P .. 'delayed'))
    or redis.call('SET', P .. 'healchk', '1', 'NX', 'PX', heal_ms) then
    heal_rotation()
  end
  local want = tonumber(max_leases)
  local default_cap = tonumber(default_cap_arg)
  local caps = HAS_CAPS and cjson.decode(caps_json) or {}
  local out = { '-1' }
  local got = 0
  local skipped = 0
  local n = redis.call('LLEN', P .. 'rot')
  while got < want and skipped < n do
    local c = redis.call('LMOVE', P .. 'rot', P .. 'rot', 'LEFT', 'RIGHT')
    local cap = tonumber(caps[c] or default_cap)
    if cap >= 0 and tonumber(redis.call('HGET', P .. 'hc', c) or '0') >= cap then
      skipped = skipped + 1
    else
      local id = redis.call('LPOP', P .. 'ready:' .. c)
      if not id then
        redis.call('RPOP', P .. 'rot') -- c was just moved to the tail
        redis.call('SREM', P .. 'rotset', c)
        n = n - 1
      else
        local ready_at = redis.call('HGET', P .. 'pending', id)
        -- A list entry of an id that is not pending-and-ready is stale (a duplicate left by a rotation heal,
        -- or a corrupt write): skip it.
        if ready_at and not redis.call('ZSCORE', P .. 'delayed', id) then
          redis.call('HDEL', P .. 'pending', id)
          local token = token_prefix .. got
          redis.call('HSET', P .. 'held', id, token .. '|' .. ready_at)
          redis.call('ZADD', P .. 'leases', NOW + LEASE_MS, id)
          redis.call('HINCRBY', P .. 'hc', cluster_of(id), 1)
          out[#out + 1] = id
          out[#out + 1] = token
          out[#out + 1] = ready_at
          out[#out + 1] = redis.call('HGET', P .. 'fail', id) or '0'
          out[#out + 1] = redis.call('HGET', P .. 'conf', id) or '0'
          out[#out + 1] = SIGNED and (redis.call('HGET', P .. 'sig', id) or '') or ''
          got = got + 1
          skipped = 0
        end
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
  return out
end`;

/** finish(id, token, requeueAfterMs ('' = none)): release, dirty run and requeue in one step; 1, or 0 if lost. */
const FINISH = `
local function finish(id, token, after)
  if not current(id, token) then return 0 end
  release(id)
  redis.call('HDEL', P .. 'fail', id)
  redis.call('HDEL', P .. 'conf', id)
  reschedule_dirty(id)
  if after ~= '' then schedule(id, NOW + math.max(0, math.floor(tonumber(after)))) end
  forget_signature(id)
  return 1
end`;

const body = {
  /**
   * ARGV 7 id, 8 delayMs, 9 signature ('' when unsigned). Returns whether the data-loss marker (epoch) is there:
   * 0 tells the caller that this Redis lost its data (redis-loss.ts), at the first enqueue after the loss.
   */
  add: `${ADD_BODY}
return redis.call('EXISTS', P .. 'epoch')`,

  /**
   * ARGV 7 max leases, 8 default cluster cap (-1 = none), 9 JSON cap overrides, 10 token prefix, 11 heal
   * period ms: see HAND_OUT.
   */
  get: `${HAND_OUT}
return hand_out(ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11])`,

  /** ARGV 7 id, 8 token, 9 requeueAfterMs ('' = none): see FINISH. Returns 1, or 0 when the lease was lost. */
  done: `${FINISH}
return finish(ARGV[7], ARGV[8], ARGV[9])`,

  /**
   * done, then get, in one round trip (a worker slot that will ask for its next key at once): ARGV 7-9 as done,
   * 10-14 as get's 7-11. Returns get's reply with done's 1 or 0 in front. A lost lease does not stop the get.
   */
  doneGet: `${FINISH}
${HAND_OUT}
local released = finish(ARGV[7], ARGV[8], ARGV[9])
local out = hand_out(ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14])
table.insert(out, 1, tostring(released))
return out`,

  /**
   * ARGV 7 id, 8 token, 9 '1' for a conflict (counted in the conflict hash, the failure count untouched).
   * Returns {'retried', delayMs} | {'lease-lost'}; never dead-letters.
   */
  retry: `
local id = ARGV[7]
if not current(id, ARGV[8]) then return { 'lease-lost' } end
local counts = ARGV[9] == '1' and (P .. 'conf') or (P .. 'fail')
local prev = tonumber(redis.call('HGET', counts, id) or '0')
release(id)
redis.call('HSET', counts, id, prev + 1)
redis.call('HDEL', P .. 'dirty', id)
local delay = math.floor(math.min(BASE_MS * 2 ^ math.min(prev, 40), MAX_MS))
schedule(id, NOW + delay)
return { 'retried', tostring(delay) }`,

  /**
   * ARGV 7 id, 8 token, 9 reason, 10 '1' when the id itself is malformed or its signature bad, 11 the signature
   * it carried (kept with a raw letter, for `fleetq dlq redrive`; '' or absent: none).
   */
  deadLetter: `
local id = ARGV[7]
if not current(id, ARGV[8]) then return 0 end
local prev = tonumber(redis.call('HGET', P .. 'fail', id) or '0')
release(id)
if ARGV[10] == '1' then
  park(nil, id, true, ARGV[9], 0, ARGV[11])
else
  park(id, id, false, ARGV[9], prev)
end
return 1`,

  /**
   * ARGV 7 id, 8 token, 9 signature: a held key verified by a previous secret gets its current signature, so it
   * still verifies once the rotation window closes. Returns 1, or 0 when the lease was lost.
   */
  resign: `
local id = ARGV[7]
if not current(id, ARGV[8]) then return 0 end
redis.call('HSET', P .. 'sig', id, ARGV[9])
return 1`,

  /** ARGV 7 id, 8 token. */
  renew: `
local id = ARGV[7]
if not current(id, ARGV[8]) then return 0 end
redis.call('ZADD', P .. 'leases', NOW + LEASE_MS, id)
return 1`,

  /** ARGV 7 id, 8 token. Hands a prefetched, never-run key back: ready again at its old time, no failure. */
  giveBack: `
local id = ARGV[7]
if not current(id, ARGV[8]) then return 0 end
local ready_at = tonumber(string.match(redis.call('HGET', P .. 'held', id), '|(.*)$') or NOW)
release(id)
redis.call('HDEL', P .. 'dirty', id)
schedule(id, ready_at)
return 1`,

  /**
   * ARGV 7 dead-letter entry id, 8 its key's signature ('' when unsigned), 9 the key id the caller read from the
   * entry: a keyed entry, or a raw one whose text the caller checked is that key (anything else stays parked).
   */
  redrive: `
local e = redis.call('HGET', P .. 'dl', ARGV[7])
if not e then return 0 end
local d = cjson.decode(e)
if type(d.id) ~= 'string' then
  if type(d.raw) ~= 'string' or d.raw ~= ARGV[9] then return 0 end
  d.id = d.raw
end
redis.call('HDEL', P .. 'dl', ARGV[7])
if redis.call('HEXISTS', P .. 'held', d.id) == 0 then
  redis.call('HDEL', P .. 'fail', d.id)
  redis.call('HDEL', P .. 'conf', d.id)
end
if ARGV[8] ~= '' then redis.call('HSET', P .. 'sig', d.id, ARGV[8]) end
schedule(d.id, NOW)
return 1`,

  /** ARGV 7 raw text, 8 reason: a dead letter for something that never became a key. */
  parkInvalid: `
record_dead(nil, ARGV[7], true, ARGV[8], 0)
return 1`,
} as const;

export type ScriptName = keyof typeof body;

export const REDIS_SCRIPTS: Readonly<Record<ScriptName, string>> = Object.fromEntries(
  Object.entries(body).map(([name, text]) => [name, `${LUA_PRELUDE}\n${text}`]),
) as Record<ScriptName, string>;
