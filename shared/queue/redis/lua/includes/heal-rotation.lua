-- heal_rotation(): rebuilds the round-robin rotation from the pending hash; returns how many entries it added.
-- @include prelude

-- The rotation (rot list + rotset) is derived state: if it is deleted or evicted, the ready lists are still
-- there but no get() would visit them. Rebuilds it from the pending hash: every cluster with a non-empty
-- ready list joins rot; ids that are pending, not delayed and whose ready list is gone are pushed again.
-- O(pending); run when rot is empty while ready ids exist, and every few seconds (see hand-out).
local function heal_rotation()
  local in_rot = {}
  for _, c in ipairs(redis.call('LRANGE', P .. 'rot', 0, -1)) do in_rot[c] = true end
  local by_cluster = {}
  local order = {}
  for _, id in ipairs(redis.call('HKEYS', P .. 'pending')) do
    local c = cluster_of(id)
    if not by_cluster[c] then
      by_cluster[c] = {}
      order[#order + 1] = c
    end
    table.insert(by_cluster[c], id)
  end
  local healed = 0
  for _, c in ipairs(order) do
    if redis.call('LLEN', P .. 'ready:' .. c) == 0 and not in_rot[c] then
      for _, id in ipairs(by_cluster[c]) do
        if not redis.call('ZSCORE', P .. 'delayed', id) then
          redis.call('RPUSH', P .. 'ready:' .. c, id)
          healed = healed + 1
        end
      end
    end
    if redis.call('LLEN', P .. 'ready:' .. c) > 0 then
      redis.call('SADD', P .. 'rotset', c)
      if not in_rot[c] then
        redis.call('RPUSH', P .. 'rot', c)
        in_rot[c] = true
        healed = healed + 1
      end
    end
  end
  return healed
end
