-- put: files one object (an event or a get): unless a newer entry or the watermark holds it back. With a kept state
-- (ARGV 10 not ''), the object is also kept under P..'k:'..id for ARGV 11 ms.
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header (includes/prelude.lua), 4 kind, 5 id, 6 stored entry, 7 object rv, 8 watermark rv,
-- 9 watermark value, 10 stored kept state or '', 11 its TTL (ms).
-- Returns: 1 | {'e', held entry} | {'w', watermark} (held back: nothing changed, or the watermark not moved
-- back) | -1 fenced off.
-- @include prelude
local b = blocker(ARGV[4], ARGV[5], ARGV[7])
if b then return b end
file(ARGV[5], ARGV[6])
if ARGV[10] and ARGV[10] ~= '' then redis.call('SET', P .. 'k:' .. ARGV[5], ARGV[10], 'PX', ARGV[11]) end
return advance(ARGV[4], ARGV[8], ARGV[9]) or 1
