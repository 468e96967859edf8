// fleetq command line.
//   fleetq run [--registry fleet.yaml] [--driver memory|redis|sqs] [--concurrency N] [--metrics-port P]
//     The all-in-one mode: forwarders for every registered cluster and N workers in one process. With no
//     registry it starts a local sandbox cluster (`dev-1`, fleetq mode: kube-controller-manager without its
//     workload controllers) and serves it until Ctrl-C.
//   fleetq dead-letters | redrive      inspect or redrive the dead-letter list of the configured queue
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_OWNED_KINDS } from '../shared/kube/kinds.js';
import { ClusterRegistry } from '../shared/kube/registry.js';
import { createQueue } from '../shared/queue/index.js';
import { startAllInOne } from '../shared/runtime/all-in-one.js';
import { loadConfig, type FleetqConfig } from '../shared/runtime/config.js';
import { queueConfig, registryFrom } from '../shared/runtime/deps.js';
import { serveMetrics } from '../shared/runtime/metrics.js';
import { SandboxMode } from '../infra/sandbox/modes.js';
import { REPO_ROOT, down, up } from '../infra/sandbox/sandbox.js';

const DEV_CLUSTER = 'dev-1';

function configFrom(values: Record<string, string | boolean | undefined>): FleetqConfig {
  const str = (k: string): string | undefined => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  return loadConfig(process.env, {
    ...(str('registry') && { FLEETQ_REGISTRY: str('registry') }),
    ...(str('driver') && { FLEETQ_DRIVER: str('driver') }),
    ...(str('concurrency') && { FLEETQ_CONCURRENCY: str('concurrency') }),
    ...(str('metrics-port') && { FLEETQ_METRICS_PORT: str('metrics-port') }),
    ...(str('reads') && { FLEETQ_READS: str('reads') }),
  });
}

async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      registry: { type: 'string' },
      driver: { type: 'string' },
      concurrency: { type: 'string' },
      'metrics-port': { type: 'string' },
      reads: { type: 'string' },
      nodes: { type: 'string', default: '3' },
      keep: { type: 'boolean', default: false },
    },
  });
  const config = configFrom(values);
  let registry: ClusterRegistry;
  let sandboxCluster: string | undefined;
  if (config.FLEETQ_REGISTRY) {
    registry = registryFrom(config);
  } else {
    const nodes = Number(values.nodes);
    if (!Number.isInteger(nodes) || nodes < 1)
      throw new Error(`--nodes must be a positive integer, got ${values.nodes}`);
    const [cluster] = await up({ clusters: [{ name: DEV_CLUSTER, mode: SandboxMode.Fleetq }], nodes });
    if (!cluster) throw new Error('the sandbox started no cluster');
    sandboxCluster = cluster.name;
    registry = new ClusterRegistry([
      {
        name: cluster.name,
        owns: DEFAULT_OWNED_KINDS,
        limits: { qps: 50, burst: 100 },
        connection: { type: 'kubeconfig', path: cluster.kubeconfig },
      },
    ]);
    console.log(`fleetq: sandbox cluster ${cluster.name} at ${cluster.server}, ${cluster.nodes} kwok node(s)`);
    console.log(`fleetq: kubeconfig ${cluster.kubeconfig}`);
    console.log(`fleetq: owns ${DEFAULT_OWNED_KINDS.join(', ')} there; try the commands in README "Run it"`);
  }
  const dataDir = resolve(process.env.FLEETQ_DATA_DIR ?? join(REPO_ROOT, '.fleetq'));
  mkdirSync(dataDir, { recursive: true });
  const app = await startAllInOne({ config, registry, dataDir });
  const server =
    config.FLEETQ_METRICS_PORT === undefined
      ? undefined
      : await serveMetrics(app.deps.metrics.registry, config.FLEETQ_METRICS_PORT, config.FLEETQ_METRICS_HOST);
  if (server)
    console.log(`fleetq: metrics on http://${config.FLEETQ_METRICS_HOST}:${config.FLEETQ_METRICS_PORT}/metrics`);
  console.log(
    `fleetq: running ${registry.clusters.length} cluster(s) on the ${config.FLEETQ_DRIVER} queue — Ctrl-C to stop`,
  );
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  console.log(`fleetq: ${signal}: finishing in-flight keys`);
  await app.stop();
  server?.close();
  if (sandboxCluster && !values.keep) {
    console.log(`fleetq: stopping sandbox cluster ${sandboxCluster}`);
    await down([sandboxCluster]);
  }
}

async function deadLetters(args: string[], redrive: boolean): Promise<void> {
  const { values } = parseArgs({ args, options: { driver: { type: 'string' } } });
  const config = configFrom(values);
  const queue = await createQueue(queueConfig(config));
  try {
    if (redrive) {
      console.log(`redrove ${await queue.redrive()} key(s)`);
    } else {
      for (const d of await queue.deadLetters()) console.log(JSON.stringify(d));
    }
  } finally {
    await queue.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return run(rest);
    case 'dead-letters':
      return deadLetters(rest, false);
    case 'redrive':
      return deadLetters(rest, true);
    default:
      throw new Error(
        'usage: fleetq run [--registry FILE] [--driver memory|redis|sqs] [--concurrency N] [--metrics-port P] | dead-letters | redrive',
      );
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`fleetq: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
