-- unfileMany: drops the objects a relist did not return, unless changed after the list.
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header, 4 list rv, 5.. ids not in the list.
-- Returns: the kept ones, flat (id, held entry) | -1 fenced off.
-- @include prelude
local out = {}
for i = 5, #ARGV do
  local held = redis.call('HGET', P .. 'e', ARGV[i])
  local e = held and decode(held)
  if e and rv_lt(ARGV[4], e.rv) then
    out[#out + 1] = ARGV[i]; out[#out + 1] = held
  else
    unfile(ARGV[i])
  end
end
return out
