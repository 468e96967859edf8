// The Redis cache's atomic steps, one Lua script each, in lua/ (the header they share in lua/includes/prelude.lua,
// each file's own header saying its ARGV and reply). Keys of one cluster's cache share the hash tag
// `{cache:<cluster>}` (redis-cache-store.ts), so a script touches one slot (on one Redis the fence's lease key aside,
// below).
//
// Layout (P = prefix): P..'e' HASH id → stored entry (with a signing secret: 64 hex of MAC, then the JSON
// {o: object, rv, ix: [index names]}); P..'i:'..name SET of ids; P..'wm' HASH kind → watermark (`rv`, or
// `rv:mac`); P..'rl' HASH kind → 1 while the kind is relisted; P..'w:'..keyId STRING write record (with a TTL);
// P..'k:'..id STRING kept state (with a TTL; cache-entry.ts keepsState).
//
// Time only goes forward: an entry never replaces one with a newer resourceVersion; an object not held whose
// resourceVersion is not past the watermark was deleted since (the cache is complete at its watermark), so a
// stale event or relist does not bring it back; the watermark never moves back (reset drops everything).
// Lua cannot check a MAC (the secret stays out of Redis): a write held back by an entry or watermark returns that
// value, the store checks it, removes a forged one (`repair`, only if it is still that exact value) and tries again.
//
// Fence: ARGV 2 the fence key ('' for none), 3 what it is compared with (shared/lua/includes/lease-fence.lua); a
// write script whose fence fails writes nothing and returns -1. On one Redis the fence key is the lease (in the
// queue's slot); on a Redis Cluster it is the cluster's fencing token in this cache's slot (`fwd:fence:<cluster>`
// under the cache's prefix), so each script stays in one slot.
import { loadLuaScripts } from '../lua/lua-loader.js';

export const CACHE_LUA_DIR = 'shared/cache/lua';

const NAMES = [
  'applyMany',
  'advance',
  'beginReplace',
  'fileMany',
  'unfileMany',
  'endReplace',
  'repair',
  'reset',
  'dropKept',
] as const;

export type CacheScriptName = (typeof NAMES)[number];

export const CACHE_SCRIPTS: Readonly<Record<CacheScriptName, string>> = loadLuaScripts(CACHE_LUA_DIR, NAMES);
