-- repair: removes values the store found forged, each only while it is still that exact value.
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header, 4 kind, 5.. triples: ('e', id, value) drops the entry; ('w', replacement, value)
-- sets the watermark to replacement ('': none).
-- Returns: 1 | -1 fenced off.
-- @include prelude
for i = 5, #ARGV, 3 do
  if ARGV[i] == 'e' then
    if redis.call('HGET', P .. 'e', ARGV[i + 1]) == ARGV[i + 2] then unfile(ARGV[i + 1]) end
  elseif redis.call('HGET', P .. 'wm', ARGV[4]) == ARGV[i + 2] then
    if ARGV[i + 1] == '' then redis.call('HDEL', P .. 'wm', ARGV[4]) else redis.call('HSET', P .. 'wm', ARGV[4], ARGV[i + 1]) end
  end
end
return 1
