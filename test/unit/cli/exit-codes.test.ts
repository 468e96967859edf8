// The exit codes every command shares (docs/operations.md "The command"): 0 done, 1 failed, 2 bad usage.
import { execFile } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';

const CLI = new URL('../../../functions/cli.ts', import.meta.url).pathname;

function fleetq(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI, ...args],
      { env: { ...process.env, NODE_OPTIONS: '', FLEETQ_DRIVER: '' } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
  });
}

describe('fleetq exit codes', () => {
  it('0 for help and version, on the program and on a subcommand', async () => {
    const cases = [['--help'], ['dlq', '--help'], ['dlq', 'redrive', '--help'], ['help', 'run'], ['version']];
    const results = await Promise.all(cases.map((args) => fleetq(...args)));
    expect(results.map((r, i) => ({ args: cases[i], code: r.code }))).toEqual(cases.map((args) => ({ args, code: 0 })));
    expect(results[2]?.stdout).toContain('Examples:');
  }, 60_000);

  it('2 for bad usage, with the nearest name', async () => {
    const unknown = await fleetq('stauts');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('(Did you mean status?)');
    const flag = await fleetq('run', '--registy', 'fleet.yaml');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('(Did you mean --registry?)');
    const value = await fleetq('run', '--registry', 'fleet.yaml', '--concurrency', 'abc');
    expect(value.code).toBe(2);
    expect(value.stderr).toContain('--concurrency "abc"');
    expect(value.stderr).not.toContain('FLEETQ_CONCURRENCY');
    expect((await fleetq()).code).toBe(2);
  }, 60_000);

  it('1 for a command that failed', async () => {
    const r = await fleetq('status', '--driver', 'memory');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('fleetq: status needs a shared store');
  }, 60_000);
});
