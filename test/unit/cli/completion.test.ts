// Shell completion (`fleetq completion`, omelette): the script a shell sources, and the words the command offers
// back when the shell asks (`fleetq --compbash --compgen N PREV LINE`), taken from the program's own definition.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

const execFileP = promisify(execFile);
const CLI = new URL('../../../functions/cli.ts', import.meta.url).pathname;
const fleetq = async (...args: string[]): Promise<string> =>
  (await execFileP(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...process.env, NODE_OPTIONS: '' } }))
    .stdout;
const words = (out: string): string[] => out.split('\n').filter((w) => w !== '');

describe('fleetq completion', () => {
  it('prints a bash/zsh script that asks fleetq for the words, and a fish one', async () => {
    const bash = await fleetq('completion');
    expect(bash).toContain('complete -F _fleetq_completion fleetq');
    expect(bash).toContain('fleetq --compbash --compgen');
    expect(await fleetq('completion', '--shell', 'fish')).toContain("complete -f -c fleetq -a '(_fleetq_completion)'");
  }, 60_000);

  it('offers the commands, the subcommands of a group and the flags of a command', async () => {
    const top = words(await fleetq('--compbash', '--compgen', '1', 'fleetq', 'fleetq '));
    expect(top).toEqual(
      expect.arrayContaining(['run', 'worker', 'doctor', 'status', 'dlq', 'describe', 'ui', 'version']),
    );
    expect(words(await fleetq('--compbash', '--compgen', '2', 'dlq', 'fleetq dlq '))).toEqual([
      'list',
      'show',
      'redrive',
    ]);
    expect(words(await fleetq('--compbash', '--compgen', '3', 'redrive', 'fleetq dlq redrive '))).toEqual(
      expect.arrayContaining(['--dry-run', '--kind', '--cluster', '--help']),
    );
  }, 60_000);
});
