// The `fleetq log` and `fleetq replay` command definitions: every subcommand says what it does, its flags and
// examples in --help; the commands that print a table take -o; the required flags are required.
import { describe, expect, it } from '@jest/globals';
import type { Command } from 'commander';
import { replayCommands } from '../../../functions/cli/replay.js';

const byPath = new Map<string, Command>();
for (const group of replayCommands())
  for (const sub of group.commands) byPath.set(`${group.name()} ${sub.name()}`, sub);

/** --help as a user sees it (commander prints addHelpText 'after' on output only). */
function help(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

describe('fleetq log and replay commands', () => {
  it('are the five subcommands', () => {
    expect([...byPath.keys()]).toEqual(['log export', 'log import', 'log stats', 'replay requeue', 'replay shadow']);
  });

  it.each([...byPath.keys()])('%s has a description, described flags and examples', (path) => {
    const command = byPath.get(path)!;
    expect(command.description().length).toBeGreaterThan(20);
    for (const option of command.options) if (!option.hidden) expect(option.description.length).toBeGreaterThan(5);
    const text = help(command);
    expect(text).toContain('Examples:');
    expect(text).toContain(`fleetq ${path} `);
  });

  it.each([
    ['log stats', true],
    ['replay shadow', true],
    ['log export', false],
    ['log import', false],
    ['replay requeue', false],
  ])('%s takes -o: %s', (path, takes) => {
    const output = byPath.get(path)!.options.find((o) => o.short === '-o');
    expect(output?.argChoices).toEqual(takes ? ['table', 'wide', 'json', 'yaml'] : undefined);
  });

  it.each([
    ['log export', ['--cluster']],
    ['log import', ['--file']],
    ['replay requeue', ['--cluster', '--since']],
    ['replay shadow', ['--b']],
  ])('%s requires %s', (path, flags) => {
    expect(
      byPath
        .get(path)!
        .options.filter((o) => o.mandatory)
        .map((o) => o.long),
    ).toEqual(flags);
  });

  it('shadow prints 20 differences by default and takes a ref or a path for --a and --b', () => {
    const shadow = byPath.get('replay shadow')!;
    expect(shadow.options.find((o) => o.long === '--max-diffs')?.defaultValue).toBe('20');
    expect(shadow.options.find((o) => o.long === '--a')?.description).toContain('git ref');
    expect(help(shadow)).toContain('Exit status: 0 when the builds decide alike, 1 when a decision differs');
  });
});
