-- fenced-save: writes a cluster's checkpoints only while the forwarder's lease is ours (compare, then HSET).
-- KEYS: 1 routing only: the lease key on one Redis, the checkpoints HASH with fence slots (a Redis Cluster).
-- ARGV: 1 fence key, 2 what it is compared with (the lease and `<token>|<holder>`, or the cluster's token key in
-- the checkpoints' slot and the token), 3 writers list ('' for none), 4 token (shared/lua/includes/lease-fence),
-- 5 checkpoints HASH, 6.. field, value pairs.
-- Returns: 1 saved | -1 refused by the fence (nothing written).
-- @include lease-fence
if not fence_holds(ARGV[1], ARGV[2], ARGV[3], ARGV[4]) then return -1 end
redis.call('HSET', ARGV[5], unpack(ARGV, 6))
return 1
