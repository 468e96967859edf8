// Reads the Lua scripts every Redis store runs (the queue's transitions, shared/queue/redis/lua/; the object
// cache's steps, shared/cache/lua/; the API token bucket, shared/kube/lua/) from their .lua files, once, when the
// store's module loads: a missing file fails the process at start, not at its first Redis call. Below every layer
// (kube's token bucket uses it), as script-runner.ts beside it.
//
// A line `-- @include name` is replaced by `<dir>/includes/name.lua` or, when the script's own folder has no such
// include, by `shared/lua/includes/name.lua` (the parts several stores share: the lease fence every write behind
// a forwarder's lease starts with), expanded the same way. An include already
// expanded into the script is not repeated (several parts may need one helper; Lua needs each local defined once,
// before its first use), and an include that comes back to itself while being expanded is an error: the helpers
// would be used before they were defined.
//
// Where the files are: paths are relative to the tree this module sits in (the repository in the sources and in
// tests, dist/ for `npm run build`, which copies the .lua files beside the compiled modules). A Lambda bundle is
// one file: infra/lambda/build.ts copies the .lua files into the function's directory, laid out as in the
// sources, and makes this module's own URL the one it would have in that layout.
import { existsSync, readFileSync } from 'node:fs';

/** The directory holding `shared/` (the repository, dist/, or a Lambda function's directory). */
const TREE_ROOT = new URL('../../', import.meta.url);

/** Where the includes several stores share are (`includes/` below it). */
const SHARED_DIR = new URL('shared/lua/', TREE_ROOT);

const INCLUDE = /^--\s*@include\s+(\S+)\s*$/;
const NAME = /^[a-z0-9][a-z0-9-]*$/;

export class LuaLoadError extends Error {
  override name = 'LuaLoadError';
}

/** `shared/queue/redis/lua` → its URL in the tree this module runs from. */
export function luaDirUrl(dir: string): URL {
  return new URL(`${dir.replace(/\/?$/, '/')}`, TREE_ROOT);
}

/** The kebab-case file name of a script name: doneGet → done-get. */
export function luaFileName(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The script in `<dir>/<file>.lua` with its includes expanded. `read` reads a file's text by URL (tests pass
 * their own files).
 */
export function loadLua(dir: string, file: string, read: (url: URL) => string = readLuaFile): string {
  const base = luaDirUrl(dir);
  return expand(read(new URL(`${file}.lua`, base)), `${dir}/${file}.lua`, base, read, new Set(), []);
}

/** Every script named in `names` from `<dir>/<kebab-name>.lua`, includes expanded. */
export function loadLuaScripts<const N extends string>(
  dir: string,
  names: readonly N[],
  read: (url: URL) => string = readLuaFile,
): Readonly<Record<N, string>> {
  return Object.fromEntries(names.map((name) => [name, loadLua(dir, luaFileName(name), read)])) as Record<N, string>;
}

function expand(
  text: string,
  where: string,
  base: URL,
  read: (url: URL) => string,
  done: Set<string>,
  stack: readonly string[],
): string {
  return text
    .split('\n')
    .map((line, i) => {
      const m = INCLUDE.exec(line);
      if (!m) return line;
      const name = m[1] as string;
      if (!NAME.test(name)) throw new LuaLoadError(`${where}:${i + 1}: bad include name ${JSON.stringify(name)}`);
      if (stack.includes(name)) throw new LuaLoadError(`${where}: include cycle ${[...stack, name].join(' → ')}`);
      if (done.has(name)) return `-- (${name}: included above)`;
      const url = new URL(`includes/${name}.lua`, base);
      const sharedUrl = new URL(`includes/${name}.lua`, SHARED_DIR);
      let included: string;
      try {
        included = read(url);
      } catch (err) {
        try {
          included = read(sharedUrl);
        } catch {
          throw new LuaLoadError(
            `${where}:${i + 1}: include ${name} not found (${url.pathname}, nor ${sharedUrl.pathname})`,
            { cause: err },
          );
        }
      }
      const expanded = expand(included, `includes/${name}.lua`, base, read, done, [...stack, name]);
      done.add(name);
      return expanded.replace(/\n$/, '');
    })
    .join('\n');
}

function readLuaFile(url: URL): string {
  if (!existsSync(url)) throw new LuaLoadError(`Lua file missing: ${url.pathname}`);
  return readFileSync(url, 'utf8');
}
