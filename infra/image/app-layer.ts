// The image's app layer: /app holding what the npm package holds (package.json and the compiled dist/functions and
// dist/shared, `npm run build`) and the production dependencies, installed by `npm ci --omit=dev` from the
// lockfile into a staging folder that is kept while the lockfile does not change. Owned by root and read-only to
// the user the image runs as.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  renameSync,
} from 'node:fs';
import { join, posix } from 'node:path';
import { APP_DIR, APP_PATHS } from './image-spec.js';
import type { TarEntry } from './tar.js';

/** The files npm ci reads: a change to any of them means other dependencies. */
const INSTALL_INPUTS = ['package.json', 'package-lock.json', '.npmrc'] as const;

/** What the installed dependencies depend on: the lockfile and package.json's dependency fields, and npm's settings. */
export function dependenciesKey(root: string): string {
  const hash = createHash('sha256');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  hash.update(JSON.stringify([pkg.dependencies, pkg.overrides]));
  hash.update(readFileSync(join(root, 'package-lock.json')));
  hash.update(readFileSync(join(root, '.npmrc')));
  return hash.digest('hex').slice(0, 16);
}

/**
 * The production node_modules for this lockfile: `npm ci --omit=dev --ignore-scripts` in a staging folder under
 * `cacheDir` (reused while the key is the same). --prefer-offline: the npm cache CI's own `npm ci` filled serves
 * every package it can, so a warm machine needs no network. Install scripts stay off, as package.json's
 * allowScripts has them for the development install.
 */
export function productionModules(root: string, cacheDir: string, log: (line: string) => void): string {
  const staged = join(cacheDir, `production-modules-${dependenciesKey(root)}`);
  if (existsSync(join(staged, 'node_modules'))) {
    log(`production node_modules: reused ${staged}`);
    return join(staged, 'node_modules');
  }
  const partial = `${staged}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  for (const file of INSTALL_INPUTS) copyFileSync(join(root, file), join(partial, file));
  log('npm ci --omit=dev (production node_modules, kept for the next build while the lockfile is unchanged)');
  execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: partial,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (const old of readdirSync(cacheDir).filter((n) => /^production-modules-[0-9a-f]+$/.test(n))) {
    rmSync(join(cacheDir, old), { recursive: true, force: true });
  }
  renameSync(partial, staged);
  return join(staged, 'node_modules');
}

/** The files of a folder as entries below `at` (modes normalized to 0644/0755, owner root). */
export function treeEntries(from: string, at: string): TarEntry[] {
  const out: TarEntry[] = [];
  const walk = (dir: string, rel: string): void => {
    out.push({ type: 'dir', path: posix.join(at, rel), mode: 0o755 });
    for (const name of readdirSync(dir).sort()) {
      const onDisk = join(dir, name);
      const path = posix.join(at, rel, name);
      const stat = lstatSync(onDisk);
      if (stat.isDirectory()) walk(onDisk, posix.join(rel, name));
      else if (stat.isSymbolicLink()) out.push({ type: 'symlink', path, target: readlinkSync(onDisk) });
      else if (stat.isFile())
        out.push({ type: 'file', path, mode: stat.mode & 0o111 ? 0o755 : 0o644, data: readFileSync(onDisk) });
    }
  };
  walk(from, '');
  return out;
}

/** Every entry of the app layer: APP_PATHS below APP_DIR, node_modules from the staging folder. */
export function appLayerEntries(root: string, nodeModules: string): TarEntry[] {
  const entries: TarEntry[] = [{ type: 'dir', path: APP_DIR, mode: 0o755 }];
  for (const rel of APP_PATHS) {
    const from = rel === 'node_modules' ? nodeModules : join(root, rel);
    const at = posix.join(APP_DIR, rel);
    if (!existsSync(from)) throw new Error(`${rel} is missing: run npm run build first`);
    if (lstatSync(from).isDirectory()) {
      for (let dir = posix.dirname(at); dir !== APP_DIR && dir !== '/'; dir = posix.dirname(dir)) {
        if (!entries.some((e) => e.path === dir)) entries.push({ type: 'dir', path: dir, mode: 0o755 });
      }
      entries.push(...treeEntries(from, at));
    } else {
      entries.push({ type: 'file', path: at, mode: 0o644, data: readFileSync(from) });
    }
  }
  return entries;
}
