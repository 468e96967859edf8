// `fleetq replay shadow` over the recorded logs (events/logs/*.jsonl, captured from sandbox runs), from a file
// and from a real Redis stream: this build against itself differs nowhere; a changed Deployment planner (a
// fixture module, as another commit's build would be given) differs exactly at the expected events. Builds given
// as git refs of this repository (worktrees under .cache/shadow-builds) and as a sibling checkout without
// node_modules; a log with no record and a kind that does not exist are refused.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../shared/runtime/config.js';
import type { LogRecord } from '../../shared/queue/history/log-record.js';
import { readLogFile } from '../../shared/replay/log-file.js';
import { importLog } from '../../shared/replay/log-import.js';
import { openLogStore } from '../../shared/replay/log-store.js';
import { BUILDS_DIR } from '../../shared/replay/shadow-build.js';
import { loadControllers, shadow, type ShadowReport } from '../../shared/replay/shadow.js';
import '../helpers/long-timeout.js';
import { redisClient, testQueueName } from '../helpers/queue/redis.js';

const execFileP = promisify(execFile);
const LOGS = 'events/logs';
const ROLLOUT = join(LOGS, 'rollout-scale.jsonl');
const OWNS = new Set(['Deployment', 'ReplicaSet']);
const FIXTURES = 'test/unit/replay/fixtures';

