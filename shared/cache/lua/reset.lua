-- reset: drops the objects and watermarks (a cluster restored from a backup); index sets are removed after.
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header.
-- Returns: 1 | -1 fenced off.
-- @include prelude
redis.call('DEL', P .. 'e', P .. 'wm', P .. 'rl')
return 1
