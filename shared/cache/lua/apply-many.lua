-- applyMany: a batch of watch events of one kind, applied in the order given, in one call: each put files its object
-- unless a newer entry or the watermark holds it back; each remove drops its object unless the entry held is newer.
-- Either moves the watermark forward and may keep a state (P..'k:'..id, with a TTL). One call per batch, so a
-- batch's writes cannot take effect out of order, whatever happens to the script cache meanwhile (a NOSCRIPT
-- re-sends the whole batch).
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header (includes/prelude.lua), 4 kind, 5.. per change 8: 'p' (put) or 'r' (remove), id,
-- stored entry ('' for a remove), object rv, watermark rv, watermark value, stored kept state or '', its TTL (ms).
-- Returns: the held-back changes, flat (index from 1, 'e'|'w', blocking value): held back by an entry (nothing
-- changed), or a watermark not moved back | -1 fenced off.
-- @include prelude
local kind = ARGV[4]
local out = {}
for a = 5, #ARGV, 8 do
  local op, id, stored, rv = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  local wm_rv, wm, kept, ttl = ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7]
  local b
  if op == 'p' then
    b = blocker(kind, id, rv)
  else
    local held = redis.call('HGET', P .. 'e', id)
    local e = held and decode(held)
    if e and rv_lt(rv, e.rv) then b = { 'e', held } end
  end
  if not b then
    if op == 'p' then file(id, stored) else unfile(id) end
    if kept ~= '' then redis.call('SET', P .. 'k:' .. id, kept, 'PX', ttl) end
    b = advance(kind, wm_rv, wm)
  end
  if b then
    out[#out + 1] = tostring((a - 5) / 8 + 1); out[#out + 1] = b[1]; out[#out + 1] = b[2]
  end
end
return out
