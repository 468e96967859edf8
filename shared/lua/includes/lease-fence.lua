-- The fence every write behind a forwarder's lease starts with (the queue's fenced add, the forwarder's fenced
-- checkpoint save, the cache's writes), in one of two forms, chosen by `expected`:
-- - `<token>|<holder>` (one Redis and one queue: the lease key is in reach of every write): `fence_key` is the
--   lease, which must hold exactly that (gone, or another holder's: refused);
-- - a bare token (a Redis Cluster, or queue shards: the writes are in slots other than the lease's): `fence_key` is
--   the cluster's fencing token in the write's own slot (`fwd:fence:<cluster>`); refused when it holds a larger
--   token, else set to this one (set-if-greater), so once a newer holder has installed its token in a slot (right
--   after taking the lease) or written there, the older holder's writes there are refused.
-- No WATCH: the compare and the write that follows are one script.
local function fence_passes(fence_key, expected)
  if string.find(expected, '|', 1, true) then return redis.call('GET', fence_key) == expected end
  local mine = tonumber(expected)
  if not mine then return false end
  local current = tonumber(redis.call('GET', fence_key) or '0') or 0
  if current > mine then return false end
  if current < mine then redis.call('SET', fence_key, expected) end
  return true
end
-- fence_holds(fence_key, expected, writers_key, token): fence_passes; when it does and `writers_key` is not '',
-- `token` is appended to the writers list if the last writer was another (the last 50 changes of writer kept:
-- fencing means the list never goes down).
local function fence_holds(fence_key, expected, writers_key, token)
  if not fence_passes(fence_key, expected) then return false end
  if writers_key == '' then return true end
  local last = redis.call('LINDEX', writers_key, -1)
  if last ~= token then
    redis.call('RPUSH', writers_key, token)
    redis.call('LTRIM', writers_key, -50, -1)
  end
  return true
end
