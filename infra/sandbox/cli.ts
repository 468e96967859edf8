// npm run sandbox:up -- --clusters N --nodes M --mode fleetq|upstream [--names a,b] [--audit] [--add-ons x,y]
//   --add-ons: add-ons run only on request (kind-options.ts ADD_ONS_ON_REQUEST, e.g. lws-controller); upstream mode
// npm run sandbox:down [-- --names a,b]
// npm run sandbox:status
// npx tsx infra/sandbox/cli.ts rbac [--names a,b]   fleetq's roles and ServiceAccounts (infra/k8s/), token files
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parseMode } from './modes.js';
import { ensureFleetqRbac } from './rbac.js';
import { defaultSpecs, down, isHealthy, readState, sandboxRoot, up } from './sandbox.js';

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`--${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      clusters: { type: 'string' },
      nodes: { type: 'string' },
      mode: { type: 'string' },
      names: { type: 'string' },
      // kube-apiserver writes an audit log of every request to <cluster dir>/audit.log (audit.ts).
      audit: { type: 'boolean' },
      'add-ons': { type: 'string' },
    },
    strict: true,
  });
  const names = values.names?.split(',').filter(Boolean);
  switch (command) {
    case 'up': {
      const mode = parseMode(values.mode ?? 'fleetq');
      const audit = values.audit === true;
      const addOns = values['add-ons']?.split(',').filter(Boolean) ?? [];
      const specs = (
        names ? names.map((name) => ({ name, mode })) : defaultSpecs(mode, positiveInt('clusters', values.clusters, 1))
      ).map((spec) => ({ ...spec, audit, ...(addOns.length > 0 && { addOns }) }));
      const clusters = await up({ clusters: specs, nodes: positiveInt('nodes', values.nodes, 3) });
      for (const c of clusters) console.log(`${c.name}\t${c.mode}\t${c.server}\t${c.kubeconfig}`);
      return;
    }
    case 'down': {
      const stopped = await down(names);
      console.log(stopped.length > 0 ? `stopped ${stopped.join(', ')}` : 'nothing was running');
      return;
    }
    case 'status': {
      const state = readState();
      if (state.clusters.length === 0) console.log(`no clusters in ${sandboxRoot()}`);
      for (const c of state.clusters) {
        const health = (await isHealthy(c)) ? 'healthy' : 'DOWN';
        console.log(`${c.name}\t${c.mode}\t${health}\t${c.server}\t${c.kubeconfig}`);
      }
      return;
    }
    case 'rbac': {
      for (const c of readState().clusters.filter((c) => !names || names.includes(c.name))) {
        const kc = new KubeConfig();
        kc.loadFromFile(c.kubeconfig);
        const { server, caFile, tokenFiles } = await ensureFleetqRbac(kc, { dir: join(c.dir, 'rbac') });
        console.log(
          `${c.name}\t${server}\tca ${caFile}\tforwarder ${tokenFiles.forwarder}\thandler ${tokenFiles.handler}`,
        );
      }
      return;
    }
    default:
      throw new Error(
        `usage: cli.ts up|down|status|rbac [--clusters N] [--nodes M] [--mode fleetq|upstream] [--names a,b] [--audit] [--add-ons x,y]`,
      );
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`sandbox: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
