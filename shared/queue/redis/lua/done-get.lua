-- doneGet: done, then get, in one round trip (a worker slot that will ask for its next key at once).
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7-9 as done's, 10-14 as get's 7-11.
-- Returns: get's reply with done's 1 or 0 in front. A lost lease does not stop the get.
-- @include finish
-- @include hand-out
local released = finish(ARGV[7], ARGV[8], ARGV[9])
local out = hand_out(ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14])
table.insert(out, 1, tostring(released))
return out
