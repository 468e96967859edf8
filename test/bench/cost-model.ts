// The cost model's tables (docs/cost-model.md), regenerated from measured figures. Reads the fleet bench's JSON
// (`npx tsx test/bench/fleet.ts --json fleet.json`), the Lambda bench's (`test/bench/lambda-cost.ts --json`:
// billed ms and memory of a reconcile, SQS requests per key, bytes logged and EMF metrics per reconcile), the
// forwarder bench's (`test/bench/forwarder-memory.ts --json`: heap per watched object, relist peak, CPU per event)
// and docs/cost-model-inputs.json (the figures other benches printed, each with its command, date and load, and the
// prices, each with its source, and fleet shape assumed), and prints the markdown tables of docs/cost-model.md;
// --write replaces the part of docs/cost-model.md between the `<!-- tables:begin -->` and `<!-- tables:end -->`
// markers.
//   npx tsx test/bench/cost-model.ts --fleet fleet.json [--lambda docs/cost-model-lambda.json]
//     [--forwarder docs/cost-model-forwarder.json] [--inputs docs/cost-model-inputs.json] [--sim sim.json] [--write]
// --sim takes a JSON document whose `fleet`, `assume`, `measured` and `prices` entries replace the inputs' (merged
// key by key), and whose `unit` entries replace the per-unit figures the benches give (each named in UNIT_FIGURES
// below: e.g. a fleet simulation's reconcilesPerRollout, eventsPerRollout, apiRequestsPerReconcile,
// redisCommandsPerReconcile, forwarderClustersPerProcess, promSeriesPerCluster); the tables then say which
// figures came from it. A fleet-sim.ts report (`runs`, each with its `costModel`: docs/cost-model-sim.json) is read
// as such a document: simDocument below says which of its figures it maps, and which it leaves to the benches.
import { parseArgs } from 'node:util';
import {
  f,
  fleetSizesTable,
  markdownTable,
  readJson,
  replaceTablesSection,
  totalReconciles,
  type Fleet,
  type ForwarderBench,
  type Inputs,
  type LambdaBench,
} from '../helpers/bench/cost-inputs.js';

const { values } = parseArgs({
  options: {
    fleet: { type: 'string' },
    inputs: { type: 'string', default: 'docs/cost-model-inputs.json' },
    lambda: { type: 'string', default: 'docs/cost-model-lambda.json' },
    forwarder: { type: 'string', default: 'docs/cost-model-forwarder.json' },
    sim: { type: 'string' },
    doc: { type: 'string', default: 'docs/cost-model.md' },
    write: { type: 'boolean', default: false },
  },
});

/** What this model reads beyond cost-inputs.ts's types: the observability and network inputs, and prices' sources. */
type ModelInputs = Inputs & {
  assume: Inputs['assume'] & {
    resyncSource?: string;
    workerBaselineMiB: number;
    workerMinInstances: number;
    workerLogsToCloudWatch: boolean;
    natBytesPerApiRequest: number;
    natBytesPerSqsRequest: number;
    lambdaInVpcThroughNat: boolean;
    breakEvenMaxClusters: number;
  };
  measured: Inputs['measured'] & {
    promSeries?: { base: number; perCluster: number; source: string };
    forwarderCpuMsPerEvent?: { value: number; raw?: number; source: string };
  };
  prices: Inputs['prices'] & { sources: Record<string, string> };
};
/** The Lambda bench's figures this model adds (lambda-cost.ts writes them beside the report's). */
type LambdaExtra = {
  logs?: { bytesPerReconcile: number; logBytesPerReconcile: number; emfBytesPerReconcile: number };
  emf?: { distinctMetrics: number; distinctMetricsWithCluster: number; clusters: number };
  fold?: { windowMs: number; adds: number | null; sends: number | null };
};
type Sim = Partial<{
  fleet: Partial<Inputs['fleet']>;
  assume: Partial<ModelInputs['assume']>;
  measured: Partial<ModelInputs['measured']>;
  prices: Partial<ModelInputs['prices']>;
  unit: Partial<Record<UnitFigure, number>>;
  source: string;
}>;

/** The per-unit figures a --sim document may replace (by these names). */
const UNIT_FIGURES = [
  'redisCommandsPerReconcile',
  'redisCommandsPerIdleKey',
  'cacheBytesPerObject',
  'apiRequestsPerReconcile',
  'reconcilesPerRollout',
  'eventsPerRollout',
  'lambdaBilledMsPerReconcile',
  'sqsMessagesPerRolloutReconcile',
  'sqsRequestsPerMessage',
  'workerCpuMsPerReconcile',
  'forwarderClustersPerProcess',
  'logBytesPerReconcile',
  'emfMetricsPerCluster',
  'promSeriesPerCluster',
  'workerRssKiBPerCluster',
] as const;
type UnitFigure = (typeof UNIT_FIGURES)[number];

