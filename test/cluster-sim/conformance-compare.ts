// The simulator checked against a real apiserver: the conformance suite's ReplicaSet and Deployment scenarios
// (test/conformance/scenarios/{replicaset,deployment}.ts) run at once on side A, the sandbox cluster fleetq-1 (a real
// kube-apiserver with kwok, served by fleetq as the conformance suite serves it: test/helpers/conformance/fleetq.ts),
// and on side B, one simulated cluster served by a second fleetq in this process (owning Deployment and ReplicaSet,
// the same API budget). The harness's runner compares the normalized states at each compare step and the Events
// fleetq wrote on each side (reason + type per workload). Both sides run fleetq: a difference is the simulator's.
//   npx tsx test/cluster-sim/conformance-compare.ts [--real fleetq-1] [--only <regex>] [--parallel 2] [--json out.json]
// --real: a fleetq-mode sandbox cluster (default the shared fleetq-1; one of your own, `npx tsx infra/sandbox/cli.ts up
// --clusters 1 --mode fleetq --names simref-1`, keeps the run apart from other tests that run fleetq on fleetq-1).
// Exit status 1 when a scenario differs. Result of the last run: docs/cluster-sim.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterState } from '../../infra/sandbox/cluster.js';
import { SandboxMode } from '../../infra/sandbox/modes.js';
import { startAllInOne } from '../../functions/all-in-one.js';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { Side } from '../helpers/conformance/client.js';
import { startFleetq } from '../helpers/conformance/fleetq.js';
import { conformanceOptions, pool, runScenario, summarize, summaryLine } from '../helpers/conformance/runner.js';
import { deleteQueueKeys } from '../helpers/queue/redis.js';
import { DEPLOYMENT_SCENARIOS } from '../conformance/scenarios/deployment.js';
import { REPLICASET_SCENARIOS } from '../conformance/scenarios/replicaset.js';
import { SimServer } from './sim-server.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    parallel: { type: 'string', default: '2' },
    json: { type: 'string' },
    real: { type: 'string', default: 'fleetq-1' },
  },
});
const SIM = 'sim-conformance';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const only = values.only ? new RegExp(values.only) : undefined;
const scenarios = [...REPLICASET_SCENARIOS, ...DEPLOYMENT_SCENARIOS].filter((s) => !only || only.test(s.name));

async function main(): Promise<number> {
  // kwok's defaults on the sandbox: pods bound and Running within about a second.
  const dir = mkdtempSync(join(tmpdir(), 'fleetq-sim-conformance-'));
  // kubectl (the rollout pause/resume/undo steps) sends its token only over HTTPS: a self-signed certificate.
  const tls = { key: join(dir, 'tls.key'), cert: join(dir, 'tls.crt') };
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
      '-subj',
      '/CN=127.0.0.1',
      '-days',
      '1',
      '-keyout',
      tls.key,
      '-out',
      tls.cert,
    ]),
    { stdio: 'ignore' },
  );
  const server = await SimServer.start([SIM], {
    podScheduleMs: 100,
    podReadyMs: 300,
    podDeleteMs: 100,
    tls: { key: readFileSync(tls.key, 'utf8'), cert: readFileSync(tls.cert, 'utf8') },
  });
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeconfig(SIM), { mode: 0o600 });
  const kubectlKubeconfig = join(dir, 'kubeconfig-tls');
  writeFileSync(kubectlKubeconfig, server.kubeconfig(SIM, { tls: true }), { mode: 0o600 });
  const registryPath = server.writeRegistry(dir, () => ({
    owns: ['Deployment', 'ReplicaSet'],
    limits: { qps: 50, burst: 100 },
  }));
  const queue = `sim-conformance-${process.pid}`;
  const simFleetq = await startAllInOne({
    config: loadConfig(process.env, {
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queue,
      REDIS_URL,
      FLEETQ_CONCURRENCY: '8',
      LOG_LEVEL: process.env.SIM_LOG_LEVEL ?? 'error',
    }),
    registry: new ClusterRegistry(loadRegistry(registryPath), () => undefined),
    dataDir: dir,
  });
  const realFleetq = await startFleetq(values.real ?? 'fleetq-1');
  const stopAll = async (): Promise<void> => {
    await realFleetq.stop();
    await simFleetq.stop();
    await deleteQueueKeys(REDIS_URL, queue);
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
  // Stopped early: both fleetqs stop (the lock on the real cluster is released) before the process goes.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void stopAll().finally(() => process.exit(130)));
  const simState: ClusterState = {
    name: SIM,
    mode: SandboxMode.Fleetq,
    dir,
    // Read by the kubectl steps only (the harness's REST client loads simKc below).
    kubeconfig: kubectlKubeconfig,
    server: server.url(SIM),
    nodes: 1,
    ports: { etcd: 0, etcdPeer: 0, apiserver: server.port },
    pids: {} as ClusterState['pids'],
    startedAt: new Date().toISOString(),
  };
  const simKc = new KubeConfig();
  simKc.loadFromFile(kubeconfig);
  const base = conformanceOptions({ ...process.env, CONFORMANCE_A: values.real, CONFORMANCE_B: SIM });
  const options = {
    ...base,
    openSide: (cluster: string, label: string, scenario: string) =>
      cluster === SIM ? Side.openOn(label, simState, simKc, scenario) : Side.open(cluster, label, scenario),
  };
  try {
    const results = await Promise.all(
      pool(
        // Each report printed as its scenario ends: a run stopped early keeps what it found.
        scenarios.map((s) => () => runScenario(s, options).then((r) => (console.log(r.report), r))),
        Number(values.parallel),
      ),
    );
    const summary = summarize('cluster-sim-conformance', base, results);
    console.log(summaryLine(summary));
    const out = results.map((r) => ({
      scenario: r.name,
      kind: r.kind,
      agreed: r.ok,
      durationMs: r.durationMs,
      failures: r.failures,
      differences: r.checkpoints.flatMap((c) => c.differences.map((d) => ({ at: c.label, ...d }))),
      eventDifferences: r.checkpoints.flatMap((c) => c.eventDifferences.map((d) => ({ at: c.label, ...d }))),
    }));
    if (values.json) writeFileSync(values.json, `${JSON.stringify({ summary, results: out }, null, 2)}\n`);
    return results.every((r) => r.ok) ? 0 : 1;
  } finally {
    await stopAll();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
