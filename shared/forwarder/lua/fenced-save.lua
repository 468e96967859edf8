-- fenced-save: writes a cluster's checkpoints only while the forwarder's lease is ours (compare, then HSET).
-- KEYS: 1 the lease key (routing only).
-- ARGV: 1 lease key, 2 the value it must hold (`<token>|<holder>`), 3 writers list, 4 token
-- (shared/lua/includes/lease-fence), 5 checkpoints HASH, 6.. field, value pairs.
-- Returns: 1 saved | -1 refused by the fence (nothing written).
-- @include lease-fence
if not fence_holds(ARGV[1], ARGV[2], ARGV[3], ARGV[4]) then return -1 end
redis.call('HSET', ARGV[5], unpack(ARGV, 6))
return 1