/** What cost-model reads of a fleet-sim.ts report (docs/cost-model-sim.json). */
type FleetSimReport = {
  runs: Array<{
    size: { clusters: number; deploymentsPerCluster: number };
    recorded?: string;
    costModel: {
      workerRssGrowthKiBPerCluster: number;
      workerCpuMsPerReconcile: number;
      redisCallsPerReconcile: number;
      redisBytesPerDeployment: number;
      forwarderRssGrowthKiBPerCluster: number;
    };
  }>;
};
/**
 * The --sim document: as given, or mapped from a fleet-sim.ts report. Of a report's figures, two replace the
 * benches', both from the run nearest this fleet's shape (the most Deployments in all: 1,000 clusters × 50 once it
 * has run): Redis commands per reconcile (queue, cache, API budget and forwarder writes, idle polling included: a
 * run of few reconciles spreads its polling over fewer of them) and a worker's RSS growth per cluster served (the
 * fleet bench's 5-20 clusters were within a heap's noise). The others stay the sandbox's, which are closer to this
 * fleet's shape: worker CPU per reconcile (sim: 1-replica Deployments; bench: 10 replicas), cache bytes per object
 * (sim: Redis bytes per Deployment, all keys), forwarder memory (sim: clusters of a few dozen to 150 objects; bench:
 * heap and relist per object at 6,622), reconciles and API requests per rollout (sim: 1 replica, not 20).
 */
function simDocument(path: string): Sim {
  const doc = readJson<Sim & Partial<FleetSimReport>>(path);
  if (doc.runs === undefined) return doc;
  const runs = doc.runs;
  if (runs.length === 0) throw new Error(`--sim ${path}: no runs`);
  const deployments = (r: (typeof runs)[number]) => r.size.clusters * r.size.deploymentsPerCluster;
  const nearest = runs.reduce((x, y) => (deployments(y) > deployments(x) ? y : x));
  const sizes = runs.map((r) => `${r.size.clusters} × ${r.size.deploymentsPerCluster}`).join(' and ');
  return {
    ...doc,
    unit: {
      redisCommandsPerReconcile: nearest.costModel.redisCallsPerReconcile,
      workerRssKiBPerCluster: nearest.costModel.workerRssGrowthKiBPerCluster,
      ...doc.unit,
    },
    source:
      doc.source ??
      `${path} (fleet-sim.ts on simulated clusters, ${sizes} clusters × Deployments, figures of the ${nearest.size.clusters} × ${nearest.size.deploymentsPerCluster} run; ${nearest.recorded ?? ''})`,
  };
}
const simReport =
  values.sim === undefined ? undefined : readJson<Partial<FleetSimReport>>(values.sim).runs?.map((r) => r.costModel);
const sim = values.sim === undefined ? ({} as Sim) : simDocument(values.sim);
const base = readJson<ModelInputs>(values.inputs as string);
const inputs: ModelInputs = {
  ...base,
  fleet: { ...base.fleet, ...sim.fleet },
  assume: { ...base.assume, ...sim.assume },
  measured: { ...base.measured, ...sim.measured } as ModelInputs['measured'],
  prices: { ...base.prices, ...sim.prices } as ModelInputs['prices'],
};
for (const name of Object.keys(sim.unit ?? {})) {
  if (!(UNIT_FIGURES as readonly string[]).includes(name))
    throw new Error(`--sim unit.${name}: not one of ${UNIT_FIGURES.join(', ')}`);
}
const simSource = sim.source ?? values.sim ?? '';
/** A per-unit figure: the --sim document's when it gives one, else the benches'. */
const unit = (name: UnitFigure, measured: number): number => sim.unit?.[name] ?? measured;
const fromSim = (name: UnitFigure, from: string): string =>
  sim.unit?.[name] === undefined ? from : `--sim ${simSource} (replaces: ${from})`;

const lambdaBench = readJson<LambdaBench & LambdaExtra>(values.lambda as string);
const forwarderBench = readJson<ForwarderBench>(values.forwarder as string);
if (!values.fleet) throw new Error('--fleet <fleet bench JSON> is required');
const fleet = readJson<Fleet>(values.fleet);
// Commands of the rollouts less what the idle pipeline sends in the same time (fleet.ts measures both).
// The idle subtraction can come out negative (the idle window, right after start, is not always idle), so the
// raw count is used: an upper bound that includes the idle polling during the rollouts.
const sizes = fleet.sizes.map((s) => ({ ...s, redisCalls: Object.values(s.redis.calls).reduce((a, b) => a + b, 0) }));
const largest = sizes.reduce((a, b) => (b.clusters > a.clusters ? b : a));
const price = (k: string): number => Number(inputs.prices[k]);
const lines: string[] = [];
const table = (head: string[], rows: Array<Array<string | number>>): void =>
  void lines.push(...markdownTable(head, rows));

