// The queue's state: `fleetq status`, `fleetq dlq list|show|redrive` (and the older `dead-letters`, `redrive`),
// `fleetq describe KEY`. Each action imports its module (queue-status.ts, queue-dlq.ts, describe-key.ts) when it
// runs. Every one that opens Redis connects once and fails within seconds when Redis does not answer, naming the
// URL (no password) and what to do; long-running workers and forwarders keep reconnecting instead.
import { Command, Option } from 'commander';
import { outputOption } from './common.js';

/** --driver and --queue: which queue to read (FLEETQ_DRIVER, FLEETQ_QUEUE otherwise). */
function queueOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--driver <driver>', 'queue driver (default FLEETQ_DRIVER, else memory)').choices([
        'redis',
        'sqs',
        'memory',
      ]),
    )
    .option('--queue <name>', 'queue name (default FLEETQ_QUEUE, else fleetq)')
    .option(
      '--stack-outputs <file>',
      "the Lambda stack's outputs, as `aws cloudformation describe-stacks --stack-name S --query 'Stacks[0].Outputs'` " +
        'prints them: its queue URLs and region (sqs driver; else SQS_WORK_URL, SQS_DELAY_URL, SQS_DEAD_URL, AWS_REGION)',
    );
}

/** -o, and --json kept for scripts written before -o. */
function outputOptions(command: Command): Command {
  return command.addOption(outputOption()).option('--json', 'the same as -o json (kept for scripts)');
}

/** --cluster, --kind, --older-than, --key: which dead letters a dlq subcommand takes. */
function filterOptions(command: Command): Command {
  return command
    .option('--cluster <name>', 'only letters of keys of this cluster')
    .option('--kind <kind>', 'only letters of keys of this kind (Deployment, Job, ...)')
    .option('--older-than <duration>', 'only letters parked at least this long ago (30s, 15m, 2h, 7d)')
    .option('--key <key>', 'only the letter of this key: cluster/kind/namespace/name');
}

function statusCommand(): Command {
  return outputOptions(
    queueOptions(
      new Command('status')
        .description('per cluster: forwarder, last event, depth, in flight, backoff, dead letters, rates')
        .option('--registry <file>', 'the cluster registry: its clusters are listed even with nothing queued')
        .option('-w, --watch', 'print again every --interval until Ctrl-C')
        .option('--interval <duration>', 'how often --watch prints', '5s')
        .option('--window <duration>', 'the span reconcile and error rates are averaged over', '60s'),
    ),
  )
    .addHelpText(
      'after',
      `
Columns: DEPTH keys waiting (ready or delayed), IN FLIGHT keys held under a live lease, BACKOFF keys waiting out a
failure or conflict backoff, DEAD dead letters, REC/S and ERR/S per second over --window; -o wide adds each
forwarder lease's fencing token. -o json prints one JSON object per line (each refresh with --watch).

Examples:
  fleetq status                                   the queue of FLEETQ_QUEUE on REDIS_URL
  fleetq status --registry fleet.yaml --watch     every registered cluster, every 5 s until Ctrl-C
  fleetq status -o json | jq '.clusters[] | select(.deadLetters > 0)'`,
    )
    .action(async (opts) => (await import('./queue-status.js')).status(opts));
}

