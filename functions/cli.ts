// fleetq command line.
//   fleetq run      the all-in-one mode. With no registry given it starts a local sandbox cluster
//                   (`dev-1`, fleetq mode) and runs against it until Ctrl-C.
import { parseArgs } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { SandboxMode } from '../infra/sandbox/modes.js';
import { down, up } from '../infra/sandbox/sandbox.js';

const DEV_CLUSTER = 'dev-1';

async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { nodes: { type: 'string', default: '3' }, keep: { type: 'boolean', default: false } },
  });
  const nodes = Number(values.nodes);
  if (!Number.isInteger(nodes) || nodes < 1) throw new Error(`--nodes must be a positive integer, got ${values.nodes}`);
  const [cluster] = await up({ clusters: [{ name: DEV_CLUSTER, mode: SandboxMode.Fleetq }], nodes });
  if (!cluster) throw new Error('the sandbox started no cluster');
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfig);
  const nodeList = await kc.makeApiClient(CoreV1Api).listNode();
  console.log(`fleetq: cluster ${cluster.name} (${cluster.mode} mode) at ${cluster.server}`);
  console.log(`fleetq: kubeconfig ${cluster.kubeconfig}`);
  console.log(`fleetq: ${nodeList.items.length} node(s): ${nodeList.items.map((n) => n.metadata?.name).join(', ')}`);
  console.log(`fleetq: try  kubectl --kubeconfig ${cluster.kubeconfig} get nodes   — Ctrl-C to stop`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  if (!values.keep) {
    console.log(`fleetq: stopping ${cluster.name}`);
    await down([cluster.name]);
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return run(rest);
    default:
      throw new Error('usage: fleetq run [--nodes N] [--keep]');
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`fleetq: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