// --- measured, per unit -------------------------------------------------------------------------------------
const cmdsPerReconcile = unit('redisCommandsPerReconcile', largest.redisCalls / totalReconciles(largest));
const apiPerReconcile = unit(
  'apiRequestsPerReconcile',
  largest.apiRequestsPerCluster.median / largest.reconcilesPerCluster.median,
);
const cacheE = largest.redis.byKind['cache:e'];
const cacheBytesAll = Object.entries(largest.redis.byKind)
  .filter(([k]) => k.startsWith('cache:'))
  .reduce((a, [, v]) => a + v.bytes, 0);
const cacheObjects = cacheE?.items ?? 0;
const bytesPerObject = unit('cacheBytesPerObject', cacheObjects > 0 ? cacheBytesAll / cacheObjects : 0);
const queueKinds = Object.entries(largest.redis.byKind).filter(([k]) => k.startsWith('queue:'));
const stormCase = sizes[0]?.storm?.cases.find((c) => c.callsPerKey !== undefined);
const cmdsPerIdleKey = unit('redisCommandsPerIdleKey', stormCase?.callsPerKey ?? cmdsPerReconcile);
// Reconciles of one rollout of a 20-pod workload: the bench's per-cluster count covers a create and a rolling
// update of a `replicas`-pod Deployment; a rollout is taken as half of it, scaled linearly to the pod count.
const reconcilesPerRollout = unit(
  'reconcilesPerRollout',
  (largest.reconcilesPerCluster.median / 2) * (inputs.fleet.podsPerWorkload / fleet.replicas),
);
const eventsPerRollout = unit(
  'eventsPerRollout',
  (largest.forwarderEventsPerCluster / 2) * (inputs.fleet.podsPerWorkload / fleet.replicas),
);
// Lambda + SQS (lambda-cost.ts): billed time is the invocations' total over the reconciles they ran (records run
// concurrently in an invocation, so a reconcile's own wall time overstates its bill). Messages (records) per
// reconcile come from the bench's rollouts (the forwarder's add fold makes fewer of them); a resync key is one
// message.
const lb = lambdaBench.lambda;
const lambdaMsPerReconcile = unit('lambdaBilledMsPerReconcile', lb.billedMsTotal / lb.reconciles);
const recordsPerRolloutReconcile = unit('sqsMessagesPerRolloutReconcile', lb.records / lb.reconciles);
const recordsPerInvocation = lb.records / lb.invocations;
const sqsPerRecord = unit(
  'sqsRequestsPerMessage',
  lambdaBench.sqs.totalWithoutEmptyReceives / lambdaBench.sqs.keysHandedOut,
);
const foreignRecords = (lambdaBench.sqs as { foreignRecords?: number }).foreignRecords ?? 0;
const workerCpuMs = unit('workerCpuMsPerReconcile', largest.workerCpuMsPerReconcile);
const lambdaLoad = `load ${lambdaBench.load.before[0]}→${lambdaBench.load.after[0]}`;
const foldNote =
  lambdaBench.fold === undefined
    ? 'no add fold'
    : lambdaBench.fold.windowMs > 0
      ? `add fold ${lambdaBench.fold.windowMs} ms`
      : 'add fold off';
const lambdaFrom = `lambda-cost.ts, ${lambdaBench.deployments} Deployments × ${lambdaBench.replicas} created and rolled, ${foldNote}, ${lambdaBench.date.slice(0, 16)}, ${lambdaLoad}`;
// CloudWatch: what the function writes per reconcile (log lines and EMF lines; both are ingested), and the custom
// metrics its EMF names: those with a `cluster` dimension are one set per cluster, the others one set in all.
const logBytesPerReconcile = unit('logBytesPerReconcile', lambdaBench.logs?.bytesPerReconcile ?? NaN);
const workerLogBytesPerReconcile = lambdaBench.logs?.logBytesPerReconcile ?? logBytesPerReconcile;
const emf = lambdaBench.emf;
const emfPerCluster = unit('emfMetricsPerCluster', emf ? emf.distinctMetricsWithCluster / emf.clusters : NaN);
const emfFixed = emf ? emf.distinctMetrics - emf.distinctMetricsWithCluster : NaN;
// Prometheus series of a long-running worker: a base, and a set per cluster it serves.
const prom = inputs.measured.promSeries;
const promPerCluster = unit('promSeriesPerCluster', prom?.perCluster ?? NaN);
// The forwarder (forwarder-memory.ts): V8 heap per watched object at rest, and the transient RSS of a relist
// (a restart on the bench's cluster, over a start on an empty one).
const fwdHeapPerObject = forwarderBench.bytesPerObject.heap;
const { restart } = forwarderBench;
const relistBytesPerObject = ((restart.rssPeakMiB - restart.firstStartRssPeakMiB) * 2 ** 20) / restart.objects;
const fwdMaxObjects = Math.max(...forwarderBench.steps.map((x) => x.objects));
// Its CPU per watch event: the bench JSON's when it has it, else the inputs' (a later run of the same bench).
const fwdCpuMsMeasured = inputs.measured.forwarderCpuMsPerEvent;
const fwdCpuMsPerEvent = forwarderBench.cpuMsPerEvent ?? fwdCpuMsMeasured?.value;
// A worker's RSS per cluster it serves (per-cluster clients, budgets, recorders): only a fleet simulation gives it.
const workerKiBPerCluster = unit('workerRssKiBPerCluster', NaN);
const range = (xs: number[] | undefined, d: number, scale = 1): string =>
  xs === undefined ? '' : `${f(Math.min(...xs) * scale, d)}-${f(Math.max(...xs) * scale, d)}`;
