-- beginReplace: a relist of a kind starts; readers see no watermark until it ends.
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header, 4 kind.
-- Returns: 1 | -1 fenced off.
-- @include prelude
redis.call('HSET', P .. 'rl', ARGV[4], '1')
return 1
