// Starts N simulated clusters in this process and writes a fleetq cluster registry for them; runs until SIGTERM/SIGINT.
//   npx tsx test/cluster-sim/cli.ts --clusters 50 [--prefix sim] [--port 0] [--dir /tmp/sim]
//       [--owns Deployment,ReplicaSet] [--qps 100] [--burst 200] [--pod-ready-ms 100] [--bookmark-ms 10000]
// Prints one JSON line: { registry, port, clusters, kubeconfigs } (kubeconfigs: a folder with one file per cluster).
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SimServer } from './sim-server.js';

const { values } = parseArgs({
  options: {
    clusters: { type: 'string', default: '10' },
    prefix: { type: 'string', default: 'sim' },
    port: { type: 'string', default: '0' },
    dir: { type: 'string' },
    owns: { type: 'string', default: 'Deployment,ReplicaSet' },
    qps: { type: 'string', default: '100' },
    burst: { type: 'string', default: '200' },
    'pod-schedule-ms': { type: 'string', default: '20' },
    'pod-ready-ms': { type: 'string', default: '100' },
    'bookmark-ms': { type: 'string', default: '10000' },
    'history-size': { type: 'string', default: '10000' },
  },
});

const n = Number(values.clusters);
const names = Array.from({ length: n }, (_, i) => `${values.prefix}-${i + 1}`);
const server = await SimServer.start(names, {
  port: Number(values.port),
  podScheduleMs: Number(values['pod-schedule-ms']),
  podReadyMs: Number(values['pod-ready-ms']),
  bookmarkMs: Number(values['bookmark-ms']),
  historySize: Number(values['history-size']),
});
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'fleetq-sim-'));
const owns = (values.owns ?? '').split(',').filter(Boolean);
// Fresh values per entry: one array shared by every entry is written as a YAML alias, and the registry's parser
// refuses a file of many aliases (an alias bomb) past a few hundred clusters.
const registry = server.writeRegistry(dir, () => ({
  owns: [...owns],
  limits: { qps: Number(values.qps), burst: Number(values.burst) },
}));
const kubeconfigs = join(dir, 'kubeconfigs');
mkdirSync(kubeconfigs, { recursive: true });
for (const name of names) writeFileSync(join(kubeconfigs, name), server.kubeconfig(name), { mode: 0o600 });
console.log(JSON.stringify({ registry, port: server.port, clusters: n, kubeconfigs }));
const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