const fwdFrom = `forwarder-memory.ts, ${f(fwdMaxObjects)} objects, ${forwarderBench.readMode} reads, ${forwarderBench.at.slice(0, 16)}, load ${forwarderBench.load.split(' ')[0]}`;

lines.push(`Fleet bench of ${fleet.at} (${fleet.replicas}-replica Deployment created and rolled on every cluster):`);
lines.push('');
lines.push(...fleetSizesTable(sizes));
table(
  ['unit cost', 'value', 'from'],
  [
    [
      'Redis commands per reconcile (queue + cache + API budget + forwarder writes; upper bound, idle polling included)',
      f(cmdsPerReconcile, 1),
      fromSim('redisCommandsPerReconcile', `fleet bench, ${largest.clusters} clusters (INFO commandstats)`),
    ],
    [
      'Redis commands per idle key (resync: add, get, cache read, done)',
      f(cmdsPerIdleKey, 1),
      fromSim('redisCommandsPerIdleKey', 'fleet bench storm phase'),
    ],
    [
      'cache bytes per object (entries + indexes)',
      f(bytesPerObject),
      fromSim('cacheBytesPerObject', `MEMORY USAGE of {cache:*} keys, ${cacheObjects} objects`),
    ],
    [
      'queue bytes at rest',
      f(queueKinds.reduce((a, [, v]) => a + v.bytes, 0)),
      'MEMORY USAGE of the queue keys after convergence',
    ],
    [
      'API requests per Deployment/ReplicaSet reconcile',
      f(apiPerReconcile, 2),
      fromSim('apiRequestsPerReconcile', 'fleetq_kube_requests_total / fleetq_reconcile_total'),
    ],
    ...Object.entries(inputs.measured.apiRequestsPerReconcileByKind).map(([k, v]) => [
      `API requests per ${k} reconcile`,
      f(v.value, 2),
      v.source,
    ]),
    [
      'reconciles per 20-pod rollout',
      f(reconcilesPerRollout, 1),
      fromSim('reconcilesPerRollout', 'fleet bench, scaled from its replicas'),
    ],
    [
      'watch events per 20-pod rollout',
      f(eventsPerRollout, 1),
      fromSim('eventsPerRollout', 'fleetq_forwarder_events_total, scaled'),
    ],
    [
      'Lambda billed ms per reconcile: all invocations ÷ reconciles (median invocation)',
      `${f(lambdaMsPerReconcile, 0)} (${f(lb.perReconcileMs.median, 0)})`,
      fromSim(
        'lambdaBilledMsPerReconcile',
        `${lambdaFrom}: ${f(lb.billedMsTotal / 1000, 1)} s billed over ${f(lb.reconciles)} reconciles`,
      ),
    ],
    [
      'Lambda peak RSS (configured memory)',
      `${f(lambdaBench.memory.peakRssMiB, 1)} MiB (${lb.configuredMemoryMb} MB)`,
      `${lambdaFrom}, one warm container on Node 22`,
    ],
    [
      'SQS messages per rollout reconcile; per invocation',
      `${f(recordsPerRolloutReconcile, 2)}; ${f(recordsPerInvocation, 1)}`,
      fromSim(
        'sqsMessagesPerRolloutReconcile',
        `${lambdaFrom}: ${f(lb.records)} records, ${f(lb.invocations)} invocations`,
      ),
    ],
    [
      'SQS requests per message (empty receives left out)',
      f(sqsPerRecord, 2),
      fromSim(
        'sqsRequestsPerMessage',
        `${lambdaFrom}: counted on the wire by action; ${f(lambdaBench.sqs.perKeyIfMappingBatchesDeletes, 2)} if the event source mapping batched its deletes` +
          (foreignRecords > 0
            ? `; an upper bound: ${f(foreignRecords)} records of another user's namespaces went through the same queues`
            : ''),
      ),
    ],
    [
      'CloudWatch Logs bytes ingested per Lambda reconcile (log lines + EMF lines)',
      lambdaBench.logs
        ? `${f(logBytesPerReconcile)} (${f(lambdaBench.logs.logBytesPerReconcile)} + ${f(lambdaBench.logs.emfBytesPerReconcile)})`
        : f(logBytesPerReconcile),
      fromSim(
        'logBytesPerReconcile',
        `${lambdaFrom}: the function's stderr and stdout; Lambda's START/END/REPORT lines not counted`,
      ),
    ],
    [
      'CloudWatch custom metrics (EMF: name + dimension values) per cluster; without a cluster dimension',
      `${f(emfPerCluster)}; ${f(emfFixed)}`,
      fromSim('emfMetricsPerCluster', `${lambdaFrom}: distinct metrics in its EMF lines, one cluster`),
    ],
    [
      'Prometheus series of a long-running worker: per cluster served; base',
      `${f(promPerCluster)}; ${f(prom?.base ?? NaN)}`,
      fromSim('promSeriesPerCluster', prom?.source ?? 'not measured'),
    ],
    ['forwarder heap per watched object', `${f(fwdHeapPerObject)} B`, `${fwdFrom} (least squares over its steps)`],
    [
      'forwarder RSS while relisting, per object',
      `${f(relistBytesPerObject)} B`,
      `${fwdFrom}: restart on ${f(restart.objects)} objects`,
    ],
    ...(fwdCpuMsPerEvent === undefined
      ? []
      : [
          [
            'forwarder CPU per watch event',
            `${f(fwdCpuMsPerEvent, 3)} ms`,
            forwarderBench.cpuMsPerEvent === undefined ? (fwdCpuMsMeasured?.source ?? '') : fwdFrom,
          ],
        ]),
    [
      'worker RSS per cluster served',
      Number.isNaN(workerKiBPerCluster) ? 'not measured' : `${f(workerKiBPerCluster / 1024, 1)} MiB`,
      fromSim('workerRssKiBPerCluster', "fleet bench: no growth over 5-20 clusters beyond a heap's noise"),
    ],
    ...(simReport === undefined
      ? []
      : [
          [
            "not used, for comparison: the simulation's worker CPU ms per reconcile; Redis bytes per Deployment; forwarder RSS growth per cluster",
            `${range(
              simReport.map((r) => r.workerCpuMsPerReconcile),
              1,
            )}; ${range(
              simReport.map((r) => r.redisBytesPerDeployment),
              0,
            )} B; ${range(
              simReport.map((r) => r.forwarderRssGrowthKiBPerCluster),
              0,
            )} KiB`,
            `--sim ${simSource}: 1-replica Deployments, a few dozen to 150 objects a cluster; the sandbox's rows above are kept`,
          ],
        ]),
  ],
);

