// One forwarder process for the memory bench (test/bench/forwarder-memory.ts): functions/forwarder.ts through tsx
// on the Redis driver with its inspector open, read through its /metrics and the DevTools protocol.
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { freePort, waitFor } from '../../../infra/sandbox/process.js';
import type { BenchClient } from './client.js';
import { Inspector } from './inspector.js';
import { FLEET_REDIS_URL, parseMetric, rssOf } from '../pipeline/fleet-pipeline.js';
import { writeRegistry } from '../pipeline/fleet.js';
import { jsonLines, spawnTsx, type Proc } from '../processes.js';

export type RunningForwarder = { readonly proc: Proc; readonly port: number; readonly inspector: Inspector };

/**
 * The forwarder process: functions/forwarder.ts with the env FleetPipeline gives it (fleet-pipeline.ts), plus the
 * inspector on a loopback port. Resolves once it logs that it runs (its lists go on in the background).
 */
export async function startForwarder(
  cluster: ClusterState,
  queue: string,
  options: {
    /** FLEETQ_READS; unset, the forwarder's default. */
    readonly reads?: string;
    /** Each registry file written (in a temporary folder of its own), for the caller to remove at the end. */
    readonly registries: string[];
    /** Called at the spawn, before the process serves (for an RSS sampler). */
    readonly onSpawn: (proc: Proc) => void;
  },
): Promise<RunningForwarder> {
  const { registries, onSpawn } = options;
  const registry = writeRegistry([
    {
      name: cluster.name,
      kubeconfig: cluster.kubeconfig,
      owns: ['Deployment', 'ReplicaSet'],
      limits: { qps: 100, burst: 200 },
    },
  ]);
  registries.push(registry);
  const port = await freePort();
  const proc = spawnTsx(
    'functions/forwarder.ts',
    {
      FLEETQ_REGISTRY: registry,
      FLEETQ_DRIVER: 'redis',
      FLEETQ_QUEUE: queue,
      FLEETQ_REDIS_PREFIX: queue,
      REDIS_URL: FLEET_REDIS_URL,
      FLEETQ_CHECKPOINTS: 'redis',
      FLEETQ_METRICS_PORT: String(port),
      LOG_LEVEL: 'info',
      NODE_OPTIONS: '--inspect=127.0.0.1:0',
      ...(options.reads !== undefined && { FLEETQ_READS: options.reads }),
    },
    'forwarder',
  );
  onSpawn(proc);
  try {
    const line = await proc.waitForLine(/Debugger listening on ws:\/\//, 120_000);
    const url = /(ws:\/\/\S+)/.exec(line)?.[1] ?? '';
    const inspector = await Inspector.connect(url, 30_000);
    // tsx compiles the sources at start: minutes at a high load on 2 cores (fleet-pipeline.ts).
    await proc.waitForLine(/"Forwarder running"/, 360_000);
    return { proc, port, inspector };
  } catch (err) {
    await stopProc(proc);
    throw err;
  }
}

/** SIGTERM, and SIGKILL if it has not exited within 20 s. */
export async function stopProc(proc: Proc): Promise<void> {
  const killer = setTimeout(() => proc.child.kill('SIGKILL'), 20_000);
  await proc.stop('SIGTERM');
  clearTimeout(killer);
}

export const metricsText = async (port: number): Promise<string> =>
  (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();

export const metricSum = (text: string, name: string, match: Record<string, string> = {}): number =>
  parseMetric(text, name)
    .filter((s) => Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);

/** Objects of one kind in the whole cluster (limit=1: the apiserver says how many remain). */
export async function countObjects(client: BenchClient, path: string): Promise<number> {
  const list = await client.request<{ items: unknown[]; metadata?: { remainingItemCount?: number } }>(
    'GET',
    `${path}?limit=1`,
  );
  return list.items.length + (list.metadata?.remainingItemCount ?? 0);
}

/** Waits until the forwarder has handled no watch event for quietMs; returns how many it handled so far. */
export async function untilQuiet(port: number, quietMs: number, timeoutMs: number): Promise<number> {
  let last = -1;
  let since = Date.now();
  await waitFor(
    async () => {
      const events = metricSum(await metricsText(port), 'fleetq_forwarder_events_total');
      if (events !== last) {
        last = events;
        since = Date.now();
      }
      return Date.now() - since >= quietMs;
    },
    timeoutMs,
    500,
    `the forwarder's events quiet for ${quietMs} ms`,
  );
  return last;
}

export type Samples = { rssBytes: number[]; heapUsedBytes: number[]; codeBytes: number[] };

/** `samples` times, intervalMs apart: a forced full GC, the heap used after it, and the RSS. */
export async function sampleMemory(fwd: RunningForwarder, samples: number, intervalMs: number): Promise<Samples> {
  const out: Samples = { rssBytes: [], heapUsedBytes: [], codeBytes: [] };
  for (let i = 0; i < samples; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, intervalMs));
    const heap = await fwd.inspector.heapUsedAfterGc();
    out.heapUsedBytes.push(heap.used);
    out.codeBytes.push(heap.code);
    out.rssBytes.push(rssOf(fwd.proc.child.pid));
  }
  return out;
}

/** Synced: the first list of each watched resource is done (relists{reason=initial}). */
export async function untilSynced(
  port: number,
  kinds: ReadonlyArray<{ readonly resource: string }>,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    async () => {
      const text = await metricsText(port);
      return kinds.every(
        (k) => metricSum(text, 'fleetq_forwarder_relists_total', { resource: k.resource, reason: 'initial' }) >= 1,
      );
    },
    timeoutMs,
    500,
    `the forwarder listed ${kinds.map((k) => k.resource).join(', ')}`,
  );
}

/** Waits until the forwarder has logged a 'Listed' line for each of the resources. */
export async function untilListed(proc: Proc, resources: readonly string[], timeoutMs: number): Promise<void> {
  await waitFor(
    async () => {
      const listed = new Set(
        jsonLines(proc)
          .filter((l) => l.message === 'Listed')
          .map((l) => l.resource),
      );
      return resources.every((r) => listed.has(r));
    },
    timeoutMs,
    500,
    `the restarted forwarder listed ${resources.join(', ')}`,
  );
}
