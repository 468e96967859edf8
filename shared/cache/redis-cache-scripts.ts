// The Redis cache's atomic steps, one Lua script each. Keys of one cluster's cache share the hash tag
// `{cache:<cluster>}` (redis-cache-store.ts), so a script touches one slot.
//
// Layout (P = prefix): P..'e' HASH id → entry JSON {o: object, rv, ix: [index names]}; P..'i:'..name SET of
// ids; P..'wm' HASH kind → watermark; P..'w:'..keyId STRING write record (with a TTL).
const PRELUDE = `
local P = ARGV[1]
local function rv_lt(a, b)
  if not a or not b or not string.match(a, '^[0-9]+$') or not string.match(b, '^[0-9]+$') then return false end
  if #a ~= #b then return #a < #b end
  return a < b
end
local function advance(kind, rv)
  local cur = redis.call('HGET', P .. 'wm', kind)
  if cur and rv_lt(cur, rv) then redis.call('HSET', P .. 'wm', kind, rv) end
end
local function unfile(id)
  local old = redis.call('HGET', P .. 'e', id)
  if not old then return nil end
  local e = cjson.decode(old)
  for _, name in ipairs(e.ix) do redis.call('SREM', P .. 'i:' .. name, id) end
  redis.call('HDEL', P .. 'e', id)
  return e
end
local function held_rv(id)
  local old = redis.call('HGET', P .. 'e', id)
  if not old then return nil end
  return cjson.decode(old).rv
end
local function file(id, json)
  unfile(id)
  redis.call('HSET', P .. 'e', id, json)
  for _, name in ipairs(cjson.decode(json).ix) do redis.call('SADD', P .. 'i:' .. name, id) end
end
`;

const body = {
  /** ARGV 2 id, 3 entry JSON, 4 kind, 5 object rv, 6 watermark rv. */
  put: `
local held = held_rv(ARGV[2])
if not (held and rv_lt(ARGV[5], held)) then file(ARGV[2], ARGV[3]) end
advance(ARGV[4], ARGV[6])
return 1`,
  /** ARGV 2 id, 3 kind, 4 rv. */
  remove: `
local held = held_rv(ARGV[2])
if not (held and rv_lt(ARGV[4], held)) then unfile(ARGV[2]) end
advance(ARGV[3], ARGV[4])
return 1`,
  /** ARGV 2 kind, 3 rv. */
  advance: `
advance(ARGV[2], ARGV[3])
return 1`,
  /** ARGV 2 kind: a relist starts; readers see no watermark until it ends. */
  beginReplace: `
redis.call('HDEL', P .. 'wm', ARGV[2])
return 1`,
  /** ARGV 2.. pairs of (id, entry JSON): filed unconditionally (a list is authoritative). */
  fileMany: `
for i = 2, #ARGV, 2 do file(ARGV[i], ARGV[i + 1]) end
return 1`,
  /** ARGV 2.. ids to drop. */
  unfileMany: `
for i = 2, #ARGV do unfile(ARGV[i]) end
return 1`,
  /** ARGV 2 kind, 3 rv: the relist is complete. */
  endReplace: `
redis.call('HSET', P .. 'wm', ARGV[2], ARGV[3])
return 1`,
} as const;

export type CacheScriptName = keyof typeof body;

export const CACHE_SCRIPTS: Readonly<Record<CacheScriptName, string>> = Object.fromEntries(
  Object.entries(body).map(([name, text]) => [name, `${PRELUDE}\n${text}`]),
) as Record<CacheScriptName, string>;