// --- the fleet -----------------------------------------------------------------------------------------------
const a = inputs.assume;
const month = 730 * 3600;

/** CloudWatch custom metrics a month at the tiers given (metrics past the last tier at its price). */
function customMetricsCost(metrics: number): number {
  let left = metrics;
  let cost = 0;
  const tiers = [
    [10_000, price('cloudwatchMetricFirst10kPerMonth')],
    [240_000, price('cloudwatchMetricNext240kPerMonth')],
    [Infinity, price('cloudwatchMetricNext240kPerMonth')],
  ] as const;
  for (const [size, each] of tiers) {
    const n = Math.min(left, size);
    cost += n * each;
    left -= n;
  }
  return cost;
}

/** The fleet's needs and monthly costs for `clusters` clusters of the inputs' shape. */
function model(clusters: number) {
  const { workloadsPerCluster, podsPerWorkload, nodesPerCluster } = inputs.fleet;
  const workloads = clusters * workloadsPerCluster;
  const resyncKeysPerS = workloads / a.resyncSeconds;
  const rolloutsPerS = (workloads * a.rolloutsPerWorkloadPerDay) / 86_400;
  const churnKeysPerS = rolloutsPerS * reconcilesPerRollout;
  const keysPerS = resyncKeysPerS + churnKeysPerS;
  const redisLimit = inputs.measured.queueKeysPerSecondOneRedis.value;
  const queueShards = Math.ceil(keysPerS / (redisLimit * a.redisHeadroom));
  const objects = clusters * (workloadsPerCluster * (1 + a.replicaSetsPerWorkload + podsPerWorkload) + nodesPerCluster);
  const cacheGiB = (objects * bytesPerObject) / 2 ** 30;
  const eventsPerS = rolloutsPerS * eventsPerRollout;
  // A forwarder's memory: its heap per watched object at rest, plus the transient of a relist. Today every
  // cluster of a forwarder relists at once when it starts, takes over clusters or sees Redis lose its data, so the
  // relist peaks add up: that, not the resting heap, bounds the clusters a process can hold.
  const objectsPerCluster = objects / clusters;
  const restMiBPerCluster = (objectsPerCluster * fwdHeapPerObject) / 2 ** 20;
  const relistMiBPerCluster = (objectsPerCluster * relistBytesPerObject) / 2 ** 20;
  const fwdUsableMiB = a.forwarderClustersPerProcessByMemoryGiB * 1024 - a.forwarderBaselineMiB;
  const clustersPerForwarder = unit(
    'forwarderClustersPerProcess',
    Math.floor(fwdUsableMiB / (restMiBPerCluster + relistMiBPerCluster)),
  );
  const forwardersByMemory = Math.ceil(clusters / clustersPerForwarder);
  // Its CPU (one thread): every watch event, and every resync key it enqueues costed as an event (an upper bound).
  const fwdCpuMs = fwdCpuMsPerEvent;
  const forwardersByCpu =
    fwdCpuMs === undefined
      ? 0
      : Math.ceil(((eventsPerS + resyncKeysPerS) * fwdCpuMs) / 1000 / a.forwarderCpuUtilization);
  const forwarders = Math.max(forwardersByMemory, forwardersByCpu);
  const apiPerS = churnKeysPerS * apiPerReconcile;

  // Monthly.
  const reconcilesPerMonth = keysPerS * month;
  const lambdaGbS = reconcilesPerMonth * (lambdaMsPerReconcile / 1000) * (lb.configuredMemoryMb / 1024);
  const lambdaCompute = lambdaGbS * price('lambdaArmPerGbSecond');
  const messagesPerMonth = (resyncKeysPerS + churnKeysPerS * recordsPerRolloutReconcile) * month;
  const lambdaRequests = ((messagesPerMonth / recordsPerInvocation) * price('lambdaPerMillionRequests')) / 1e6;
  const sqsRequests = messagesPerMonth * sqsPerRecord;
  const sqs = (sqsRequests * price('sqsFifoPerMillionRequests')) / 1e6;
  const vcpus = Math.ceil((keysPerS * workerCpuMs) / 1000 / a.workerVcpuUtilization);
  // A worker's memory grows with the clusters it serves: when every worker serves every cluster, one process holds
  // all of them, so the clusters one instance's memory holds bound a worker pool, and the registry is split into
  // that many pools (one queue name each, at least workerMinInstances workers each).
  const workerMiBPerCluster = workerKiBPerCluster / 1024;
  const clustersPerWorker = Number.isNaN(workerMiBPerCluster)
    ? Infinity
    : Math.floor((price('workerInstanceGiB') * 1024 - a.workerBaselineMiB) / workerMiBPerCluster);
  const workerPools = Math.ceil(clusters / clustersPerWorker);
  const workerInstances = Math.max(a.workerMinInstances * workerPools, Math.ceil(vcpus / price('workerInstanceVcpus')));
  const workers = workerInstances * price('workerInstancePerHour') * 730;
  const redisNodes = Math.max(queueShards, Math.ceil(cacheGiB / price('redisNodeGiB')));
  const redisCost = redisNodes * 2 * price('redisNodePerHour') * 730;
  const forwarderCost =
    Math.ceil((forwarders * a.forwarderClustersPerProcessByMemoryGiB) / price('workerInstanceGiB')) *
    price('workerInstancePerHour') *
    730;
  // Observability: Lambda's logs (log + EMF lines) and custom metrics; the workers' log lines (when shipped to
  // CloudWatch Logs) and Prometheus series (counted, priced only by whoever runs the Prometheus).
  const logsGiB = (reconcilesPerMonth * logBytesPerReconcile) / 2 ** 30;
  const lambdaLogs = logsGiB * price('cloudwatchLogsIngestPerGb');
  const metrics = emfFixed + emfPerCluster * clusters;
  const lambdaMetrics = customMetricsCost(metrics);
  const workerLogsGiB = a.workerLogsToCloudWatch ? (reconcilesPerMonth * workerLogBytesPerReconcile) / 2 ** 30 : 0;
  const workerLogs = workerLogsGiB * price('cloudwatchLogsIngestPerGb');
  // Every worker of a pool serves every cluster of that pool.
  const promSeries = (prom?.base ?? 0) * workerInstances + promPerCluster * clusters * (workerInstances / workerPools);
  // NAT data processing: the API traffic of both sides leaves the VPC through NAT; on Lambda, SQS too when the
  // function runs in the VPC without an SQS endpoint.
  const apiGiB = (reconcilesPerMonth * apiPerReconcile * a.natBytesPerApiRequest) / 2 ** 30;
  const sqsGiB = a.lambdaInVpcThroughNat ? (sqsRequests * a.natBytesPerSqsRequest) / 2 ** 30 : 0;
  const natLambda = (apiGiB + sqsGiB) * price('natPerGbProcessed');
  const natWorkers = apiGiB * price('natPerGbProcessed');
  const lambdaTotal =
    lambdaCompute + lambdaRequests + sqs + redisCost + forwarderCost + lambdaLogs + lambdaMetrics + natLambda;
  const workersTotal = workers + redisCost + forwarderCost + workerLogs + natWorkers;
  return {
    clusters,
    workloads,
    resyncKeysPerS,
    churnKeysPerS,
    keysPerS,
    redisLimit,
    queueShards,
    objects,
    cacheGiB,
    eventsPerS,
    objectsPerCluster,
    restMiBPerCluster,
    relistMiBPerCluster,
    clustersPerForwarder,
    forwardersByMemory,
    forwardersByCpu,
    fwdCpuMs,
    forwarders,
    apiPerS,
    reconcilesPerMonth,
    lambdaGbS,
    lambdaCompute,
    messagesPerMonth,
    lambdaRequests,
    sqs,
    sqsRequests,
    workerInstances,
    workerMiBPerCluster,
    clustersPerWorker,
    workerPools,
    workers,
    redisNodes,
    redisCost,
    forwarderCost,
    logsGiB,
    lambdaLogs,
    metrics,
    lambdaMetrics,
    workerLogsGiB,
    workerLogs,
    promSeries,
    apiGiB,
    sqsGiB,
    natLambda,
    natWorkers,
    lambdaTotal,
    workersTotal,
  };
}

