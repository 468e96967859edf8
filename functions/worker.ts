// `fleetq worker` as a script of its own (split deployments, tests): the same command, flags and code.
//   FLEETQ_REGISTRY=fleet.yaml FLEETQ_DRIVER=redis FLEETQ_CONCURRENCY=8 npx tsx functions/worker.ts [--help]
// Exit codes as fleetq's: 0 stopped by SIGTERM/SIGINT after finishing the keys in flight, 1 failed, 2 bad usage.
import { CommanderError } from 'commander';
import { EXIT, UsageError } from './cli/common.js';
import { workerCommand } from './cli/processes.js';

const command = workerCommand('worker.ts').exitOverride().showHelpAfterError('(add --help for usage)');
const exit = (code: number): void => void process.stdout.write('', () => process.exit(code));
try {
  await command.parseAsync(process.argv.slice(2), { from: 'user' });
  exit(EXIT.ok);
} catch (err) {
  if (err instanceof CommanderError) exit(err.code === 'commander.helpDisplayed' ? EXIT.ok : EXIT.usage);
  else {
    const { redactText } = await import('../shared/kube/redact-secrets.js');
    console.error(`fleetq worker: ${redactText(err instanceof Error ? err.message : String(err))}`);
    exit(err instanceof UsageError ? EXIT.usage : EXIT.failed);
  }
}
