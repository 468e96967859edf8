-- retry: releases a lease and schedules the key after its backoff (WorkQueue retry); never dead-letters.
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7 id, 8 token, 9 '1' for a conflict (counted in the conflict hash, the failure
-- count untouched), 10 the error, redacted and capped by the caller (the key's last outcome: conflict | retried).
-- Returns: {'retried', delayMs} | {'lease-lost'}.
-- @include lease
-- @include last-run
local id = ARGV[7]
if not current(id, ARGV[8]) then return { 'lease-lost' } end
local conflict = ARGV[9] == '1'
local counts = conflict and (P .. 'conf') or (P .. 'fail')
local prev = tonumber(redis.call('HGET', counts, id) or '0')
release(id)
redis.call('HSET', counts, id, prev + 1)
redis.call('HDEL', P .. 'dirty', id)
local delay = math.floor(math.min(BASE_MS * 2 ^ math.min(prev, 40), MAX_MS))
schedule(id, NOW + delay)
record_last(id, conflict and 'conflict' or 'retried', ARGV[10])
return { 'retried', tostring(delay) }