const m = model(inputs.fleet.clusters);
lines.push(
  `The fleet: ${f(m.clusters)} clusters × ${inputs.fleet.workloadsPerCluster} workloads × ${inputs.fleet.podsPerWorkload} pods (${f(m.workloads)} workloads, ${f(m.objects / 1e6, 1)} M cached objects).`,
);
lines.push('');
table(
  ['need', 'value', 'how'],
  [
    [
      'keys/s from the periodic resync',
      f(m.resyncKeysPerS),
      `${f(m.workloads)} workloads / ${f(a.resyncSeconds)} s (${a.resyncSource ?? 'FLEETQ_RESYNC_MS'})`,
    ],
    [
      'keys/s from rollouts',
      f(m.churnKeysPerS),
      `${a.rolloutsPerWorkloadPerDay} rollout/workload/day × ${f(reconcilesPerRollout, 1)} reconciles`,
    ],
    ['keys/s total', f(m.keysPerS), ''],
    ['one Redis, measured', f(m.redisLimit), inputs.measured.queueKeysPerSecondOneRedis.source],
    [
      'queue shards (one queue name = one hash tag = one slot)',
      f(m.queueShards),
      `at ${a.redisHeadroom * 100}% of the measured rate`,
    ],
    [
      'Redis commands/s (all)',
      f(m.resyncKeysPerS * cmdsPerIdleKey + m.churnKeysPerS * cmdsPerReconcile),
      'per-key figures above',
    ],
    ['cache memory', `${f(m.cacheGiB, 0)} GiB`, `${f(m.objects / 1e6, 1)} M objects × ${f(bytesPerObject)} B`],
    ['watch events/s into forwarders (rollouts only)', f(m.eventsPerS), `${f(eventsPerRollout, 0)} events per rollout`],
    [
      'forwarder memory per cluster watched',
      `${f(m.restMiBPerCluster, 2)} MiB at rest; ${f(m.relistMiBPerCluster, 0)} MiB while it relists`,
      `${f(m.objectsPerCluster)} objects × ${f(fwdHeapPerObject)} B; × ${f(relistBytesPerObject)} B`,
    ],
    [
      'forwarders',
      f(m.forwarders),
      `memory: ${f(m.forwardersByMemory)} (${f(m.clustersPerForwarder)} clusters each in ${a.forwarderClustersPerProcessByMemoryGiB} GiB less a ${a.forwarderBaselineMiB} MiB baseline, all relisting at once); ` +
        (m.fwdCpuMs === undefined
          ? 'CPU: not measured'
          : `CPU: ${f(m.forwardersByCpu)} (${f(m.eventsPerS + m.resyncKeysPerS)} events and resync keys/s × ${f(m.fwdCpuMs, 3)} ms, ${a.forwarderCpuUtilization * 100}% busy)`),
    ],
    [
      'worker memory (each worker serves every cluster of its pool)',
      Number.isNaN(m.workerMiBPerCluster)
        ? 'not measured'
        : `${f((a.workerBaselineMiB + m.workerMiBPerCluster * m.clusters) / 1024, 1)} GiB a worker if one pool served all; ${f(m.workerPools)} pools`,
      Number.isNaN(m.workerMiBPerCluster)
        ? ''
        : `${a.workerBaselineMiB} MiB + ${f(m.workerMiBPerCluster, 1)} MiB per cluster; ${f(m.clustersPerWorker)} clusters fit in ${price('workerInstanceGiB')} GiB, one pool (queue name, FLEETQ_QUEUE) for each`,
    ],
    ['API requests/s over the fleet (rollouts)', f(m.apiPerS), `${f(m.apiPerS / m.clusters, 2)} per cluster`],
    [
      'CloudWatch custom metrics (Lambda)',
      f(m.metrics),
      `${f(emfFixed)} + ${f(emfPerCluster)} per cluster × ${f(m.clusters)} (the cluster dimension multiplies them)`,
    ],
    [
      'Prometheus series (long-running workers)',
      f(m.promSeries),
      `${f(prom?.base ?? NaN)} × ${m.workerInstances} workers + ${f(promPerCluster)} per cluster × ${f(m.clusters)} × ${f(m.workerInstances / m.workerPools, 1)} workers a pool (each worker serves every cluster of its pool)`,
    ],
  ],
);

