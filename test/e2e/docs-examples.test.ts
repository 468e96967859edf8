// Every runnable example in README.md and docs/ (```sh runnable blocks: test/helpers/docs/runnable-blocks.ts) is
// run as a user would type it, so the docs cannot drift from the command. The blocks of one file run in order, in
// one working folder, each in its own `bash -euo pipefail`, with:
//   - `fleetq` on PATH: the compiled command (`npm run build`, dist/functions/cli.js), as `npm install -g` installs
//     it, and the sandbox's `kubectl`;
//   - fleet.yaml in the working folder: a registry of one cluster, `sandbox-1` (the sandbox cluster fleetq-2), owning
//     ConfigMap (the example mirror, which writes nowhere without allowedNamespaces), and KUBECONFIG for it;
//   - REDIS_URL (the real Redis) and a queue of the test's own (FLEETQ_QUEUE), removed after.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { waitFor } from '../../infra/sandbox/process.js';
import { ensureBuild, ROOT } from '../helpers/build.js';
import { deleteQueueKeys } from '../helpers/queue/redis.js';
import { runnableBlocks, type RunnableBlock } from '../helpers/docs/runnable-blocks.js';
import { kubectlPath, sandboxCluster } from '../helpers/sandbox/clusters.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** A block that runs longer is a hung example. */
const BLOCK_TIMEOUT_MS = 90_000;

/** README.md and every Markdown file under docs/. */
function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
    );
  return ['README.md', ...walk('docs')];
}

type Outcome = { readonly code: number | null; readonly output: string };

/** Runs one block in bash; an `until` block is stopped with SIGINT (its process group) once its output has the text. */
async function runBlock(block: RunnableBlock, cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', block.script], { cwd, env, detached: true });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  try {
    const until = block.until;
    if (until !== undefined) {
      await waitFor(async () => output.includes(until) || done, BLOCK_TIMEOUT_MS, 100, `${block.at}: "${until}"`);
      if (!done && child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
    }
    await waitFor(async () => done, BLOCK_TIMEOUT_MS, 100, `${block.at} to exit`);
  } catch (err) {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    return { code: null, output: `${output}\n${err instanceof Error ? err.message : String(err)}` };
  }
  return { code: await exited, output };
}

describe('the docs examples', () => {
  const queue = `docs-${randomUUID().slice(0, 8)}`;
  let work: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // The installed command: compiled JavaScript run by plain node, no TypeScript loader.
    const cli = await ensureBuild();
    work = mkdtempSync(join(tmpdir(), 'fleetq-docs-'));
    const bin = join(work, '.bin');
    mkdirSync(bin);
    symlinkSync(cli, join(bin, 'fleetq'));
    chmodSync(cli, 0o755);
    symlinkSync(kubectlPath(), join(bin, 'kubectl'));
    const c = await sandboxCluster('fleetq-2');
    copyFileSync(c.state.kubeconfig, join(work, 'kubeconfig'));
    writeFileSync(
      join(work, 'fleet.yaml'),
      stringify({ clusters: [{ name: 'sandbox-1', kubeconfig: 'kubeconfig', owns: ['ConfigMap'] }] }),
    );
    env = {
      ...process.env,
      NODE_OPTIONS: '',
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      KUBECONFIG: join(work, 'kubeconfig'),
      REDIS_URL,
      FLEETQ_QUEUE: queue,
      FLEETQ_DATA_DIR: join(work, '.fleetq'),
    };
  });
  afterAll(async () => {
    await deleteQueueKeys(REDIS_URL, queue).catch(() => undefined);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const files = docFiles().map((file) => ({
    file,
    blocks: runnableBlocks(readFileSync(join(ROOT, file), 'utf8'), file),
  }));

  it('finds runnable examples in README.md and docs/operations.md', () => {
    const count = (f: string): number => files.find((x) => x.file === f)?.blocks.length ?? 0;
    expect(count('README.md')).toBeGreaterThan(0);
    expect(count(join('docs', 'operations.md'))).toBeGreaterThan(0);
  });

  for (const { file, blocks } of files.filter((f) => f.blocks.length > 0)) {
    it(`runs the examples of ${relative('.', file)} (${blocks.length})`, async () => {
      for (const block of blocks) {
        const outcome = await runBlock(block, work, env);
        if (outcome.code !== block.exit) {
          const tail = outcome.output.split('\n').slice(-30).join('\n');
          throw new Error(
            `${block.at}: exited ${outcome.code}, the docs say ${block.exit}\n$ ${block.script}\n${tail}`,
          );
        }
        expect(outcome.code).toBe(block.exit);
      }
    });
  }
});
