// `npm run build`: the compiled command line and handlers in dist/, as the npm package and the container image ship
// them. It empties dist/functions and dist/shared (a module whose source was deleted must not linger in a package),
// compiles functions/ and shared/ with tsconfig.build.json, copies every other file of those folders beside the
// compiled modules, laid out as in the sources (files read at run time: the Lua scripts, shared/lua/lua-loader.ts;
// the web view's page, shared/ops/ui/page/), and makes the `fleetq` bin executable, so `node dist/functions/cli.js`
// and `./dist/functions/cli.js` both run it. dist/lambda (infra/lambda/build.ts) is left alone.
//   npx tsx infra/build/dist.ts
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './lua-files.js';

export const DIST = join(REPO_ROOT, 'dist');

/** The compiled trees the package and the image hold (dist/<name>). */
export const DIST_TREES = ['functions', 'shared'] as const;

/** The `fleetq` command, relative to the package root (package.json `bin`). */
export const CLI_BIN = 'dist/functions/cli.js';

/** The files of functions/ and shared/ that tsc does not compile (all but *.ts), relative to the repository, sorted. */
export function runtimeFiles(root = REPO_ROOT): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && !entry.name.endsWith('.ts')) found.push(relative(root, path).split(sep).join('/'));
    }
  };
  for (const tree of DIST_TREES) walk(join(root, tree));
  return found.sort();
}

export async function buildDist(log: (line: string) => void = () => undefined): Promise<void> {
  for (const tree of DIST_TREES) rmSync(join(DIST, tree), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  log('tsc -p tsconfig.build.json');
  execFileSync(process.execPath, [tsc, '-p', join(REPO_ROOT, 'tsconfig.build.json')], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  const files = runtimeFiles();
  for (const file of files) {
    mkdirSync(dirname(join(DIST, file)), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), join(DIST, file));
  }
  log(`${files.length} files besides the modules copied (${files.filter((f) => f.endsWith('.lua')).length} Lua)`);
  const bin = join(REPO_ROOT, CLI_BIN);
  if (!readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')) {
    throw new Error(`${CLI_BIN} lost its #!/usr/bin/env node line: functions/cli.ts must start with it`);
  }
  chmodSync(bin, 0o755);
  log(`${CLI_BIN}: executable`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildDist((line) => process.stdout.write(`build: ${line}\n`)).catch((err: unknown) => {
    process.stderr.write(`build: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
