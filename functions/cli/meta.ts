// `fleetq version` and `fleetq completion`: about the command itself; no client library is loaded.
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { outputOption, printResult, type OutputFormat } from './common.js';

/** package.json, found from this module in the source tree (functions/cli) and in the build (dist/functions/cli). */
function packageJson(): { name: string; version: string } {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'fleetq' && typeof pkg.version === 'string') return { name: pkg.name, version: pkg.version };
    } catch {
      // not at this level
    }
  }
  throw new Error('package.json of fleetq not found beside the command (a broken install: reinstall fleetq)');
}

export function versionCommand(): Command {
  return new Command('version')
    .description("print fleetq's version and the Node.js running it")
    .addOption(outputOption())
    .addHelpText('after', '\nExamples:\n  fleetq version\n  fleetq version -o json')
    .action(async (opts: { output: OutputFormat }) => {
      const data = {
        fleetq: packageJson().version,
        node: process.versions.node,
        platform: `${process.platform}/${process.arch}`,
      };
      await printResult(opts.output, {
        data,
        table: () => `fleetq ${data.fleetq} (Node.js ${data.node}, ${data.platform})`,
      });
    });
}

type CompletionTree = { [word: string]: CompletionTree | string[] };

/** The words that may follow each command: its subcommands, then its long flags (from the program's own definition). */
export function completionTree(command: Command): CompletionTree {
  const tree: CompletionTree = {};
  for (const sub of command.commands) {
    if ((sub as Command & { _hidden?: boolean })._hidden) continue;
    const below = completionTree(sub);
    const flags = sub.options.map((o) => o.long).filter((l): l is string => l !== undefined);
    tree[sub.name()] =
      Object.keys(below).length > 0
        ? { ...below, ...Object.fromEntries(flags.map((f) => [f, []])) }
        : [...flags, '--help'];
  }
  return tree;
}

/** Answers a shell's completion request (`fleetq --compgen ...`, sent by the script `fleetq completion` prints). */
export function completeIfAsked(program: Command, argv: readonly string[]): boolean {
  if (!argv.includes('--compgen')) return false;
  void import('omelette').then(({ default: omelette }) => omelette('fleetq').tree(completionTree(program)).init());
  return true;
}

export function completionCommand(program: () => Command): Command {
  return new Command('completion')
    .description('print the shell completion script (bash, zsh or fish)')
    .addOption(new Option('--shell <shell>', 'the shell').choices(['bash', 'zsh', 'fish']).default('bash'))
    .addHelpText(
      'after',
      `
Examples:
  source <(fleetq completion)                           this bash or zsh session
  fleetq completion > /etc/bash_completion.d/fleetq     every bash session
  fleetq completion --shell fish | source               this fish session`,
    )
    .action(async (opts: { shell: string }) => {
      const { default: omelette } = await import('omelette');
      const completion = omelette('fleetq').tree(completionTree(program())) as unknown as {
        generateCompletionCode(): string;
        generateCompletionCodeFish(): string;
      };
      console.log(
        opts.shell === 'fish' ? completion.generateCompletionCodeFish() : completion.generateCompletionCode(),
      );
    });
}
