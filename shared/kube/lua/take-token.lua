-- takeToken: refills a cluster's API token bucket by the server's clock and reserves the next token for the
-- caller (kube/redis-token-bucket.ts). A missing bucket is a full one; a key of another type is replaced.
-- KEYS: 1 the bucket HASH {tokens, at}, 2 the takers ZSET (process id → last take, ms).
-- ARGV: 1 qps, 2 burst, 3 taker id, 4 takers window (ms).
-- Returns: {0 | ms until the reserved token, takers in the window}.
local qps = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local window = tonumber(ARGV[4])
for _, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key)['ok']
  if kind ~= 'none' and kind ~= (key == KEYS[1] and 'hash' or 'zset') then redis.call('DEL', key) end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = burst
  at = now
elseif now > at then
  tokens = math.min(burst, tokens + (now - at) * qps / 1000)
  at = now
end
tokens = tokens - 1
local wait = 0
if tokens < 0 then wait = math.ceil(-tokens * 1000 / qps) end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'at', string.format('%.3f', at))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) * 1000 / qps) + 1000)
redis.call('ZADD', KEYS[2], now, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
redis.call('PEXPIRE', KEYS[2], window)
return {wait, redis.call('ZCARD', KEYS[2])}
