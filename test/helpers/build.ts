// The compiled command (`npm run build` into dist/) for tests that run fleetq as it is installed: built once per
// change of the sources, whichever test asks first; the others (two Jest workers at once) wait on the same lock.
import { execFile } from 'node:child_process';
import { closeSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../../infra/sandbox/process.js';

const execFileP = promisify(execFile);
export const ROOT = new URL('../..', import.meta.url).pathname;
/** The installed command's entry point (package.json bin). */
export const CLI_JS = join(ROOT, 'dist/functions/cli.js');
const LOCK = join(ROOT, 'dist.build.lock');

/**
 * The newest modification time of what `npm run build` reads: every file under functions/ and shared/ (modules, Lua
 * scripts, the web view's page), the build script and its settings.
 */
function newestSource(): number {
  let newest = Math.max(
    ...['package.json', 'tsconfig.json', 'tsconfig.build.json', 'infra/build/dist.ts'].map(
      (f) => statSync(join(ROOT, f)).mtimeMs,
    ),
  );
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(join(ROOT, path)).mtimeMs);
    }
  };
  for (const dir of ['functions', 'shared']) walk(dir);
  return newest;
}

const fresh = (): boolean => {
  try {
    return statSync(CLI_JS).mtimeMs >= newestSource();
  } catch {
    return false;
  }
};

/** Runs `npm run build` unless dist/ is newer than every source; returns the compiled CLI's path. */
export async function ensureBuild(): Promise<string> {
  if (fresh()) return CLI_JS;
  let fd: number | undefined;
  await waitFor(
    async () => {
      try {
        fd = openSync(LOCK, 'wx');
        return true;
      } catch {
        // another test builds: done when the lock is gone (a lock older than 10 min is a dead build's)
        try {
          if (Date.now() - statSync(LOCK).mtimeMs > 600_000) rmSync(LOCK, { force: true });
        } catch {
          // removed meanwhile
        }
        return false;
      }
    },
    600_000,
    500,
    'the build lock (dist.build.lock)',
  );
  try {
    if (!fresh()) await execFileP('npm', ['run', '--silent', 'build'], { cwd: ROOT, timeout: 600_000 });
  } finally {
    if (fd !== undefined) closeSync(fd);
    rmSync(LOCK, { force: true });
  }
  return CLI_JS;
}
