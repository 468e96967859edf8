-- get: leases up to N ready keys, round-robin over clusters (WorkQueue get).
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7 max leases, 8 default cluster cap (-1 = none), 9 JSON cap overrides, 10 token
-- prefix, 11 heal period ms.
-- Returns: {waitHintMs, then six fields per lease: id, token, readyAt, failures, conflicts, signature}
-- (includes/hand-out.lua).
-- @include hand-out
return hand_out(ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11])
