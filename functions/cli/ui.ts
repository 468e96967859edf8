// `fleetq ui`: the read-only web view for operators.
import { Command } from 'commander';

export function uiCommand(): Command {
  return new Command('ui').description('serve the read-only web view for operators').action(() => {
    throw new Error('fleetq ui: not built yet');
  });
}
