// The builds `replay shadow` compares (--a, --b): `current` (this checkout's controllers), a path, or a git ref
// of this checkout's repository. Each must give a module that exports CONTROLLERS, a map of kind → Controller
// (shared/controllers/controller.ts).
//   - A path (relative to the working directory): a module, or a directory holding shared/controllers/index.{js,ts}
//     (a checkout or build of another commit). A checkout without node_modules could not load its imports
//     (`Cannot find package 'cron-parser'`): this checkout's node_modules is linked into it, and that is said.
//   - A git ref (HEAD~3, a tag, a sha): a worktree of that commit, detached, under .cache/shadow-builds/<sha>
//     (gitignored, reused when present), with this checkout's node_modules linked into it. Its TypeScript is
//     loaded by the Node (and tsx) running this command.
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, statSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Controller } from '../controllers/controller.js';
import { CONTROLLERS } from '../controllers/index.js';

export type Controllers = ReadonlyMap<string, Controller>;

const execFileP = promisify(execFile);

/** The checkout this code runs from. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where worktrees of git refs are kept, one per commit. */
export const BUILDS_DIR = join(REPO_ROOT, '.cache', 'shadow-builds');

/** A build spec that names neither a path nor a commit: the caller's flag names it. */
export class BuildSpecError extends Error {
  override name = 'BuildSpecError';
}

/** What was done to load a build, for the operator (a worktree made, node_modules linked). */
export type OnNote = (note: string) => void;

/** `current`, a module path, a directory with shared/controllers/index.{js,ts}, or a git ref. */
export async function loadControllers(spec: string, onNote: OnNote = () => undefined): Promise<Controllers> {
  if (spec === 'current') return CONTROLLERS;
  const path = resolve(spec);
  if (existsSync(path))
    return importControllers(spec, statSync(path).isDirectory() ? checkoutModule(spec, path, onNote) : path);
  const sha = await commitOf(spec);
  if (sha === undefined) {
    throw new BuildSpecError(
      `${JSON.stringify(spec)} is neither a path (no such file or directory in ${process.cwd()}) nor a git ref of ` +
        `${REPO_ROOT} (a branch, tag or commit, e.g. HEAD~1 or main)`,
    );
  }
  const dir = await worktreeOf(sha, onNote);
  return importControllers(`${spec} (${sha.slice(0, 12)})`, checkoutModule(spec, dir, onNote));
}

async function importControllers(what: string, path: string): Promise<Controllers> {
  const mod = (await import(pathToFileURL(path).href)) as { CONTROLLERS?: unknown };
  if (!(mod.CONTROLLERS instanceof Map)) throw new Error(`${what}: exports no CONTROLLERS map (kind → Controller)`);
  return mod.CONTROLLERS as Controllers;
}

/** The controllers module of a checkout directory, with node_modules made reachable from it. */
function checkoutModule(spec: string, dir: string, onNote: OnNote): string {
  const found = ['index.js', 'index.ts'].map((f) => join(dir, 'shared', 'controllers', f)).find(existsSync);
  if (!found) throw new BuildSpecError(`${spec}: a directory without shared/controllers/index.js or index.ts`);
  linkNodeModules(dir, onNote);
  return found;
}

/** Links this checkout's node_modules into `dir` when it has none (a fresh clone or worktree). */
function linkNodeModules(dir: string, onNote: OnNote): void {
  const target = join(dir, 'node_modules');
  const own = join(REPO_ROOT, 'node_modules');
  if (resolve(dir) === resolve(REPO_ROOT) || !existsSync(own)) return;
  let present = false;
  try {
    lstatSync(target);
    present = true;
  } catch {
    // none yet
  }
  if (present) return;
  symlinkSync(own, target, 'dir');
  onNote(`${dir} had no node_modules: linked ${own} into it`);
}

/** The full sha of `ref` in this checkout's repository, or undefined when it names no commit. */
async function commitOf(ref: string): Promise<string | undefined> {
  if (ref.startsWith('-')) return undefined;
  try {
    const { stdout } = await execFileP('git', ['-C', REPO_ROOT, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    const sha = stdout.trim();
    return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined;
  } catch {
    return undefined;
  }
}

/** A worktree of commit `sha` under BUILDS_DIR: made once, reused after. */
async function worktreeOf(sha: string, onNote: OnNote): Promise<string> {
  const dir = join(BUILDS_DIR, sha);
  if (existsSync(join(dir, 'shared', 'controllers'))) return dir;
  // A folder left by an interrupted add: git forgets it (prune), then it is made again.
  await execFileP('git', ['-C', REPO_ROOT, 'worktree', 'prune']);
  try {
    await execFileP('git', ['-C', REPO_ROOT, 'worktree', 'add', '--detach', '--force', dir, sha]);
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`git worktree add of ${sha} into ${dir} failed: ${stderr || String(err)}`, { cause: err });
  }
  onNote(`made a worktree of ${sha.slice(0, 12)} in ${dir} (reused next time; remove with git worktree remove)`);
  return dir;
}
