// The Lua scripts' files (shared/**/lua/**/*.lua) are read at run time by shared/lua/lua-loader.ts, so
// every build that moves the code copies them along, laid out as in the sources: `npm run build` beside the
// compiled modules in dist/, infra/lambda/build.ts into each function's directory.
//   npx tsx infra/build/lua-files.ts dist       # copies them to dist/shared/…
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The loader module, relative to the repository (its location fixes where it looks for the files). */
export const LUA_LOADER_MODULE = 'shared/lua/lua-loader.ts';

/** Every .lua file under shared/, relative to the repository root, with `/` separators, sorted. */
export async function listLuaFiles(root = REPO_ROOT): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string): Promise<void> {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && entry.name.endsWith('.lua')) found.push(relative(root, path).split(sep).join('/'));
    }
  }
  await walk(join(root, 'shared'));
  return found.sort();
}

/** Copies every .lua file under shared/ to the same relative path under `destRoot`; returns their paths. */
export async function copyLuaFiles(destRoot: string, root = REPO_ROOT): Promise<string[]> {
  const files = await listLuaFiles(root);
  for (const file of files) {
    const to = join(destRoot, file);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(join(root, file), to);
  }
  return files;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dest = process.argv[2];
  if (dest === undefined) {
    process.stderr.write('usage: tsx infra/build/lua-files.ts <destination root, e.g. dist>\n');
    process.exit(2);
  }
  copyLuaFiles(join(process.cwd(), dest)).then(
    (files) => process.stdout.write(`lua: ${files.length} files copied to ${dest}\n`),
    (err: unknown) => {
      process.stderr.write(`lua copy: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
