-- done: releases a lease, runs a dirty key again and requeues it when asked (WorkQueue done).
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7 id, 8 token, 9 requeueAfterMs ('' = none).
-- Returns: 1, or 0 when the lease was lost.
-- @include finish
return finish(ARGV[7], ARGV[8], ARGV[9])