// --- monthly cost ----------------------------------------------------------------------------------------------
const cpuS = workerCpuMs / 1000;
table(
  ['monthly (USD)', 'Lambda + SQS', 'long-running workers'],
  [
    ['reconciles', `${f(m.reconcilesPerMonth / 1e9, 2)} G`, `${f(m.reconcilesPerMonth / 1e9, 2)} G`],
    [
      'compute',
      `${f(m.lambdaCompute)} (${f(m.lambdaGbS / 1e6, 1)} M GB-s at ${f(lambdaMsPerReconcile, 0)} billed ms × ${lb.configuredMemoryMb} MB)`,
      `${f(m.workers)} (${m.workerInstances} × ${price('workerInstanceVcpus')} vCPU at ${f(cpuS * 1000, 1)} CPU-ms/reconcile, ${a.workerVcpuUtilization * 100}% busy; at least ${a.workerMinInstances})`,
    ],
    [
      'invocations / queue requests',
      `${f(m.lambdaRequests + m.sqs)} (Lambda ${f(m.lambdaRequests)}; SQS FIFO ${f(m.sqs)}: ${f(m.messagesPerMonth / 1e9, 1)} G messages × ${f(sqsPerRecord, 2)} requests)`,
      'in Redis (below)',
    ],
    [
      'Redis (primary + replica)',
      `${f(m.redisCost)} (${m.redisNodes} × 2 nodes: cache, budget, checkpoints)`,
      `${f(m.redisCost)} (${m.redisNodes} × 2 nodes)`,
    ],
    ['forwarders', f(m.forwarderCost), f(m.forwarderCost)],
    [
      'CloudWatch Logs ingestion',
      `${f(m.lambdaLogs)} (${f(m.logsGiB, 0)} GiB: ${f(logBytesPerReconcile)} B per reconcile)`,
      a.workerLogsToCloudWatch
        ? `${f(m.workerLogs)} (${f(m.workerLogsGiB, 0)} GiB: the same log lines, no EMF)`
        : '0 (logs not shipped to CloudWatch)',
    ],
    [
      'metrics',
      `${f(m.lambdaMetrics)} (${f(m.metrics)} CloudWatch custom metrics)`,
      `not priced: ${f(m.promSeries)} Prometheus series on your Prometheus`,
    ],
    [
      'NAT data processing',
      `${f(m.natLambda)} (${f(m.apiGiB + m.sqsGiB, 0)} GiB: API${a.lambdaInVpcThroughNat ? ' and SQS' : ''} traffic)`,
      `${f(m.natWorkers)} (${f(m.apiGiB, 0)} GiB: API traffic)`,
    ],
    ['total', f(m.lambdaTotal), f(m.workersTotal)],
  ],
);

