// The event log and replay: `fleetq log export|import|stats`, `fleetq replay requeue|shadow`. The work is in
// log-*.ts and replay-*.ts beside this file, loaded when a command runs.
import { Command, Option } from 'commander';
import { outputOption } from './common.js';

const TIMES =
  'Times (--since, --until): ISO 8601 (2025-12-03T12:00:00Z), a Unix time (10 digits: seconds, 13: milliseconds)\n' +
  'or a duration ago (90m, 2h, 7d).';
const STORE_HELP =
  'the event log: redis (the live streams), redis:NAME (a log imported with --into NAME) or jsonl:DIR ' +
  '(default: $FLEETQ_EVENT_LOG, else redis)';

/** Options the time-window commands share. */
function withWindow(command: Command, sinceHelp = 'from this time (default: the start of the log)'): Command {
  return command
    .option('--since <time>', sinceHelp)
    .option('--until <time>', 'up to this time (default: now)')
    .option('--store <spec>', STORE_HELP);
}

/** `--json`, kept for scripts written before `-o json`: the same output, not listed in help. */
const jsonAlias = (): Option => new Option('--json', 'same as -o json').hideHelp();

function logCommand(): Command {
  const log = new Command('log')
    .description('export, import or summarize the event log the forwarders record')
    .addHelpText(
      'after',
      `
Examples:
  fleetq log export --cluster prod-eu --since 2h --out incident.jsonl
  fleetq log import --file incident.jsonl --into incident-42
  fleetq log stats --file incident.jsonl

${TIMES}`,
    );

  log.addCommand(
    withWindow(
      new Command('export')
        .description("write a cluster's records in a window to a JSON-lines file")
        .requiredOption('--cluster <name>', 'the cluster whose records to export (as the registry names it)'),
    )
      .option('--out <file>', 'the file to write; - is stdout', '-')
      .addHelpText(
        'after',
        `
Examples:
  fleetq log export --cluster prod-eu --since 2h --out incident.jsonl       the last two hours
  fleetq log export --cluster prod-eu --since 2025-12-03T12:00:00Z --until 2025-12-03T13:00:00Z
  fleetq log export --cluster prod-eu --store redis:incident-42 > back.jsonl   an imported log

A cluster the store holds no record of is refused, naming the clusters it has.
${TIMES}`,
      )
      .action(async (opts) => (await import('./log-export.js')).logExport(opts)),
  );

  log.addCommand(
    new Command('import')
      .description('read a JSON-lines log file into a named log (never the live one unless --into live)')
      .requiredOption('--file <file>', 'the log file (what `fleetq log export` writes)')
      .option('--into <name>', 'the named log to import into (lowercase, digits, -), or live', 'imported')
      .option('--skip-bad', 'import the good records of a file with bad ones (default: refuse the file)', false)
      .option('--replace', "replace what the named log already holds of the file's clusters", false)
      .option('--store <kind>', 'redis or jsonl:DIR (default: $FLEETQ_EVENT_LOG, else redis)')
      .addHelpText(
        'after',
        `
Examples:
  fleetq log import --file incident.jsonl --into incident-42
  fleetq replay shadow --cluster prod-eu --store redis:incident-42 --b HEAD~1     then replay it
  fleetq log import --file incident.jsonl --into incident-42 --replace            import it again
  fleetq log import --file incident.jsonl --store jsonl:/var/lib/fleetq/log

Every record is checked before anything is written: a file that is empty, binary or has no log record is
refused, and so is one with a bad record (its line said) unless --skip-bad. All records go in or none: a
named log that already holds records of the file's clusters refuses the import unless --replace.`,
      )
      .action(async (opts) => (await import('./log-import.js')).logImport(opts)),
  );

  log.addCommand(
    withWindow(
      new Command('stats')
        .description('count records per resource and event type')
        .option('--cluster <name>', 'the cluster whose records to count, in the store (or --file)')
        .option('--file <file>', 'a log file instead of the store'),
    )
      .addOption(outputOption())
      .addOption(jsonAlias())
      .addHelpText(
        'after',
        `
Examples:
  fleetq log stats --cluster prod-eu --since 1h
  fleetq log stats --file incident.jsonl -o json
  fleetq log stats --cluster prod-eu --store redis:incident-42 -o yaml

${TIMES}`,
      )
      .action(async (opts) => (await import('./log-stats.js')).logStatsCommand(opts)),
  );
  return log;
}

