-- fence_holds(lease_key, expected, writers_key, token): the fence every write behind a forwarder's lease starts
-- with (the queue's fenced add, the forwarder's fenced checkpoint save). Whether the lease key holds `expected`
-- (`<token>|<holder>`); when it does, `token` is appended to the writers list if the last writer was another (the
-- last 50 changes of writer kept: fencing means the list never goes down). No WATCH: the compare and the write
-- that follows are one script.
local function fence_holds(lease_key, expected, writers_key, token)
  if redis.call('GET', lease_key) ~= expected then return false end
  local last = redis.call('LINDEX', writers_key, -1)
  if last ~= token then
    redis.call('RPUSH', writers_key, token)
    redis.call('LTRIM', writers_key, -50, -1)
  end
  return true
end
