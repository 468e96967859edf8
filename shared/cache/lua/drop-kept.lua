-- drop-kept: forgets an id's kept state once a pass has acted on it, unless the state kept now is newer than the
-- one the pass read (kept meanwhile: the next pass acts on it).
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header, 4 id, 5 the resourceVersion of the state the pass read.
-- Returns: 1 dropped | 0 none, or a newer one kept | -1 fenced off.
-- @include prelude
local key = P .. 'k:' .. ARGV[4]
local held = redis.call('GET', key)
if not held then return 0 end
local e = decode(held)
if e and e.rv ~= ARGV[5] and not rv_lt(e.rv, ARGV[5]) then return 0 end
redis.call('DEL', key)
return 1
