// What the fleet bench (test/bench/fleet.ts) measures per fleet size, and the table it prints.
import type { RolloutTimes } from '../pipeline/fleet-pipeline.js';

export type SizeResult = {
  clusters: number;
  startClustersS: number;
  freeMemGiBAfterStart: number;
  converged: number;
  createMs: { median: number | null; max: number | null };
  updateMs: { median: number | null; max: number | null };
  wallMs: number;
  rssPeakMiB: Record<string, number>;
  redis: {
    bytes: number;
    keys: number;
    usedMemoryDelta: number;
    byKind: Record<string, unknown>;
    /** Commands from the rollouts' start to convergence (INFO commandstats, in-script calls included). */
    calls: Record<string, number>;
    /** Commands/s of the idle pipeline, and the rollouts' commands less that rate × their time. */
    idleCallsPerS: number;
    busyCalls: number;
  };
  apiRequestsPerCluster: { median: number; min: number; max: number };
  reconcilesPerCluster: { median: number; min: number; max: number };
  /** Over both workers: CPU ms (process_cpu_seconds_total) and wall ms (fleetq_reconcile_duration_seconds) per reconcile. */
  workerCpuMsPerReconcile: number;
  reconcileWallMsPerReconcile: number;
  forwarderCpuS: number;
  /** Watch events the forwarder saw and keys it enqueued, per cluster (median). */
  forwarderEventsPerCluster: number;
  forwarderKeysPerCluster: number;
  perCluster: Array<RolloutTimes & { requests: number; reconciles: number }>;
  load: string;
};

export type NotStarted = { clusters: number; load: string; reason: string };

function perReconcile(r: SizeResult): string {
  const calls = r.redis.busyCalls;
  const reconciles = r.perCluster.reduce((a, p) => a + p.reconciles, 0);
  return reconciles > 0 ? (calls / reconciles).toFixed(1) : '—';
}
function cacheBytesPerObject(r: SizeResult): string {
  const e = r.redis.byKind['cache:e'] as { bytes: number; items: number } | undefined;
  return e && e.items > 0 ? String(Math.round(e.bytes / e.items)) : '—';
}
const s = (ms: number | null): string => (ms === null ? '—' : `${(ms / 1000).toFixed(1)}`);

export function printFleet(
  out: readonly SizeResult[],
  run: {
    readonly replicas: number;
    readonly workers: string;
    readonly concurrency: string;
    readonly stormKeys: number;
  },
  notStarted: NotStarted | undefined,
): void {
  console.log(
    `fleet bench: ${run.replicas}-replica Deployment created then rolled, every cluster at once; 1 forwarder,`,
  );
  console.log(`${run.workers} workers × concurrency ${run.concurrency}, Redis driver`);
  console.log(
    [
      'clusters',
      'converged',
      'create s (med/max)',
      'update s (med/max)',
      'forwarder RSS MiB',
      'worker RSS MiB',
      'Redis KiB (keys)',
      'API req/cluster (med)',
      'reconciles/cluster',
      'Redis cmds/reconcile (idle cmds/s)',
      'worker CPU ms/reconcile',
      'reconcile wall ms',
      'cache B/object',
      'load',
    ].join('\t'),
  );
  for (const r of out) {
    const workers = Object.entries(r.rssPeakMiB)
      .filter(([k]) => k.startsWith('worker'))
      .map(([, v]) => v);
    console.log(
      [
        r.clusters,
        `${r.converged}/${r.clusters}`,
        `${s(r.createMs.median)}/${s(r.createMs.max)}`,
        `${s(r.updateMs.median)}/${s(r.updateMs.max)}`,
        r.rssPeakMiB.forwarder ?? '—',
        workers.join(', '),
        `${Math.round(r.redis.bytes / 1024)} (${r.redis.keys})`,
        r.apiRequestsPerCluster.median,
        r.reconcilesPerCluster.median,
        `${perReconcile(r)} (${r.redis.idleCallsPerS})`,
        r.workerCpuMsPerReconcile,
        r.reconcileWallMsPerReconcile,
        cacheBytesPerObject(r),
        r.load,
      ].join('\t'),
    );
  }
  const stormResult = (out[0] as (SizeResult & { storm?: { cases: Array<Record<string, unknown>> } }) | undefined)
    ?.storm;
  if (stormResult) {
    console.log(`storm: ${run.stormKeys} keys of one cluster at once; the quiet key's wait (change → status observed)`);
    for (const c of stormResult.cases)
      console.log(
        `  ${String(c.case)}\t${String(c.waitMs)} ms\tdrain ${String(c.drainMs ?? '—')} ms\tload ${String(c.load)}`,
      );
  }
  if (notStarted)
    console.log(`${notStarted.clusters} clusters could not start (load ${notStarted.load}): ${notStarted.reason}`);
}
