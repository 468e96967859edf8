// What one worker keeps per cluster it served, measured in this process: the worker's own deps and loop
// (makeDeps, WorkerLoop: the code of functions/worker.ts) on a redis-server of its own, the simulated clusters in a
// process of their own (test/cluster-sim/cli.ts), so their objects are not counted here. One Deployment is created
// in each cluster and its key added; once every one has its ReplicaSet and the loop is idle, the heap is measured
// after a full GC. Then the process waits FLEETQ_CLUSTER_IDLE_MS (--idle-ms) with no key, serves one key of one
// more cluster (a sweep runs on access), and measures again: what is left is what eviction does not free (the
// per-cluster metric series, the registry's entries).
//   node --expose-gc --import tsx test/bench/worker-cluster-memory.ts [--clusters 200] [--warm 20]
//     [--idle-ms 3000] [--snapshot /tmp/worker.heapsnapshot] [--json out.json]
// --idle-ms 0 keeps everything (the behaviour before eviction). --snapshot writes a heap snapshot once served.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { kwokDeployment } from '../helpers/cluster-sim/sim-fleet.js';
import { startOwnRedis } from '../helpers/queue/redis.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { closeDeps, makeDeps } from '../../shared/runtime/deps.js';
import { WorkerLoop } from '../../shared/runtime/loop.js';
import { waitFor } from '../../infra/sandbox/process.js';

const { values } = parseArgs({
  options: {
    clusters: { type: 'string', default: '200' },
    warm: { type: 'string', default: '20' },
    'idle-ms': { type: 'string', default: '3000' },
    snapshot: { type: 'string' },
    json: { type: 'string' },
  },
});
const N = Number(values.clusters);
const WARM = Number(values.warm);
const IDLE_MS = Number(values['idle-ms']);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx');
const log = (m: string): void => console.error(`worker-cluster-memory: ${m}`);
const KiB = (b: number): number => Math.round(b / 102.4) / 10;

function measure(): NodeJS.MemoryUsage {
  for (let i = 0; i < 4; i++) gc?.();
  return process.memoryUsage();
}

type Sim = { registry: string; port: number; stop(): void };

async function startSim(clusters: number): Promise<Sim> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/cluster-sim/cli.ts', '--clusters', String(clusters), '--prefix', 'mem'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`cluster-sim exited ${code}`)));
  });
  const out = JSON.parse(line) as { registry: string; port: number };
  return { ...out, stop: () => child.kill('SIGTERM') };
}

async function main(): Promise<void> {
  const total = WARM + N + 1;
  const redis = await startOwnRedis();
  const sim = await startSim(total).catch(async (err: unknown) => {
    await redis.stop();
    throw err;
  });
  try {
    await run(redis.url, sim, total);
  } finally {
    sim.stop();
    await redis.stop();
  }
}

async function run(redisUrl: string, sim: Sim, total: number): Promise<void> {
  const names = Array.from({ length: total }, (_, i) => `mem-${i + 1}`);
  const { readFileSync } = await import('node:fs');
  const { dirname, join } = await import('node:path');
  const token = (c: string) => readFileSync(join(dirname(sim.registry), 'tokens', c), 'utf8');
  const api = async (c: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${sim.port}/clusters/${c}${path}`, {
      method,
      headers: { authorization: `Bearer ${token(c)}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!res.ok && res.status !== 409) throw new Error(`${method} ${path} in ${c}: ${res.status}`);
    return (await res.json()) as { items?: unknown[] };
  };
  const config = loadConfig({
    FLEETQ_REGISTRY: sim.registry,
    FLEETQ_DRIVER: 'redis',
    REDIS_URL: redisUrl,
    FLEETQ_QUEUE: 'wcm',
    LOG_LEVEL: 'error',
    FLEETQ_CLUSTER_IDLE_MS: String(IDLE_MS),
  });
  const deps = await makeDeps(config, { service: 'worker-cluster-memory' });
  const loop = new WorkerLoop(deps, { concurrency: 16, pollMs: 200 });
  loop.start();

  const serve = async (clusters: readonly string[]): Promise<void> => {
    for (const c of clusters) {
      await api(c, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
      await api(c, 'POST', '/apis/apps/v1/namespaces/bench/deployments', kwokDeployment('app-0', 1, 'app:1'));
      await deps.queue.add({ cluster: c, kind: 'Deployment', namespace: 'bench', name: 'app-0' });
    }
    const left = new Set(clusters);
    await waitFor(
      async () => {
        for (const c of [...left])
          if (((await api(c, 'GET', '/apis/apps/v1/namespaces/bench/replicasets')).items ?? []).length > 0)
            left.delete(c);
        return left.size === 0 && loop.busy === 0;
      },
      600_000,
      200,
      `a ReplicaSet in each of ${clusters.length} clusters`,
    );
    await deps.events?.flush(30_000);
  };

  await serve(names.slice(0, WARM));
  const m0 = measure();
  const t = Date.now();
  await serve(names.slice(WARM, WARM + N));
  log(`${N} clusters served in ${Date.now() - t} ms`);
  const m1 = measure();
  if (values.snapshot) log(`heap snapshot ${v8.writeHeapSnapshot(values.snapshot)}`);
  // Idle, then one key of one more cluster: its access sweeps the idle ones away.
  await new Promise((r) => setTimeout(r, IDLE_MS > 0 ? IDLE_MS + 1000 : 0));
  await serve(names.slice(WARM + N));
  const m2 = measure();
  const per = (a: NodeJS.MemoryUsage, b: NodeJS.MemoryUsage) => ({
    heapUsedKiB: KiB((b.heapUsed - a.heapUsed) / N),
    externalKiB: KiB((b.external - a.external) / N),
    rssKiB: KiB((b.rss - a.rss) / N),
  });
  const report = {
    command: `node --expose-gc --import tsx test/bench/worker-cluster-memory.ts ${process.argv.slice(2).join(' ')}`,
    clusters: N,
    idleMs: IDLE_MS,
    heldPerCluster: per(m0, m1),
    afterIdlePerCluster: per(m0, m2),
    recordersHeld: deps.events?.size,
    heapUsedMiB: {
      warm: KiB(m0.heapUsed / 1024),
      served: KiB(m1.heapUsed / 1024),
      afterIdle: KiB(m2.heapUsed / 1024),
    },
  };
  console.log(JSON.stringify(report, null, 2));
  if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  await loop.stop();
  await closeDeps(deps);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
