// The queue's Lua helpers in one piece (lua/includes/all-helpers.lua: the ARGV header, the server clock and the
// transitions more than one script performs), for Lua put together outside lua/: the forwarder's fenced add.
// The queue's own scripts include only the helpers each needs (redis-scripts.ts).
import { loadLuaInclude } from '../../lua/lua-loader.js';
import { QUEUE_LUA_DIR } from './redis-scripts.js';

export const LUA_PRELUDE = `\n${loadLuaInclude(QUEUE_LUA_DIR, 'all-helpers')}\n`;
