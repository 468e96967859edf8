// The long-running processes: `fleetq run` (everything in one process), `fleetq worker`, `fleetq forwarder`
// (and `forwarder unquarantine`); and `fleetq doctor`, the checks `fleetq run` also makes before it starts.
// Each action imports what does the work when it runs (process-*.ts, doctor-run.ts, ../forwarder.ts).
import { Command, Option } from 'commander';
import { outputOption } from './common.js';
import type { DoctorFlags, ProcessFlags } from './process-flags.js';

const registryOption = () => new Option('--registry <file>', 'cluster registry (YAML); default: FLEETQ_REGISTRY');
const driverOption = () =>
  new Option(
    '--driver <driver>',
    'queue driver: memory (in this process), redis or sqs; default: FLEETQ_DRIVER or memory',
  );
const queueOption = () =>
  new Option('--queue <name>', 'queue name (Redis key tag, SQS base name); default: FLEETQ_QUEUE or fleetq');
const concurrencyOption = () =>
  new Option('--concurrency <n>', 'reconciles in flight at once; default: FLEETQ_CONCURRENCY or 8');
const metricsOption = () =>
  new Option(
    '--metrics-port <port>',
    'serve Prometheus /metrics and /healthz on this port (FLEETQ_METRICS_HOST, 127.0.0.1)',
  );
const readsOption = () =>
  new Option(
    '--reads <where>',
    'where handlers read cluster state: cache or live; default: FLEETQ_READS (cache; live on sqs)',
  );

export function runCommand(): Command {
  return new Command('run')
    .description(
      'forwarders for every registered cluster and workers, in one process, until Ctrl-C (SIGINT or SIGTERM finishes the keys in flight)',
    )
    .addOption(registryOption())
    .addOption(driverOption())
    .addOption(concurrencyOption())
    .addOption(metricsOption())
    .addOption(readsOption())
    .addOption(queueOption())
    .option(
      '--skip-preflight',
      'start even if the start-up checks fail (clusters reachable and allowed, no other controller of an owned kind, Redis, signing secret): as `fleetq doctor` without --probe',
    )
    .addHelpText(
      'after',
      `
Before it starts, run makes the checks of \`fleetq doctor\` (all but --probe) and exits 1 naming what failed.

Examples:
  fleetq run --registry fleet.yaml                         memory queue, data under .fleetq (FLEETQ_DATA_DIR)
  fleetq run --registry fleet.yaml --driver redis --concurrency 16 --metrics-port 9464
  fleetq run --registry fleet.yaml --skip-preflight        start while a cluster is down; its forwarder retries
  LOG_FORMAT=json fleetq run --registry fleet.yaml          JSON log lines on a terminal too`,
    )
    .action(async (flags: ProcessFlags & { skipPreflight?: boolean }) => (await import('./process-run.js')).run(flags));
}

export function workerCommand(name = 'worker'): Command {
  return new Command(name)
    .description(
      'a worker alone: takes keys from a shared redis or sqs queue and reconciles them, until SIGTERM or SIGINT (split deployments; the forwarder runs apart)',
    )
    .addOption(registryOption())
    .addOption(driverOption())
    .addOption(queueOption())
    .addOption(concurrencyOption())
    .addOption(metricsOption())
    .addOption(readsOption())
    .addHelpText(
      'after',
      `
Examples:
  fleetq worker --registry fleet.yaml --driver redis --concurrency 8
  FLEETQ_DRIVER=sqs FLEETQ_REGISTRY=fleet.yaml fleetq worker --metrics-port 9464
  fleetq doctor --registry fleet.yaml --driver redis      check its clusters and queue first`,
    )
    .action(async (flags: ProcessFlags) => (await import('./process-worker.js')).worker(flags));
}

export function forwarderCommand(): Command {
  const forwarder = new Command('forwarder')
    .description(
      'the forwarder alone: watches every registered cluster and enqueues keys, until SIGTERM or SIGINT; --pool joins a forwarder pool',
    )
    .addOption(registryOption())
    .addOption(driverOption())
    .addOption(queueOption())
    .addOption(metricsOption())
    .option(
      '--pool',
      'join a forwarder pool: members share the clusters under leases in Redis (redis driver and checkpoints; FLEETQ_FORWARDER_POOL=true)',
    )
    .addHelpText(
      'after',
      `
Examples:
  fleetq forwarder --registry fleet.yaml --driver redis
  fleetq forwarder --pool --registry fleet.yaml --driver redis     one of several members
  fleetq forwarder unquarantine eu-1                              lift a pool's quarantine of eu-1`,
    )
    .action(async (flags: ProcessFlags & { pool?: boolean }) => (await import('../forwarder.js')).main(flags));
  forwarder.addCommand(
    new Command('unquarantine')
      .description(
        "lift the forwarder pool's quarantine of CLUSTER and forget its deaths: a member takes it again within a round",
      )
      .argument('<cluster>', 'the quarantined cluster, as `fleetq status` lists it')
      .addOption(queueOption())
      .addHelpText(
        'after',
        `
A cluster is quarantined when FLEETQ_FORWARDER_QUARANTINE_DEATHS (3) forwarders in a row died while syncing it
(their first list of it not finished; a forwarder that let its lease lapse but kept heartbeating did not die), for
FLEETQ_FORWARDER_QUARANTINE_MS (1 h). \`fleetq status\` lists the
quarantined clusters with the largest object their dead holders reported: fix or remove that object (or the
cluster's registry entry) first, or the next holder may die the same way. Redis: REDIS_URL.

Examples:
  fleetq forwarder unquarantine eu-1
  fleetq forwarder unquarantine eu-1 --queue fleetq-prod`,
      )
      .action(async (cluster: string, flags: { queue?: string }) =>
        (await import('./process-forwarder.js')).unquarantine(cluster, flags),
      ),
  );
  return forwarder;
}

export function doctorCommand(): Command {
  return new Command('doctor')
    .description(
      'check what fleetq needs: every cluster reachable, its credentials allowed what its kinds need, no other controller writing a kind it owns, Redis and the queue, the signing secret',
    )
    .addOption(registryOption())
    .addOption(driverOption())
    .addOption(queueOption())
    .addOption(outputOption())
    .option(
      '--probe',
      'also create a throwaway object per owned kind (0 replicas, or suspended) and watch whether kube-controller-manager writes its status; deleted after',
    )
    .option('--probe-namespace <ns>', 'where --probe creates its objects', 'default')
    .option('--probe-wait <seconds>', 'how long --probe waits for a status write', '5')
    .option('--timeout <seconds>', 'how long a cluster or store may take to answer one request', '5')
    .addHelpText(
      'after',
      `
Each check prints ok, warn or FAIL, with what to do; exit 1 if any failed. Without --probe nothing is written:
a kind with no objects yet (and no Events in the last hour) shows nothing of another controller.

Examples:
  fleetq doctor --registry fleet.yaml
  fleetq doctor --registry fleet.yaml --driver redis -o json
  fleetq doctor --registry fleet.yaml --probe --probe-namespace fleetq-system`,
    )
    .action(async (flags: DoctorFlags) => (await import('./doctor-run.js')).doctor(flags));
}

export function processCommands(): Command[] {
  return [runCommand(), workerCommand(), forwarderCommand(), doctorCommand()];
}
