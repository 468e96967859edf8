-- Dead letters: record_dead writes one entry, park moves a released key (or a held raw message) into them.
-- @include lease

-- Writes one dead-letter entry (a raw one may keep the signature it carried); returns its sequence number.
local function record_dead(entry_id, id, raw, reason, failures, sig)
  local seq = redis.call('INCR', P .. 'seq')
  local e = { reason = reason, failures = failures, at = NOW, seq = seq }
  if raw then e.raw = id else e.id = id end
  if raw and sig and sig ~= '' then e.sig = sig end
  redis.call('HSET', P .. 'dl', entry_id or ('raw:' .. seq), cjson.encode(e))
  return seq
end

-- Parks a released key (or a held raw message) in the dead-letter hash; a dirty key still runs, failures reset.
-- A raw message loses its dirty mark, failure count and signature: it never runs.
local function park(entry_id, id, raw, reason, failures, sig)
  record_dead(entry_id, id, raw, reason, failures, sig)
  redis.call('HDEL', P .. 'conf', id)
  if raw then
    redis.call('HDEL', P .. 'dirty', id)
    redis.call('HDEL', P .. 'fail', id)
    if SIGNED then redis.call('HDEL', P .. 'sig', id) end
  else
    redis.call('HDEL', P .. 'fail', id)
    reschedule_dirty(id)
    forget_signature(id)
  end
end
