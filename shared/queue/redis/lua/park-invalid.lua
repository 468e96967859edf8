-- parkInvalid: a dead letter for something that never became a key (WorkQueue parkInvalid).
-- KEYS: 1 routing key only (the pending hash).
-- ARGV: 1-6 the queue header, 7 raw text, 8 reason.
-- Returns: 1.
-- @include dead-letter
record_dead(nil, ARGV[7], true, ARGV[8], 0)
return 1
