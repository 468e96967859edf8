-- record_last(id, result, error ('' or nil = none)): the key's last outcome, written in the same script as the
-- outcome itself. `<prefix>last:<id>` holds JSON {at, result, error?} (`fleetq describe` reads it) for 24 h, so
-- the records of deleted objects go away by themselves. The key starts with the prefix, so it has the queue's
-- hash tag and slot, as every other key a queue script touches.
-- @include prelude

local LAST_TTL_MS = 86400000

local function record_last(id, result, err)
  local r = { at = NOW, result = result }
  if err and err ~= '' then r.error = err end
  redis.call('SET', P .. 'last:' .. id, cjson.encode(r), 'PX', LAST_TTL_MS)
end