function dlqCommand(): Command {
  const list = outputOptions(
    queueOptions(
      filterOptions(new Command('list').description('list dead letters: key, failures, parked, last error')),
    ),
  )
    .addHelpText(
      'after',
      `
-o json prints one JSON object per letter and line (reason and raw text capped at 4096 characters).

Examples:
  fleetq dlq list
  fleetq dlq list --cluster eu-1 --kind Deployment --older-than 1h
  fleetq dlq list -o json | jq -r .reason`,
    )
    .action(async (opts) => (await import('./queue-dlq.js')).list(opts));
  const show = outputOptions(
    queueOptions(new Command('show').description("one key's dead letter, its reason whole").argument('<key>')),
  )
    .addHelpText(
      'after',
      `
KEY is cluster/kind/namespace/name (the namespace is empty for a cluster-scoped kind: eu-1/Kind//name).
Exits 1 when the key has no dead letter.

Examples:
  fleetq dlq show eu-1/Deployment/shop/web
  fleetq dlq show eu-1/Deployment/shop/web -o json`,
    )
    .action(async (key: string, opts) => (await import('./queue-dlq.js')).show(key, opts));
  const redrive = queueOptions(
    filterOptions(
      new Command('redrive')
        .description('move dead letters back to the queue, ready now, their backoff reset')
        .option('--dry-run', 'list what would be redriven; move nothing')
        .option(
          '--resign-unverified',
          'also re-sign "bad signature" letters that no known secret signed (only when you know where they came from)',
        ),
    ),
  )
    .addHelpText(
      'after',
      `
Every redriven key is signed with the current secret. A "bad signature" letter signed by no secret this process
knows (FLEETQ_SIGNING_SECRET, FLEETQ_SIGNING_SECRET_PREVIOUS) stays parked and the command exits 1, unless
--resign-unverified. A filter that matches no letter moves nothing, says so, and exits 0.

Examples:
  fleetq dlq redrive --dry-run                        what a redrive of every letter would move
  fleetq dlq redrive --cluster eu-1 --kind Job
  fleetq dlq redrive --key eu-1/Deployment/shop/web`,
    )
    .action(async (opts) => (await import('./queue-dlq.js')).redrive(opts));
  return new Command('dlq')
    .description('list, show or redrive dead letters (keys that failed terminally)')
    .addHelpText(
      'after',
      `
Examples:
  fleetq dlq list
  fleetq dlq show eu-1/Deployment/shop/web
  fleetq dlq redrive --kind Deployment --dry-run`,
    )
    .addCommand(list)
    .addCommand(show)
    .addCommand(redrive);
}

function describeCommand(): Command {
  return queueOptions(
    new Command('describe')
      .description(
        "one key's state: queued or held, failures and conflicts with their backoff, dead letter, last error and " +
          'reconcile, cached resourceVersion',
      )
      .argument('<key>', 'cluster/kind/namespace/name (namespace empty for a cluster-scoped kind)')
      .addOption(
        new Option('-o, --output <format>', 'output format').choices(['text', 'json', 'yaml']).default('text'),
      ),
  )
    .addHelpText(
      'after',
      `
Read from the queue's Redis (redis driver) and the forwarder's cache there. What fleetq does not record is
printed as "not recorded" (null in json and yaml, and named in notRecorded).

Examples:
  fleetq describe eu-1/Deployment/shop/web
  fleetq describe eu-1/Deployment/shop/web -o json | jq .held`,
    )
    .action(async (key: string, opts) => (await import('./describe-key.js')).describe(key, opts));
}

/** `fleetq dead-letters`: what `dlq list -o json` prints, under the old name. */
function deadLettersCommand(): Command {
  return queueOptions(new Command('dead-letters').description('every dead letter as JSON lines (= dlq list -o json)'))
    .addHelpText('after', '\nExamples:\n  fleetq dead-letters | jq -r .reason')
    .action(async (opts) => (await import('./queue-dlq.js')).list({ ...opts, output: 'json' }));
}

/** `fleetq redrive`: `dlq redrive` of every letter, under the old name. */
function redriveAllCommand(): Command {
  return queueOptions(new Command('redrive').description('redrive every dead letter (= dlq redrive)'))
    .addHelpText('after', '\nExamples:\n  fleetq redrive')
    .action(async (opts) => (await import('./queue-dlq.js')).redrive(opts));
}

export function queueCommands(): Command[] {
  return [statusCommand(), dlqCommand(), deadLettersCommand(), redriveAllCommand(), describeCommand()];
}
