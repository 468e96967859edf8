-- schedule(id, at): the one way a key becomes due (add, addAfter, retry, requeue, reclaim, redrive).
-- @include prelude

-- add/addAfter: waiting keeps the earlier ready time; held marks dirty (earlier wins); else enqueue.
local function schedule(id, at)
  if redis.call('HEXISTS', P .. 'held', id) == 1 then
    local d = redis.call('HGET', P .. 'dirty', id)
    if (not d) or at < tonumber(d) then redis.call('HSET', P .. 'dirty', id, at) end
    return
  end
  local p = redis.call('HGET', P .. 'pending', id)
  if p then
    if at >= tonumber(p) then return end
    if not redis.call('ZSCORE', P .. 'delayed', id) then return end
  end
  redis.call('HSET', P .. 'pending', id, at)
  if at <= NOW then
    if p then redis.call('ZREM', P .. 'delayed', id) end
    push_ready(id)
  else
    redis.call('ZADD', P .. 'delayed', at, id)
  end
  wake()
end
