-- redrive: moves one dead letter back into the queue, ready now, its failure and conflict counts reset unless the
-- key is held.
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7 dead-letter entry id, 8 its key's signature ('' when unsigned), 9 the key id the
-- caller read from the entry: a keyed entry, or a raw one whose text the caller checked is that key (anything
-- else stays parked).
-- Returns: 1 when moved, 0 when the entry is gone or stays parked.
-- @include schedule
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
return 1
