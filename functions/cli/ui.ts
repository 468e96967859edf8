// `fleetq ui`: the read-only web view for operators (shared/ops/ui/: the server and the page). Its work is
// imported when it runs (ui-serve.ts), so `fleetq --help` loads no client library.
import { Command } from 'commander';
import type { UiFlags } from './ui-serve.js';

export function uiCommand(): Command {
  return new Command('ui')
    .description(
      'serve a read-only web page of the fleet: per cluster health, forwarder, queue depth, in flight, backoff, ' +
        'dead letters and rates, the dead letters themselves, and fleet rollouts',
    )
    .option(
      '--registry <file>',
      'the cluster registry: its clusters are listed and their apiservers asked for health (default: FLEETQ_REGISTRY)',
    )
    .option('--driver <driver>', 'the queue driver, redis or sqs (default: FLEETQ_DRIVER)')
    .option('--queue <name>', 'the queue name (default: FLEETQ_QUEUE)')
    .option('--port <port>', 'the port to listen on; 0 takes any free port', '8080')
    .option(
      '--host <address>',
      'the address to listen on; anything but loopback shows the fleet to whoever reaches it (there is no login)',
      '127.0.0.1',
    )
    .option('--refresh <duration>', 'how often the page reads the status again (1s at least)', '5s')
    .addHelpText(
      'after',
      `
Examples:
  fleetq ui --registry fleet.yaml                       http://127.0.0.1:8080/ until Ctrl-C
  fleetq ui --registry fleet.yaml --port 0              any free port (the URL is printed)
  fleetq ui --driver redis --queue fleetq --refresh 10s
  ssh -L 8080:127.0.0.1:8080 ops-host fleetq ui --registry fleet.yaml
                                                        from your machine through ssh, off the network

Read-only: GET and HEAD only, every other method is refused (405). GET /api/status gives the page's data as
JSON, GET /healthz answers ok. Redis: REDIS_URL, FLEETQ_REDIS_PREFIX. The memory driver is refused: its queue
lives inside the process that runs it (fleetq run).`,
    )
    .action(async (flags: UiFlags) => (await import('./ui-serve.js')).serveUi(flags));
}