// --- break-even ----------------------------------------------------------------------------------------------
// The smallest fleet of the inputs' shape (clusters, 1 … breakEvenMaxClusters) from which long-running workers
// cost less than Lambda + SQS, found on the model itself (both totals are monotone in the clusters).
const cheaperWorkers = (c: number): boolean => {
  const x = model(c);
  return x.workersTotal < x.lambdaTotal;
};
let breakEven: number | undefined;
if (cheaperWorkers(a.breakEvenMaxClusters)) {
  let lo = 1;
  let hi = a.breakEvenMaxClusters;
  if (cheaperWorkers(lo)) hi = lo;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (cheaperWorkers(mid)) hi = mid;
    else lo = mid + 1;
  }
  breakEven = hi;
}
const rows = [1, 10, 100, 1_000, 10_000]
  .filter((c) => c <= a.breakEvenMaxClusters)
  .concat(breakEven === undefined ? [] : [breakEven])
  .sort((x, y) => x - y)
  .filter((c, i, all) => all.indexOf(c) === i)
  .map((c) => {
    const x = model(c);
    return [f(c), f(x.lambdaTotal), f(x.workersTotal), c === breakEven ? 'break-even' : ''];
  });
lines.push(
  breakEven === undefined
    ? `Break-even: Lambda + SQS costs less at every fleet size up to ${f(a.breakEvenMaxClusters)} clusters of this shape.`
    : `Break-even: from ${f(breakEven)} clusters of this shape (${inputs.fleet.workloadsPerCluster} workloads × ${inputs.fleet.podsPerWorkload} pods each), long-running workers cost less than Lambda + SQS.`,
);
lines.push('');
table(['clusters', 'Lambda + SQS (USD/month)', 'long-running workers (USD/month)', ''], rows);
lines.push(`Prices (${inputs.prices.asOf}): ${inputs.prices.note}`);
lines.push('');
table(
  ['price', 'source'],
  Object.entries(inputs.prices.sources).map(([k, v]) => [k, v]),
);
if (values.sim !== undefined)
  lines.push(
    `Figures replaced by --sim ${simSource}: ${Object.keys(sim.unit ?? {}).join(', ') || 'none'}; inputs merged: ${['fleet', 'assume', 'measured', 'prices'].filter((k) => (sim as Record<string, unknown>)[k] !== undefined).join(', ') || 'none'}.`,
  );

const out = lines.join('\n').trimEnd();
if (values.write) {
  replaceTablesSection(values.doc as string, out);
} else {
  console.log(out);
}
