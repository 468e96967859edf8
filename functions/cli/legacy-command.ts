// A command not yet ported to commander: its arguments go to the old parser (legacy.ts) as they are.
import { Command } from 'commander';

export function legacyCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption(false)
    .argument('[args...]')
    .action(async (args: string[]) => (await import('./legacy.js')).main([name, ...args]));
}
