// The long-running processes: `fleetq run`, `fleetq forwarder`; and `fleetq doctor`.
import type { Command } from 'commander';
import { legacyCommand } from './legacy-command.js';

export function processCommands(): Command[] {
  return [
    legacyCommand('run', 'forwarders for every registered cluster and workers, in one process'),
    legacyCommand('forwarder', 'the forwarder alone, or a member of a forwarder pool'),
  ];
}
