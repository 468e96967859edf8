// The Redis cache's atomic steps, one Lua script each. Keys of one cluster's cache share the hash tag
// `{cache:<cluster>}` (redis-cache-store.ts), so a script touches one slot (the fence's lease key aside, below).
//
// Layout (P = prefix): P..'e' HASH id → stored entry (with a signing secret: 64 hex of MAC, then the JSON
// {o: object, rv, ix: [index names]}); P..'i:'..name SET of ids; P..'wm' HASH kind → watermark (`rv`, or
// `rv:mac`); P..'rl' HASH kind → 1 while the kind is relisted; P..'w:'..keyId STRING write record (with a TTL).
//
// Time only goes forward: an entry never replaces one with a newer resourceVersion; an object not held whose
// resourceVersion is not past the watermark was deleted since (the cache is complete at its watermark), so a
// stale event or relist does not bring it back; the watermark never moves back (reset drops everything).
// Lua cannot check a MAC (the secret stays out of Redis): a write held back by an entry or watermark returns that
// value, the store checks it, removes a forged one (`repair`, only if it is still that exact value) and tries again.
//
// Fence: ARGV 2 the forwarder's lease key ('' for none), 3 the value it must hold; a write script whose compare
// fails writes nothing and returns -1. The lease key lives in the queue's slot: on one Redis, as here, it holds.
const PRELUDE = `
local P = ARGV[1]
local function fenced()
  return ARGV[2] ~= '' and redis.call('GET', ARGV[2]) ~= ARGV[3]
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
`;

const body = {
  /** ARGV 4 kind, 5 id, 6 stored entry, 7 object rv, 8 watermark rv, 9 watermark value. Held back: no change. */
  put: `
local b = blocker(ARGV[4], ARGV[5], ARGV[7])
if b then return b end
file(ARGV[5], ARGV[6])
return advance(ARGV[4], ARGV[8], ARGV[9]) or 1`,
  /** ARGV 4 kind, 5 id, 6 rv, 7 watermark value. */
  remove: `
local held = redis.call('HGET', P .. 'e', ARGV[5])
local e = held and decode(held)
if e and rv_lt(ARGV[6], e.rv) then return { 'e', held } end
unfile(ARGV[5])
return advance(ARGV[4], ARGV[6], ARGV[7]) or 1`,
  /** ARGV 4 kind, 5 rv, 6 watermark value. */
  advance: `
return advance(ARGV[4], ARGV[5], ARGV[6]) or 1`,
  /** ARGV 4 kind: a relist starts; readers see no watermark until it ends. */
  beginReplace: `
redis.call('HSET', P .. 'rl', ARGV[4], '1')
return 1`,
  /**
   * ARGV 4 kind, 5.. triples (id, stored entry, rv): each filed unless held back (above).
   * → the held-back ones: flat (id, 'e'|'w', blocking value).
   */
  fileMany: `
local out = {}
for i = 5, #ARGV, 3 do
  local b = blocker(ARGV[4], ARGV[i], ARGV[i + 2])
  if b then
    out[#out + 1] = ARGV[i]; out[#out + 1] = b[1]; out[#out + 1] = b[2]
  else
    file(ARGV[i], ARGV[i + 1])
  end
end
return out`,
  /** ARGV 4 list rv, 5.. ids not in the list: dropped unless changed after it. → the kept ones: flat (id, held). */
  unfileMany: `
local out = {}
for i = 5, #ARGV do
  local held = redis.call('HGET', P .. 'e', ARGV[i])
  local e = held and decode(held)
  if e and rv_lt(ARGV[4], e.rv) then
    out[#out + 1] = ARGV[i]; out[#out + 1] = held
  else
    unfile(ARGV[i])
  end
end
return out`,
  /** ARGV 4 kind, 5 rv, 6 watermark value: the relist is complete. → 1 | {'w', the newer watermark kept} */
  endReplace: `
local cur = redis.call('HGET', P .. 'wm', ARGV[4])
local kept = nil
if not cur or not rv_lt(ARGV[5], wm_rv(cur)) then
  redis.call('HSET', P .. 'wm', ARGV[4], ARGV[6])
else
  kept = { 'w', cur }
end
redis.call('HDEL', P .. 'rl', ARGV[4])
return kept or 1`,
  /**
   * Removes values the store found forged, each only while it is still that exact value. ARGV 4 kind, 5..
   * triples: ('e', id, value) drops the entry; ('w', replacement, value) sets the watermark to replacement ('': none).
   */
  repair: `
for i = 5, #ARGV, 3 do
  if ARGV[i] == 'e' then
    if redis.call('HGET', P .. 'e', ARGV[i + 1]) == ARGV[i + 2] then unfile(ARGV[i + 1]) end
  elseif redis.call('HGET', P .. 'wm', ARGV[4]) == ARGV[i + 2] then
    if ARGV[i + 1] == '' then redis.call('HDEL', P .. 'wm', ARGV[4]) else redis.call('HSET', P .. 'wm', ARGV[4], ARGV[i + 1]) end
  end
end
return 1`,
  /** Drops the objects and watermarks (a cluster restored from a backup); index sets are removed after. */
  reset: `
redis.call('DEL', P .. 'e', P .. 'wm', P .. 'rl')
return 1`,
} as const;

export type CacheScriptName = keyof typeof body;

export const CACHE_SCRIPTS: Readonly<Record<CacheScriptName, string>> = Object.fromEntries(
  Object.entries(body).map(([name, text]) => [name, `${PRELUDE}\n${text}`]),
) as Record<CacheScriptName, string>;
