-- advance: moves a kind's watermark forward (a bookmark), never back, never before the first list.
-- KEYS: 1 routing key only (the entries hash), so Redis Cluster sends the script to the cluster cache's slot.
-- ARGV: 1-3 the cache header, 4 kind, 5 rv, 6 watermark value.
-- Returns: 1 | {'w', the newer watermark kept} | -1 fenced off.
-- @include prelude
return advance(ARGV[4], ARGV[5], ARGV[6]) or 1
