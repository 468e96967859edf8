-- finish(id, token, requeueAfterMs ('' = none)): release, the dirty rerun, the requeue and the key's last outcome
-- (requeued | done) in one step.
-- Returns 1, or 0 when the lease was lost (nothing recorded: the key may be someone else's by now).
-- @include lease
-- @include last-run

local function finish(id, token, after)
  if not current(id, token) then return 0 end
  release(id)
  redis.call('HDEL', P .. 'fail', id)
  redis.call('HDEL', P .. 'conf', id)
  reschedule_dirty(id)
  if after ~= '' then schedule(id, NOW + math.max(0, math.floor(tonumber(after)))) end
  forget_signature(id)
  record_last(id, after ~= '' and 'requeued' or 'done')
  return 1
end
