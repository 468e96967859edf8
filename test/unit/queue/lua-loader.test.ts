// The Lua loader: includes expanded once each and in order, cycles and missing includes refused with the file and
// line, and every .lua file in the tree headed by what it takes and returns.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { listLuaFiles, REPO_ROOT } from '../../../infra/build/lua-files.js';
import { CACHE_SCRIPTS } from '../../../shared/cache/redis-cache-scripts.js';
import { loadLua, loadLuaScripts, luaDirUrl, luaFileName, LuaLoadError } from '../../../shared/lua/lua-loader.js';
import { REDIS_SCRIPTS } from '../../../shared/queue/redis/redis-scripts.js';

/** A reader over an in-memory tree: paths relative to `fake/lua/`. */
function files(tree: Record<string, string>): (url: URL) => string {
  const base = luaDirUrl('fake/lua').pathname;
  return (url) => {
    const text = tree[url.pathname.slice(base.length)];
    if (text === undefined) throw new LuaLoadError(`missing ${url.pathname}`);
    return text;
  };
}

describe('lua loader', () => {
  it('expands includes in place, depth first, each once (a shared helper is defined before its first use)', () => {
    const read = files({
      'main.lua': '-- main\n-- @include b\n-- @include a\nreturn f()',
      'includes/a.lua': '-- a\nlocal function a() end',
      'includes/b.lua': '-- b\n-- @include a\nlocal function f() return a() end\n',
    });
    expect(loadLua('fake/lua', 'main', read)).toBe(
      '-- main\n-- b\n-- a\nlocal function a() end\nlocal function f() return a() end\n-- (a: included above)\nreturn f()',
    );
  });

  it('refuses an include cycle, naming it', () => {
    const read = files({
      'main.lua': '-- @include a',
      'includes/a.lua': '-- @include b',
      'includes/b.lua': 'x = 1\n-- @include a',
    });
    expect(() => loadLua('fake/lua', 'main', read)).toThrow(
      new LuaLoadError('includes/b.lua: include cycle a → b → a'),
    );
  });

  it('refuses a missing include, naming the file, line and path', () => {
    const read = files({ 'main.lua': '-- head\n-- @include nowhere\nreturn 1' });
    let error: unknown;
    try {
      loadLua('fake/lua', 'main', read);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LuaLoadError);
    expect((error as Error).message).toBe(
      `fake/lua/main.lua:2: include nowhere not found (${luaDirUrl('fake/lua').pathname}includes/nowhere.lua, ` +
        `nor ${luaDirUrl('shared/lua').pathname}includes/nowhere.lua)`,
    );
  });

  it('refuses a missing script file and an include name that is not a plain name', () => {
    expect(() => loadLuaScripts('shared/queue/redis/lua', ['noSuchScript'])).toThrow(
      /Lua file missing: .*no-such-script\.lua/,
    );
    const read = files({ 'main.lua': '-- @include ../secrets' });
    expect(() => loadLua('fake/lua', 'main', read)).toThrow(/main\.lua:1: bad include name "\.\.\/secrets"/);
  });

  it('names script files in kebab-case', () => {
    expect(['add', 'doneGet', 'parkInvalid', 'takeToken'].map(luaFileName)).toEqual([
      'add',
      'done-get',
      'park-invalid',
      'take-token',
    ]);
  });

  it('takes an include the folder lacks from shared/lua/includes (the parts several stores share)', () => {
    const fromShared = `${luaDirUrl('shared/lua').pathname}includes/lease-fence.lua`;
    const read = (url: URL): string => {
      if (url.pathname === fromShared) return 'local function fence_holds() return true end';
      return files({ 'main.lua': '-- @include lease-fence\nreturn 1' })(url);
    };
    expect(loadLua('fake/lua', 'main', read)).toBe('local function fence_holds() return true end\nreturn 1');
    // The queue's fenced add and the forwarder's fenced save share the one fence.
    expect(REDIS_SCRIPTS.fencedAdd).toContain('local function fence_holds(');
    expect(loadLua('shared/forwarder/lua', 'fenced-save')).toContain('local function fence_holds(');
  });

  it('leaves no include line unexpanded in any loaded script', () => {
    const forwarder = loadLuaScripts('shared/forwarder/lua', [
      'acquire',
      'renew',
      'release',
      'synced',
      'fencedSave',
      'heartbeat',
      'giveUp',
    ]);
    const all = { ...REDIS_SCRIPTS, ...CACHE_SCRIPTS, ...forwarder };
    for (const [name, text] of Object.entries(all)) {
      expect([name, text.split('\n').filter((l) => /^--\s*@include/.test(l))]).toEqual([name, []]);
    }
  });

  it('heads every .lua file: a script with its KEYS, ARGV and Returns, an include with what it provides', async () => {
    const lua = await listLuaFiles();
    expect(lua.length).toBeGreaterThan(20);
    for (const file of lua) {
      const lines = readFileSync(`${REPO_ROOT}/${file}`, 'utf8').split('\n');
      const header = lines.slice(
        0,
        lines.findIndex((l) => !l.startsWith('--')),
      );
      const labels = header.map((l) => /^-- (KEYS|ARGV|Returns):/.exec(l)?.[1]).filter((l) => l !== undefined);
      const isInclude = file.includes('/includes/');
      expect([file, header.length > 0, isInclude ? [] : labels]).toEqual([
        file,
        true,
        isInclude ? [] : ['KEYS', 'ARGV', 'Returns'],
      ]);
    }
  });
});
