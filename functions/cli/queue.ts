// The queue's state: `fleetq status`, `fleetq dlq`, `fleetq describe`.
import type { Command } from 'commander';
import { legacyCommand } from './legacy-command.js';

export function queueCommands(): Command[] {
  return [
    legacyCommand('status', 'per cluster: forwarder, last event, depth, in flight, backoff, dead letters, rates'),
    legacyCommand('dlq', 'list, show or redrive dead letters'),
    legacyCommand('dead-letters', 'the dead-letter list as JSON lines'),
    legacyCommand('redrive', 'redrive every dead letter'),
  ];
}
