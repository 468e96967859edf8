#!/usr/bin/env node
// `fleetq`: the command line (commander). Every command is defined in functions/cli/*.ts, which load only
// commander and functions/cli/common.ts; a command's work (queue, Kubernetes and AWS clients) is imported when it
// runs, so `fleetq --help` and `fleetq version` start in a few tens of milliseconds.
// Exit codes: 0 done, 1 failed, 2 bad usage (common.ts EXIT). Help: `fleetq --help`, `fleetq COMMAND --help`.
import { Command, CommanderError } from 'commander';
import { EXIT, UsageError } from './cli/common.js';
import { completionCommand, completeIfAsked, versionCommand } from './cli/meta.js';
import { processCommands } from './cli/processes.js';
import { queueCommands } from './cli/queue.js';
import { replayCommands } from './cli/replay.js';
import { rolloutCommand } from './cli/rollout.js';
import { uiCommand } from './cli/ui.js';

export function fleetqProgram(): Command {
  const program = new Command('fleetq')
    .description('Kubernetes workload controllers for a fleet of clusters, run as stateless handlers fed by a queue.')
    .addHelpText(
      'after',
      `
Examples:
  fleetq run --registry fleet.yaml               forwarders and workers for every cluster, in one process
  fleetq doctor --registry fleet.yaml            check clusters, credentials, queue and controller conflicts
  fleetq status --registry fleet.yaml --watch    per-cluster queue depth, in flight, dead letters
  fleetq COMMAND --help                          a command's flags and examples

Exit codes: 0 done, 1 failed, 2 bad usage. Settings: flags, else environment variables (docs/operations.md).`,
    );
  for (const command of [
    ...processCommands(),
    ...queueCommands(),
    ...replayCommands(),
    rolloutCommand(),
    uiCommand(),
    versionCommand(),
    completionCommand(() => program),
  ])
    program.addCommand(command);
  configureTree(program);
  return program;
}

/** What every command shares: errors become exceptions (main() chooses the exit code) and help follows a usage error. */
function configureTree(command: Command): void {
  command.exitOverride().showHelpAfterError('(add --help for usage)').showSuggestionAfterError(true);
  for (const sub of command.commands) configureTree(sub);
}

/** Exits once stdout is flushed: a pipe is written asynchronously, and process.exit would cut a long report. */
const exit = (code: number): void => void process.stdout.write('', () => process.exit(code));

/** The oldest Node.js major fleetq runs on (package.json engines); older ones end of life, and the AWS SDK warns. */
const MIN_NODE_MAJOR = 22;

async function main(argv: string[]): Promise<void> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < MIN_NODE_MAJOR) {
    console.error(`fleetq: needs Node.js ${MIN_NODE_MAJOR} or newer; this is ${process.version} (https://nodejs.org)`);
    return exit(EXIT.failed);
  }
  const program = fleetqProgram();
  if (completeIfAsked(program, argv)) return;
  if (argv.length === 0) {
    program.outputHelp();
    return exit(EXIT.usage);
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    exit(EXIT.ok);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version were asked for; anything else commander refused is bad usage, already printed.
      const asked = ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(err.code);
      return exit(asked ? EXIT.ok : EXIT.usage);
    }
    const { redactText } = await import('../shared/kube/redact-secrets.js');
    const message = redactText(err instanceof Error ? err.message : String(err));
    console.error(`fleetq: ${message}`);
    exit(err instanceof UsageError ? EXIT.usage : EXIT.failed);
  }
}

await main(process.argv.slice(2));
