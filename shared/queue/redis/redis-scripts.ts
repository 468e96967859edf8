// One Lua script per atomic state change (the BullMQ way), each in its own file under lua/ with a header saying
// its KEYS, ARGV and reply; the helpers they share are in lua/includes/ (shared/lua/lua-loader.ts expands them). Queue
// scripts take the queue header (ARGV 1-6, lua/includes/prelude.lua) and their own arguments from ARGV[7]; KEYS[1]
// is only a routing key (the pending hash) for Redis Cluster.
import { loadLuaScripts } from '../../lua/lua-loader.js';

export const QUEUE_LUA_DIR = 'shared/queue/redis/lua';

const NAMES = [
  'add',
  'get',
  'done',
  'doneGet',
  'retry',
  'deadLetter',
  'resign',
  'renew',
  'giveBack',
  'redrive',
  'parkInvalid',
  'fencedAdd',
] as const;

export type ScriptName = (typeof NAMES)[number];

export const REDIS_SCRIPTS: Readonly<Record<ScriptName, string>> = loadLuaScripts(QUEUE_LUA_DIR, NAMES);

/** Scripts that take only the prefix, not the queue header (they run without the queue's options). */
export const PREFIX_SCRIPTS: Readonly<Record<'drainCluster', string>> = loadLuaScripts(QUEUE_LUA_DIR, ['drainCluster']);
