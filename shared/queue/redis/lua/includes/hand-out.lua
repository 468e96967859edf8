-- hand_out(max leases, default cluster cap (-1 = none), JSON cap overrides, token prefix (unique per call; the
-- n-th lease gets token prefix .. n), heal period ms).
-- Reclaims expired leases, promotes due delayed keys, heals the rotation if it was lost (at once when it is
-- empty while ready keys exist, else at most once per heal period), then hands out up to max keys round-robin
-- over clusters, skipping clusters at their cap.
-- Returns {waitHintMs, id, token, readyAt, failures, conflicts, signature, ...} (signature '' when none is
-- stored; waitHintMs -1 when nothing is delayed or leased, and only set when nothing was handed out).
-- @include lease
-- @include heal-rotation

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
end
