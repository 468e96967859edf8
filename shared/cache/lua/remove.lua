-- remove: drops one object (a delete event) unless the entry held is newer; the watermark moves forward.
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header, 4 kind, 5 id, 6 rv, 7 watermark value.
-- Returns: 1 | {'e', held entry} | {'w', watermark} | -1 fenced off.
-- @include prelude
local held = redis.call('HGET', P .. 'e', ARGV[5])
local e = held and decode(held)
if e and rv_lt(ARGV[6], e.rv) then return { 'e', held } end
unfile(ARGV[5])
return advance(ARGV[4], ARGV[6], ARGV[7]) or 1
