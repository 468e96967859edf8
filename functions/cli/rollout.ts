// `fleetq rollout list|status|pause|resume|approve|retry`: FleetRollouts on the registry's hub cluster (the entry
// with `hub: true`). The work (registry, Kubernetes client, the progress view) is imported from rollout-run.ts when
// a command runs, so `fleetq --help` loads none of it.
import { Command, Option } from 'commander';
import { outputOption } from './common.js';
import type { RolloutAction, RolloutFlags } from './rollout-run.js';

export const DEFAULT_ROLLOUT_NAMESPACE = 'fleetq-system';

/** --registry and -n: where the FleetRollouts are (the registry's hub cluster, and a namespace on it). */
function hubOptions(command: Command): Command {
  return command
    .addOption(new Option('--registry <file>', 'cluster registry (YAML); default: FLEETQ_REGISTRY'))
    .option('-n, --namespace <namespace>', 'the namespace of the FleetRollout on the hub', DEFAULT_ROLLOUT_NAMESPACE);
}

const run =
  (action: RolloutAction) =>
  async (...args: unknown[]): Promise<void> => {
    // commander passes the arguments, then the options, then the command.
    const name = typeof args[0] === 'string' ? args[0] : undefined;
    const flags = (typeof args[0] === 'string' ? args[1] : args[0]) as RolloutFlags;
    const { rolloutActions } = await import('./rollout-run.js');
    await rolloutActions[action](name, flags);
  };

function listCommand(): Command {
  return hubOptions(new Command('list'))
    .description('list FleetRollouts: namespace, name, target, revision, wave, phase, age')
    .option('-A, --all-namespaces', 'in every namespace of the hub')
    .addOption(outputOption())
    .addHelpText(
      'after',
      `
Examples:
  fleetq rollout list --registry fleet.yaml          those in fleetq-system
  fleetq rollout list --registry fleet.yaml -A -o json`,
    )
    .action(run('list'));
}

function statusCommand(): Command {
  return hubOptions(new Command('status'))
    .description("a FleetRollout's progress: per wave its clusters' state, admission, soak left, failure, reason")
    .argument('<name>', 'the FleetRollout')
    .addOption(outputOption())
    .option('-w, --watch', 'print again on every change until the phase is Succeeded, RolledBack or Halted')
    .option('--interval <duration>', 'with --watch: how often the FleetRollout is read', '2s')
    .addHelpText(
      'after',
      `
Examples:
  fleetq rollout status web --registry fleet.yaml
  fleetq rollout status web --registry fleet.yaml -o wide          the times themselves, observed generation
  fleetq rollout status web --registry fleet.yaml --watch && next-step

Exit codes: 0, or 1 when the phase is RolledBack or Halted (as kubectl rollout status fails on a failed
rollout); --watch ends with that code once the phase is terminal, with 0 on Ctrl-C.`,
    )
    .action(run('status'));
}

function pauseCommand(paused: boolean): Command {
  const verb = paused ? 'pause' : 'resume';
  return hubOptions(new Command(verb))
    .description(
      paused
        ? 'pause a FleetRollout (spec.paused: true): no cluster is admitted until it is resumed'
        : 'resume a paused FleetRollout (spec.paused: false)',
    )
    .argument('<name>', 'the FleetRollout')
    .addHelpText(
      'after',
      `
Example:
  fleetq rollout ${verb} web --registry fleet.yaml -n fleetq-system`,
    )
    .action(run(verb));
}

function approveCommand(): Command {
  return hubOptions(new Command('approve'))
    .description(
      'approve a wave marked approval: true for the current revision (default: the first such wave not yet approved)',
    )
    .argument('<name>', 'the FleetRollout')
    .option('--wave <wave>', 'the wave to approve')
    .addHelpText(
      'after',
      `
Examples:
  fleetq rollout approve web --registry fleet.yaml
  fleetq rollout approve web --registry fleet.yaml --wave rest

Written to status.approvals through the status subresource; refused when no wave waits for an approval.`,
    )
    .action(run('approve'));
}

function retryCommand(): Command {
  return hubOptions(new Command('retry'))
    .description('roll the stopped current revision again, as a new attempt (status.retry)')
    .argument('<name>', 'the FleetRollout')
    .addHelpText(
      'after',
      `
Example:
  fleetq rollout retry web --registry fleet.yaml

Refused unless the current revision is stopped (rolled back or halted past its failure budget).`,
    )
    .action(run('retry'));
}

export function rolloutCommand(): Command {
  return new Command('rollout')
    .description('FleetRollouts on the hub cluster: list, status, pause, resume, approve, retry')
    .addHelpText(
      'after',
      `
Examples:
  fleetq rollout list --registry fleet.yaml
  fleetq rollout status web --registry fleet.yaml --watch
  fleetq rollout approve web --registry fleet.yaml

The hub is the registry entry with hub: true.`,
    )
    .addCommand(listCommand())
    .addCommand(statusCommand())
    .addCommand(pauseCommand(true))
    .addCommand(pauseCommand(false))
    .addCommand(approveCommand())
    .addCommand(retryCommand());
}
