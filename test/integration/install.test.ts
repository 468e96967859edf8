// The `fleetq` command as a user installs it: `npm run build` (test/helpers/build.ts: once per source change),
// `npm pack`, `npm install -g` of the tarball into a temporary prefix, then the installed bin run by plain `node`
// (its #! line), with no TypeScript loader and nothing of this checkout on the way. Asserts what is not timing:
// exit codes, output, the package's file list, and that `fleetq --help` and `fleetq version` load no client library
// (the start-up time itself is test/bench/cli-startup.ts's figure).
//
// The install resolves the package's dependencies the way npm does for any user, with --prefer-offline: the npm
// cache CI's `npm ci` filled answers every request it can (packuments and tarballs), so on a warm machine it needs no
// network. --offline would fail on a cache without the packument of a dependency `npm ci` never asked for by name
// (the lockfile has no `resolved` URLs, so npm ci fetches packuments; a dependency added since may be missing).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { runtimeFiles } from '../../infra/build/dist.js';
import { REPO_ROOT } from '../../infra/build/lua-files.js';
import { packageInfo } from '../../infra/image/image-spec.js';
import { ensureBuild } from '../helpers/build.js';

const execFileP = promisify(execFile);

type Run = { code: number; stdout: string; stderr: string };

/** Runs a command to its end; a non-zero exit is a result, not an exception. */
async function run(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return execFileP(file, args, { cwd: options.cwd, env: options.env, timeout: 300_000, maxBuffer: 64 << 20 }).then(
    ({ stdout, stderr }): Run => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }): Run => ({
      code: typeof err.code === 'number' ? err.code : -1,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

/**
 * A --import hook recording every module a process loads (ES and CommonJS, through module.registerHooks) into the
 * file FLEETQ_LOADED_MODULES names, one URL a line.
 */
const RECORD_LOADS =
  'data:text/javascript,' +
  encodeURIComponent(
    "import { registerHooks } from 'node:module'; import { appendFileSync } from 'node:fs';" +
      'registerHooks({ load(url, context, next) { appendFileSync(process.env.FLEETQ_LOADED_MODULES, url + "\\n");' +
      ' return next(url, context); } });',
  );

describe('fleetq installed from its npm package', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetq-install-'));
  const prefix = join(work, 'prefix');
  const bin = join(prefix, 'bin', 'fleetq');
  const { version } = packageInfo();
  /**
   * The user's environment as a shell has it: no node_modules/.bin on PATH (no tsx), the Node CI runs (the one
   * running this test) and system tools, no NODE_OPTIONS, and none of the npm_* variables `npm test` sets for its
   * scripts (a child npm would read them as its configuration). The rest stays: a machine whose registry is
   * reached through its own CA (NODE_EXTRA_CA_CERTS) hung `npm install` for minutes without it.
   */
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_OPTIONS')),
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    NODE_OPTIONS: '',
  };
  let packed: { filename: string; files: Array<{ path: string; mode: number }> };

  beforeAll(async () => {
    await ensureBuild();
    const pack = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO_ROOT });
    expect(pack).toMatchObject({ code: 0 });
    [packed] = JSON.parse(pack.stdout) as [typeof packed];
    const install = await run(
      'npm',
      // Bounded, so that a registry that does not answer fails here with npm's own words, not the hook's time-out.
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--fetch-timeout=60000',
        '--fetch-retries=1',
        '--no-audit',
        '--no-fund',
        join(work, packed.filename),
      ],
      { cwd: work, env: { ...env, npm_config_cache: process.env.npm_config_cache } },
    );
    if (install.code !== 0) throw new Error(`npm install -g failed:\n${install.stderr}`);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('packs the compiled command, the handlers and the Lua scripts, no sources and no Lambda bundles', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toContain('package.json');
    expect(paths).toContain('dist/functions/cli.js');
    expect(paths).toContain('dist/functions/worker.js');
    // The files read at run time (Lua scripts, the web view's page) beside the compiled modules.
    const assets = runtimeFiles();
    expect(assets.filter((f) => f.endsWith('.lua')).length).toBeGreaterThan(0);
    expect(assets.filter((f) => !paths.includes(`dist/${f}`))).toEqual([]);
    const unexpected = paths.filter(
      (p) =>
        !p.endsWith('.js') && !assets.includes(p.replace(/^dist\//, '')) && !['package.json', 'README.md'].includes(p),
    );
    expect(unexpected).toEqual([]);
    expect(
      paths.filter((p) => !/^dist\/(functions|shared)\//.test(p) && !['package.json', 'README.md'].includes(p)),
    ).toEqual([]);
    expect(packed.files.find((f) => f.path === 'dist/functions/cli.js')?.mode).toBe(0o755);
  });

  it('installs a `fleetq` bin: the compiled cli.js, with its #!/usr/bin/env node line, executable', () => {
    expect(lstatSync(bin).isSymbolicLink()).toBe(true);
    const target = realpathSync(bin);
    expect(target).toBe(join(prefix, 'lib', 'node_modules', 'fleetq', 'dist', 'functions', 'cli.js'));
    expect(readlinkSync(bin)).toBe('../lib/node_modules/fleetq/dist/functions/cli.js');
    expect(readFileSync(target, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(statSync(target).mode & 0o111).toBe(0o111);
  });

  it('prints help and the version, with plain node', async () => {
    const help = await run(bin, ['--help'], { cwd: work, env });
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: fleetq \[options\] \[command\]/);
    expect(help.stdout).toContain('fleetq COMMAND --help');

    const text = await run(bin, ['version'], { cwd: work, env });
    expect(text).toEqual({
      code: 0,
      stdout: `fleetq ${version} (Node.js ${process.versions.node}, linux/x64)\n`,
      stderr: '',
    });
    const json = await run(bin, ['version', '-o', 'json'], { cwd: work, env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ fleetq: version, node: process.versions.node, platform: 'linux/x64' });
  });

  it('refuses a misspelt command with exit 2 and a suggestion', async () => {
    const typo = await run(bin, ['stauts'], { cwd: work, env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'stauts'");
    expect(typo.stderr).toContain('Did you mean status?');
  });

  it('shows a subcommand group’s help: fleetq dlq --help', async () => {
    const dlq = await run(bin, ['dlq', '--help'], { cwd: work, env });
    expect(dlq).toMatchObject({ code: 0, stderr: '' });
    expect(dlq.stdout).toMatch(/^Usage: fleetq dlq/);
  });

  it('runs through npx from the install prefix', async () => {
    const npx = await run('npx', ['--no-install', 'fleetq', 'version'], {
      cwd: work,
      env: { ...env, npm_config_prefix: prefix },
    });
    expect(npx).toMatchObject({ code: 0, stdout: `fleetq ${version} (Node.js ${process.versions.node}, linux/x64)\n` });
  });

  it.each([['--help'], ['version']])(
    'fleetq %s loads no Kubernetes, Redis or AWS client, no TypeScript loader, nothing outside the install',
    async (arg) => {
      const record = join(work, `loaded-${arg.replace(/\W/g, '')}.txt`);
      const result = await run(process.execPath, ['--import', RECORD_LOADS, bin, arg], {
        cwd: work,
        env: { ...env, FLEETQ_LOADED_MODULES: record },
      });
      expect(result.code).toBe(0);
      const loaded = readFileSync(record, 'utf8').trim().split('\n');
      const files = loaded.filter((u) => u.startsWith('file:'));
      expect(files).toContain(`file://${join(prefix, 'lib', 'node_modules', 'fleetq', 'dist', 'functions', 'cli.js')}`);
      expect(files.filter((u) => !u.startsWith(`file://${prefix}/`))).toEqual([]);
      expect(files.filter((u) => /node_modules\/(@kubernetes|ioredis|@aws-sdk|@smithy|tsx|esbuild)\//.test(u))).toEqual(
        [],
      );
    },
  );
});
