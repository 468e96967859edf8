-- install-fence: puts a new lease holder's fencing token in one slot its writes go to (set-if-greater), before
-- its first write there: from then on the previous holder's writes in that slot are refused.
-- KEYS: 1 the cluster's fence key in that slot (`fwd:fence:<cluster>`).
-- ARGV: 1 the token.
-- Returns: 1 installed (or already there) | 0 a larger token is there (a newer holder: this one's lease is lost).
-- @include lease-fence
if fence_passes(KEYS[1], ARGV[1]) then return 1 end
return 0
