-- The cache header every cache script starts with: its arguments, the entry and watermark helpers, and the fence.
-- ARGV header (all cache scripts): 1 key prefix (P), 2 the fence key ('' for none), 3 what it is compared with
-- (shared/lua/includes/lease-fence.lua: the lease and its value on one Redis, or the cluster's fencing token in
-- this cache's slot). A write whose fence fails writes nothing and returns -1.
-- Layout: P..'e' HASH id → stored entry (with a signing secret: 64 hex of MAC, then the JSON {o: object, rv,
-- ix: [index names]}); P..'i:'..name SET of ids; P..'wm' HASH kind → watermark (`rv`, or `rv:mac`); P..'rl'
-- HASH kind → 1 while the kind is relisted; P..'k:'..id STRING a kept state (apply-many.lua).
-- @include lease-fence
local P = ARGV[1]
local function fenced()
  return ARGV[2] ~= '' and not fence_passes(ARGV[2], ARGV[3])
end
local function rv_lt(a, b)
  if type(a) ~= 'string' or type(b) ~= 'string' then return false end
  if not string.match(a, '^[0-9]+$') or not string.match(b, '^[0-9]+$') then return false end
  if #a ~= #b then return #a < #b end
  return a < b
end
local function decode(v)
  if string.sub(v, 1, 1) ~= '{' then v = string.sub(v, 65) end
  local ok, e = pcall(cjson.decode, v)
  if ok and type(e) == 'table' then return e end
  return nil
end
local function wm_rv(v)
  if not v then return nil end
  local i = string.find(v, ':', 1, true)
  if i then return string.sub(v, 1, i - 1) end
  return v
end
local function unfile(id)
  local old = redis.call('HGET', P .. 'e', id)
  if not old then return end
  local e = decode(old)
  if e and type(e.ix) == 'table' then
    for _, name in ipairs(e.ix) do
      if type(name) == 'string' then redis.call('SREM', P .. 'i:' .. name, id) end
    end
  end
  redis.call('HDEL', P .. 'e', id)
end
local function file(id, stored)
  unfile(id)
  redis.call('HSET', P .. 'e', id, stored)
  for _, name in ipairs(decode(stored).ix) do redis.call('SADD', P .. 'i:' .. name, id) end
end
-- What keeps an entry of rv from being filed under id: nil, or {'e', held entry} | {'w', watermark}.
local function blocker(kind, id, rv)
  local held = redis.call('HGET', P .. 'e', id)
  if held then
    local e = decode(held)
    if e and rv_lt(rv, e.rv) then return { 'e', held } end
    return nil
  end
  local wm = redis.call('HGET', P .. 'wm', kind)
  if not wm then return nil end
  local w = wm_rv(wm)
  if rv_lt(rv, w) or (rv == w and string.match(rv, '^[0-9]+$')) then return { 'w', wm } end
  return nil
end
-- Moves the watermark to value (rv[:mac]) when ahead; never back, never before the first list. nil | {'w', cur}
local function advance(kind, rv, value)
  local cur = redis.call('HGET', P .. 'wm', kind)
  if not cur then return nil end
  if rv_lt(wm_rv(cur), rv) then
    redis.call('HSET', P .. 'wm', kind, value)
    return nil
  end
  if rv_lt(rv, wm_rv(cur)) then return { 'w', cur } end
  return nil
end
if fenced() then return -1 end
