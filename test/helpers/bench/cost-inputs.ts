// What the cost model (test/bench/cost-model.ts) reads: the fleet, Lambda and forwarder benches' JSON and
// docs/cost-model-inputs.json; and how it writes: markdown tables into docs/cost-model.md's tables section.
import { readFileSync, writeFileSync } from 'node:fs';

export type FleetSize = {
  clusters: number;
  rssPeakMiB: Record<string, number>;
  redis: { bytes: number; keys: number; byKind: Record<string, { bytes: number; keys: number; items: number }> };
  redisCalls: number;
  apiRequestsPerCluster: { median: number };
  reconcilesPerCluster: { median: number };
  workerCpuMsPerReconcile: number;
  reconcileWallMsPerReconcile: number;
  forwarderEventsPerCluster: number;
  storm?: { keys: number; cases: Array<{ case: string; waitMs: number | null; callsPerKey?: number }> };
};
export type Fleet = {
  at: string;
  replicas: number;
  sizes: Array<FleetSize & { redis: { calls: Record<string, number>; busyCalls: number; idleCallsPerS: number } }>;
};
export type Inputs = {
  fleet: { clusters: number; workloadsPerCluster: number; podsPerWorkload: number; nodesPerCluster: number };
  assume: {
    rolloutsPerWorkloadPerDay: number;
    resyncSeconds: number;
    replicaSetsPerWorkload: number;
    redisHeadroom: number;
    forwarderClustersPerProcessByMemoryGiB: number;
    workerVcpuUtilization: number;
    forwarderBaselineMiB: number;
    forwarderCpuUtilization: number;
  };
  measured: {
    queueKeysPerSecondOneRedis: { value: number; source: string };
    apiRequestsPerReconcileByKind: Record<string, { value: number; source: string }>;
  };
  prices: { asOf: string; note: string; [k: string]: number | string };
};

/** What cost-model reads of `test/bench/lambda-cost.ts --json`. */
export type LambdaBench = {
  date: string;
  deployments: number;
  replicas: number;
  load: { before: number[]; after: number[] };
  lambda: {
    configuredMemoryMb: number;
    invocations: number;
    records: number;
    reconciles: number;
    billedMsTotal: number;
    perReconcileMs: { median: number; p90: number };
  };
  memory: { peakRssMiB: number; smallestLambdaMb: number };
  sqs: {
    totalWithoutEmptyReceives: number;
    keysHandedOut: number;
    perKey: number;
    perKeyIfMappingBatchesDeletes: number;
  };
};
/** What cost-model reads of `test/bench/forwarder-memory.ts --json`. */
export type ForwarderBench = {
  at: string;
  load: string;
  readMode: string;
  steps: Array<{ objects: number }>;
  bytesPerObject: { heap: number };
  cpuMsPerEvent?: number;
  restart: { objects: number; rssPeakMiB: number; firstStartRssPeakMiB: number };
};

export const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** A number with `d` decimals and thousands separators. */
export const f = (x: number, d = 0): string =>
  x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** The lines of a markdown table, and a blank line after it. */
export function markdownTable(head: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string[] {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ];
}

/** Replaces the part of the document between `<!-- tables:begin -->` and `<!-- tables:end -->` with `text`. */
export function replaceTablesSection(docPath: string, text: string): void {
  const doc = readFileSync(docPath, 'utf8');
  const begin = '<!-- tables:begin -->';
  const end = '<!-- tables:end -->';
  const i = doc.indexOf(begin);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${docPath} has no ${begin} … ${end} section`);
  writeFileSync(docPath, `${doc.slice(0, i + begin.length)}\n${text}\n${doc.slice(j)}`);
}

/** Reconciles of a whole fleet size: the per-cluster median times the clusters. */
export const totalReconciles = (s: FleetSize): number => s.reconcilesPerCluster.median * s.clusters;

/** The table of the fleet bench's sizes: memory, Redis and API figures per reconcile. */
export function fleetSizesTable(sizes: ReadonlyArray<FleetSize>): string[] {
  return markdownTable(
    [
      'clusters',
      'forwarder RSS MiB',
      'worker RSS MiB (each)',
      'Redis MiB',
      'Redis cmds/reconcile',
      'API req/reconcile',
      'worker CPU ms/reconcile',
      'reconcile wall ms',
    ],
    sizes.map((s) => [
      s.clusters,
      f(s.rssPeakMiB.forwarder ?? 0),
      Object.entries(s.rssPeakMiB)
        .filter(([k]) => k.startsWith('worker'))
        .map(([, v]) => f(v))
        .join(', '),
      f(s.redis.bytes / 2 ** 20, 1),
      f(s.redisCalls / totalReconciles(s), 1),
      f(s.apiRequestsPerCluster.median / s.reconcilesPerCluster.median, 2),
      f(s.workerCpuMsPerReconcile, 1),
      f(s.reconcileWallMsPerReconcile, 1),
    ]),
  );
}
