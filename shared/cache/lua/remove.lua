-- remove: drops one object (a delete event) unless the entry held is newer; the watermark moves forward. With a
-- kept state (ARGV 8 not ''), the object as the event left it is kept under P..'k:'..id for ARGV 9 ms.
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header, 4 kind, 5 id, 6 rv, 7 watermark value, 8 stored kept state or '', 9 its TTL (ms).
-- Returns: 1 | {'e', held entry} | {'w', watermark} | -1 fenced off.
-- @include prelude
local held = redis.call('HGET', P .. 'e', ARGV[5])
local e = held and decode(held)
if e and rv_lt(ARGV[6], e.rv) then return { 'e', held } end
unfile(ARGV[5])
if ARGV[8] ~= '' then redis.call('SET', P .. 'k:' .. ARGV[5], ARGV[8], 'PX', ARGV[9]) end
return advance(ARGV[4], ARGV[6], ARGV[7]) or 1