/** `fleetq replay shadow ARGS` in a process of its own; its exit code and output, whatever the code. */
async function fleetqShadow(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return execFileP(process.execPath, ['--import', 'tsx', 'functions/cli.ts', 'replay', 'shadow', ...args], {
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    (out) => ({ code: 0, ...out }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

const git = async (...args: string[]): Promise<string> => (await execFileP('git', args)).stdout.trim();

/** The Deployment planner of a checkout changed the way fixtures/deployment-at-seven.ts changes it. */
const AT_SEVEN = `
const BASE = DESCRIPTORS.controllers();
const deployment = BASE.get('Deployment')!;
type AtSeven = { readonly deployment?: { readonly spec?: { readonly replicas?: number } } | null };
export const CONTROLLERS: ReadonlyMap<string, Controller> = new Map([
  ...BASE,
  [
    'Deployment',
    {
      ...deployment,
      kind: deployment.kind,
      observe: (view, key, now) => deployment.observe(view, key, now),
      plan(observed, now) {
        if ((observed as AtSeven).deployment?.spec?.replicas !== 7) return deployment.plan(observed, now);
        try {
          const r = deployment.plan(observed, now);
          return { ...r, requeueAfter: (r.requeueAfter ?? 0) + 1 };
        } catch {
          return { actions: [], requeueAfter: 1 };
        }
      },
    } satisfies Controller,
  ],
]);
`;

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('replay shadow', () => {
  const redis = redisClient();
  afterAll(async () => redis.quit());

  it.each(readdirSync(LOGS).filter((f) => f.endsWith('.jsonl')))(
    'this build against itself: no difference on %s',
    async (file) => {
      const current = await loadControllers('current');
      // Every kind this build has a controller for (the Job storm and the DaemonSet log need theirs).
      const owns = new Set(current.keys());
      const report = await shadow(readLogFile(join(LOGS, file)), { owns, a: current, b: current });
      expect(report.differences).toEqual([]);
      expect(report.differing).toBe(0);
      expect(report.acting).toBeGreaterThan(10); // the planners did decide things
    },
  );

  it('a changed Deployment planner differs exactly at the events after the scale to 7', async () => {
    const current = await loadControllers('current');
    const run = async (fixture: string): Promise<ShadowReport> =>
      shadow(readLogFile(ROLLOUT), { owns: OWNS, a: current, b: await loadControllers(join(FIXTURES, fixture)) });
    // Where the Deployment was decided at all (every such decision differs under this fixture) …
    const all = await run('deployment-always.ts');
    expect(new Set(all.differences.map((d) => d.key))).toEqual(new Set(['upstream-1/Deployment/rollout/web']));
    // … and the spec.replicas the log held at each event, read from the log itself.
    const records: LogRecord[] = await collect(readLogFile(ROLLOUT));
    let replicas = 0;
    const replicasAt = records.map((r) => {
      if (r.resource === 'deployments') replicas = (r.object as { spec: { replicas: number } }).spec.replicas;
      return replicas;
    });
    const want = all.differences.map((d) => d.event.index).filter((i) => replicasAt[i] === 7);
    const firstAtSeven = replicasAt.indexOf(7);

    const atSeven = await run('deployment-at-seven.ts');
    expect(atSeven.differences.map((d) => d.event.index)).toEqual(want);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(all.differences.length);
    // The first difference names the event that scaled the Deployment.
    expect(atSeven.differences[0]?.event).toMatchObject({
      index: firstAtSeven,
      type: 'MODIFIED',
      resource: 'deployments',
      name: 'rollout/web',
    });
  });

  it('reads a Redis stream the same way, and the command exits 1 on a difference', async () => {
    const name = testQueueName();
    const store = openLogStore('redis', loadConfig({ FLEETQ_QUEUE: name }));
    try {
      await importLog(readLogFile(ROLLOUT), store);
      const current = await loadControllers('current');
      const fromStream = await shadow(store.read('upstream-1', 0, Number.MAX_SAFE_INTEGER), {
        owns: OWNS,
        a: current,
        b: await loadControllers(join(FIXTURES, 'deployment-at-seven.ts')),
      });
      const fromFile = await shadow(readLogFile(ROLLOUT), {
        owns: OWNS,
        a: current,
        b: await loadControllers(join(FIXTURES, 'deployment-at-seven.ts')),
      });
      expect(fromStream).toEqual(fromFile);

      const cli = await execFileP(
        process.execPath,
        [
          '--import',
          'tsx',
          'functions/cli.ts',
          'replay',
          'shadow',
          '--log',
          ROLLOUT,
          '--owns',
          'Deployment,ReplicaSet',
          '--b',
          join(FIXTURES, 'deployment-at-seven.ts'),
          '-o',
          'json',
        ],
        { env: { ...process.env, NODE_OPTIONS: '' }, timeout: 240_000 },
      ).then(
        () => ({ code: 0, stdout: '' }),
        (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
      );
      expect(cli.code).toBe(1);
      expect((JSON.parse(cli.stdout) as ShadowReport).differences).toEqual(fromFile.differences);
    } finally {
      await store.close();
      const keys = await redis.keys(`fleetq:{fleetq:${name}}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  });

  it('takes git refs and a checkout without node_modules: HEAD agrees, a changed commit differs where the fixture does', async () => {
    const current = await loadControllers('current');
    const want = (
      await shadow(readLogFile(ROLLOUT), {
        owns: OWNS,
        a: current,
        b: await loadControllers(join(FIXTURES, 'deployment-at-seven.ts')),
      })
    ).differences.map((d) => d.event.index);
    expect(want.length).toBeGreaterThan(0);

    const head = await git('rev-parse', 'HEAD');
    const sibling = await mkdtemp(join(tmpdir(), 'fleetq-shadow-sibling-'));
    const made = [join(BUILDS_DIR, head), sibling];
    try {
      const same = await fleetqShadow('--log', ROLLOUT, '--owns', 'Deployment,ReplicaSet', '--b', 'HEAD');
      expect(same.stdout).toMatch(/, 0 difference\(s\)$/m);
      expect(same.code).toBe(0);
      expect(existsSync(join(BUILDS_DIR, head, 'shared', 'controllers', 'index.ts'))).toBe(true);

      // Another commit: a checkout of HEAD whose Deployment planner decides differently at 7 replicas.
      await git('worktree', 'add', '--detach', '--force', sibling, 'HEAD');
      const index = join(sibling, 'shared', 'controllers', 'index.ts');
      const text = await readFile(index, 'utf8');
      const line = 'export const CONTROLLERS: ReadonlyMap<string, Controller> = DESCRIPTORS.controllers();';
      expect(text).toContain(line);
      await writeFile(index, text.replace(line, AT_SEVEN));
      await git(
        '-C',
        sibling,
        '-c',
        'user.name=fleetq test',
        '-c',
        'user.email=test@fleetq.invalid',
        'commit',
        '-q',
        '-am',
        'Deployment decides differently at 7 replicas',
      );
      const changed = await git('-C', sibling, 'rev-parse', 'HEAD');
      made.push(join(BUILDS_DIR, changed));

      const byRef = await fleetqShadow(
        '--log',
        ROLLOUT,
        '--owns',
        'Deployment,ReplicaSet',
        '--b',
        changed,
        '-o',
        'json',
      );
      expect(byRef.code).toBe(1);
      expect(byRef.stderr).toContain(`made a worktree of ${changed.slice(0, 12)}`);
      const report = JSON.parse(byRef.stdout) as ShadowReport;
      expect(report.differences.map((d) => d.event.index)).toEqual(want);
      expect(report.byKindAction.map((r) => r.kind)).toEqual(['Deployment', 'Deployment']);
      expect(report.differences[0]?.changes).toEqual([{ path: 'requeueAfter', b: 1 }]);

      // The same checkout by a relative path (README's `--b ../old/`): it has no node_modules; this one's is linked.
      const byPath = await fleetqShadow(
        '--log',
        ROLLOUT,
        '--owns',
        'Deployment,ReplicaSet',
        '--b',
        relative(process.cwd(), sibling),
        '--max-diffs',
        '1',
      );
      expect(byPath.stderr).toContain('had no node_modules: linked');
      expect(byPath.code).toBe(1);
      expect(byPath.stdout.match(/^@@ /gm)).toHaveLength(1);
      expect(byPath.stdout).toContain(`+ requeueAfter: 1`);
      expect(byPath.stdout).toMatch(new RegExp(`… ${want.length - 1} more differing decision\\(s\\) not printed`));
      expect(byPath.stdout).toMatch(/│ Deployment\s+│ requeueAfter\s+│ \d+\s+│/);
      expect(byPath.stderr).toContain(`fleetq: ${want.length} decision(s) differ`);
    } finally {
      for (const dir of made)
        await git('worktree', 'remove', '--force', dir).catch(() => rm(dir, { recursive: true, force: true }));
      await git('worktree', 'prune');
    }
  });

  it('refuses a log with no record (empty, binary, not a log), an unknown kind and an unknown ref', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetq-shadow-bad-'));
    try {
      const empty = join(dir, 'empty.jsonl');
      const binary = join(dir, 'binary.jsonl');
      const text = join(dir, 'notes.txt');
      await writeFile(empty, '');
      await writeFile(binary, Buffer.from([0x7b, 0x22, 0x00, 0xff]));
      await writeFile(text, 'not\na log\n');
      const runs = await Promise.all([
        fleetqShadow('--log', empty, '--b', 'current'),
        fleetqShadow('--log', binary, '--b', 'current'),
        fleetqShadow('--log', text, '--b', 'current'),
        fleetqShadow('--log', ROLLOUT, '--b', 'current', '--owns', 'Deployment,Replicaset'),
        fleetqShadow('--log', ROLLOUT, '--b', 'no-such-ref-xyz'),
      ]);
      expect(runs.map((r) => r.code)).toEqual([1, 1, 1, 2, 2]);
      expect(runs[0]?.stderr).toContain(`fleetq: ${empty}: empty file, no log records`);
      expect(runs[1]?.stderr).toContain(`fleetq: ${binary}: a binary file (a NUL byte at offset 2)`);
      expect(runs[2]?.stderr).toContain(`fleetq: ${text}: no readable log records (2 line(s) are not log records`);
      expect(runs[3]?.stderr).toContain(
        '--owns "Replicaset": not a valid kind; did you mean ReplicaSet? (valid: Deployment, ReplicaSet,',
      );
      expect(runs[4]?.stderr).toContain('--b "no-such-ref-xyz" is neither a path');
      for (const r of runs) expect(r.stdout).not.toContain('difference(s)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