function replayCommand(): Command {
  const replay = new Command('replay')
    .description('requeue the keys of a window of history, or shadow two builds of the planners over it')
    .addHelpText(
      'after',
      `
Examples:
  fleetq replay requeue --cluster prod-eu --since 30m --driver redis --registry fleet.yaml
  fleetq replay shadow --log incident.jsonl --b HEAD~1

${TIMES}`,
    );

  replay.addCommand(
    new Command('requeue')
      .description("add the keys of a cluster's events in a window to the live queue, once each")
      .requiredOption('--cluster <name>', 'the cluster (as the registry names it)')
      .requiredOption('--since <time>', 'from this time')
      .option('--until <time>', 'up to this time (default: now)')
      .option('--kind <kind>', 'only keys of this kind (one the cluster owns)')
      .option('--dry-run', 'print the keys instead of adding them', false)
      .option('--store <spec>', STORE_HELP)
      .option('--registry <file>', 'the cluster registry (default: $FLEETQ_REGISTRY)')
      .option('--driver <driver>', 'the queue: redis or sqs (default: $FLEETQ_DRIVER)')
      .addHelpText(
        'after',
        `
Examples:
  fleetq replay requeue --cluster prod-eu --since 30m --registry fleet.yaml --driver redis
  fleetq replay requeue --cluster prod-eu --since 30m --kind Deployment --dry-run --registry fleet.yaml

The memory queue lives only inside \`fleetq run\`: requeue needs --driver redis or sqs (--dry-run needs none).
${TIMES}`,
      )
      .action(async (opts) => (await import('./replay-requeue.js')).replayRequeue(opts)),
  );

  replay.addCommand(
    withWindow(
      new Command('shadow')
        .description('replay a log through two builds of the planners and show where their decisions differ')
        .option('--log <file>', 'a log file (what `fleetq log export` writes)')
        .option('--cluster <name>', 'the cluster whose log to read from the store (instead of --log)'),
    )
      .option('--a <build>', 'the first build: current, a checkout path or a git ref', 'current')
      .requiredOption('--b <build>', 'the second build: current, a checkout path or a git ref')
      .option('--owns <kinds>', 'the kinds to decide, comma-separated (default: every kind the first build has)')
      .option('--max-diffs <n>', 'print at most this many differing decisions (the counts stay complete)', '20')
      .addOption(outputOption())
      .addOption(jsonAlias())
      .addHelpText(
        'after',
        `
Examples:
  fleetq replay shadow --log incident.jsonl --b HEAD~1                  this checkout against the commit before
  fleetq replay shadow --log incident.jsonl --a v1.4.0 --b main --owns Deployment,ReplicaSet
  fleetq replay shadow --cluster prod-eu --since 1h --b ../fleetq-next -o json

A build is current, a path (a checkout, or a module exporting CONTROLLERS) or a git ref of this checkout's
repository (a worktree of it is made under .cache/shadow-builds/ and reused). A checkout without node_modules
gets this checkout's linked in. Exit status: 0 when the builds decide alike, 1 when a decision differs (or the
log has no record), 2 on bad usage.
${TIMES}`,
      )
      .action(async (opts) => (await import('./replay-shadow.js')).replayShadow(opts)),
  );
  return replay;
}

export function replayCommands(): Command[] {
  return [logCommand(), replayCommand()];
}
