// The event log and replay: `fleetq log`, `fleetq replay`.
import type { Command } from 'commander';
import { legacyCommand } from './legacy-command.js';

export function replayCommands(): Command[] {
  return [
    legacyCommand('log', 'export, import or summarize the event log'),
    legacyCommand('replay', 'requeue a window of history, or shadow two builds over it'),
  ];
}
