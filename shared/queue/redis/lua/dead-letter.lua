-- deadLetter: releases a lease and parks the key in the dead-letter hash (WorkQueue deadLetter, and a handed-out
-- id that is malformed or whose signature is bad).
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7 id, 8 token, 9 reason, 10 '1' when the id itself is malformed or its signature
-- bad, 11 the signature it carried (kept with a raw letter, for `fleetq dlq redrive`; '' or absent: none), 12 the
-- reason redacted and capped by the caller, for the key's last outcome (dead-lettered). A raw letter records no
-- outcome: its id is not a key a worker ran.
-- Returns: 1, or 0 when the lease was lost.
-- @include dead-letter
-- @include last-run
local id = ARGV[7]
if not current(id, ARGV[8]) then return 0 end
local prev = tonumber(redis.call('HGET', P .. 'fail', id) or '0')
release(id)
if ARGV[10] == '1' then
  park(nil, id, true, ARGV[9], 0, ARGV[11])
else
  park(id, id, false, ARGV[9], prev)
  record_last(id, 'dead-lettered', ARGV[12])
end
return 1
