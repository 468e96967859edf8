-- fileMany: files a relist's page of objects, each unless held back (as put).
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header, 4 kind, 5.. triples (id, stored entry, rv).
-- Returns: the held-back ones, flat (id, 'e'|'w', blocking value) | -1 fenced off.
-- @include prelude
local out = {}
for i = 5, #ARGV, 3 do
  local b = blocker(ARGV[4], ARGV[i], ARGV[i + 2])
  if b then
    out[#out + 1] = ARGV[i]; out[#out + 1] = b[1]; out[#out + 1] = b[2]
  else
    file(ARGV[i], ARGV[i + 1])
  end
end
return out
