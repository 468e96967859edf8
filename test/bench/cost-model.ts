// The cost model's tables (docs/cost-model.md), regenerated from measured figures. Reads the fleet bench's JSON
// (`npx tsx test/bench/fleet.ts --json fleet.json`), the Lambda bench's (`test/bench/lambda-cost.ts --json`:
// billed ms and memory of a reconcile, SQS requests per key), the forwarder bench's
// (`test/bench/forwarder-memory.ts --json`: heap per watched object, relist peak, CPU per event) and
// docs/cost-model-inputs.json (the figures other benches printed, each with its command, date and load, and the
// prices and fleet shape assumed), and prints the markdown tables of docs/cost-model.md; --write replaces the
// part of docs/cost-model.md between the `<!-- tables:begin -->` and `<!-- tables:end -->` markers.
//   npx tsx test/bench/cost-model.ts --fleet fleet.json [--lambda docs/cost-model-lambda.json]
//     [--forwarder docs/cost-model-forwarder.json] [--inputs docs/cost-model-inputs.json] [--write]
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
    doc: { type: 'string', default: 'docs/cost-model.md' },
    write: { type: 'boolean', default: false },
  },
});

const inputs = readJson<Inputs>(values.inputs as string);
const lambdaBench = readJson<LambdaBench>(values.lambda as string);
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
const cmdsPerReconcile = largest.redisCalls / totalReconciles(largest);
const apiPerReconcile = largest.apiRequestsPerCluster.median / largest.reconcilesPerCluster.median;
const cacheE = largest.redis.byKind['cache:e'];
const cacheBytesAll = Object.entries(largest.redis.byKind)
  .filter(([k]) => k.startsWith('cache:'))
  .reduce((a, [, v]) => a + v.bytes, 0);
const cacheObjects = cacheE?.items ?? 0;
const bytesPerObject = cacheObjects > 0 ? cacheBytesAll / cacheObjects : 0;
const queueKinds = Object.entries(largest.redis.byKind).filter(([k]) => k.startsWith('queue:'));
const stormCase = sizes[0]?.storm?.cases.find((c) => c.callsPerKey !== undefined);
const cmdsPerIdleKey = stormCase?.callsPerKey ?? cmdsPerReconcile;
// Reconciles of one rollout of a 20-pod workload: the bench's per-cluster count covers a create and a rolling
// update of a `replicas`-pod Deployment; a rollout is taken as half of it, scaled linearly to the pod count.
const reconcilesPerRollout =
  (largest.reconcilesPerCluster.median / 2) * (inputs.fleet.podsPerWorkload / fleet.replicas);
const eventsPerRollout = (largest.forwarderEventsPerCluster / 2) * (inputs.fleet.podsPerWorkload / fleet.replicas);
// Lambda + SQS (lambda-cost.ts): billed time is the invocations' total over the reconciles they ran (records run
// concurrently in an invocation, so a reconcile's own wall time overstates its bill). On SQS every watch event is a
// message and a batch folds a key's messages into one reconcile: messages (records) per reconcile come from the
// bench's rollouts; a resync key is one message.
const lb = lambdaBench.lambda;
const lambdaMsPerReconcile = lb.billedMsTotal / lb.reconciles;
const recordsPerRolloutReconcile = lb.records / lb.reconciles;
const recordsPerInvocation = lb.records / lb.invocations;
const sqsPerRecord = lambdaBench.sqs.totalWithoutEmptyReceives / lambdaBench.sqs.keysHandedOut;
const lambdaLoad = `load ${lambdaBench.load.before[0]}→${lambdaBench.load.after[0]}`;
const lambdaFrom = `lambda-cost.ts, ${lambdaBench.deployments} Deployments × ${lambdaBench.replicas} created and rolled, ${lambdaBench.date.slice(0, 16)}, ${lambdaLoad}`;
// The forwarder (forwarder-memory.ts): V8 heap per watched object at rest, and the transient RSS of a relist
// (a restart on the bench's cluster, over a start on an empty one).
const fwdHeapPerObject = forwarderBench.bytesPerObject.heap;
const { restart } = forwarderBench;
const relistBytesPerObject = ((restart.rssPeakMiB - restart.firstStartRssPeakMiB) * 2 ** 20) / restart.objects;
const fwdMaxObjects = Math.max(...forwarderBench.steps.map((x) => x.objects));
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
      `fleet bench, ${largest.clusters} clusters (INFO commandstats)`,
    ],
    [
      'Redis commands per idle key (resync: add, get, cache read, done)',
      f(cmdsPerIdleKey, 1),
      'fleet bench storm phase',
    ],
    [
      'cache bytes per object (entries + indexes)',
      f(bytesPerObject),
      `MEMORY USAGE of {cache:*} keys, ${cacheObjects} objects`,
    ],
    [
      'queue bytes at rest',
      f(queueKinds.reduce((a, [, v]) => a + v.bytes, 0)),
      'MEMORY USAGE of the queue keys after convergence',
    ],
    [
      'API requests per Deployment/ReplicaSet reconcile',
      f(apiPerReconcile, 2),
      'fleetq_kube_requests_total / fleetq_reconcile_total',
    ],
    ...Object.entries(inputs.measured.apiRequestsPerReconcileByKind).map(([k, v]) => [
      `API requests per ${k} reconcile`,
      f(v.value, 2),
      v.source,
    ]),
    ['reconciles per 20-pod rollout', f(reconcilesPerRollout, 1), 'fleet bench, scaled from its replicas'],
    ['watch events per 20-pod rollout', f(eventsPerRollout, 1), 'fleetq_forwarder_events_total, scaled'],
    [
      'Lambda billed ms per reconcile: all invocations ÷ reconciles (median invocation)',
      `${f(lambdaMsPerReconcile, 0)} (${f(lb.perReconcileMs.median, 0)})`,
      `${lambdaFrom}: ${f(lb.billedMsTotal / 1000, 1)} s billed over ${f(lb.reconciles)} reconciles`,
    ],
    [
      'Lambda peak RSS (configured memory)',
      `${f(lambdaBench.memory.peakRssMiB, 1)} MiB (${lb.configuredMemoryMb} MB)`,
      `${lambdaFrom}, one warm container on Node 22`,
    ],
    [
      'SQS messages per rollout reconcile; per invocation',
      `${f(recordsPerRolloutReconcile, 2)}; ${f(recordsPerInvocation, 1)}`,
      `${lambdaFrom}: ${f(lb.records)} records, ${f(lb.invocations)} invocations`,
    ],
    [
      'SQS requests per message (empty receives left out)',
      f(sqsPerRecord, 2),
      `${lambdaFrom}: counted on the wire by action; ${f(lambdaBench.sqs.perKeyIfMappingBatchesDeletes, 2)} if the event source mapping batched its deletes`,
    ],
    ['forwarder heap per watched object', `${f(fwdHeapPerObject)} B`, `${fwdFrom} (least squares over its steps)`],
    [
      'forwarder RSS while relisting, per object',
      `${f(relistBytesPerObject)} B`,
      `${fwdFrom}: restart on ${f(restart.objects)} objects`,
    ],
    ...(forwarderBench.cpuMsPerEvent === undefined
      ? []
      : [['forwarder CPU per watch event', `${f(forwarderBench.cpuMsPerEvent, 3)} ms`, fwdFrom]]),
  ],
);

// --- the fleet -----------------------------------------------------------------------------------------------
const { clusters, workloadsPerCluster, podsPerWorkload, nodesPerCluster } = inputs.fleet;
const a = inputs.assume;
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
// A forwarder's memory: its heap per watched object at rest, plus the transient of a relist. Today every cluster
// of a forwarder relists at once when it starts, takes over clusters or sees Redis lose its data, so the relist
// peaks add up: that, not the resting heap, bounds the clusters a process can hold.
const objectsPerCluster = objects / clusters;
const restMiBPerCluster = (objectsPerCluster * fwdHeapPerObject) / 2 ** 20;
const relistMiBPerCluster = (objectsPerCluster * relistBytesPerObject) / 2 ** 20;
const fwdUsableMiB = a.forwarderClustersPerProcessByMemoryGiB * 1024 - a.forwarderBaselineMiB;
const clustersPerForwarder = Math.floor(fwdUsableMiB / (restMiBPerCluster + relistMiBPerCluster));
const forwardersByMemory = Math.ceil(clusters / clustersPerForwarder);
// Its CPU (one thread): every watch event, and every resync key it enqueues costed as an event (an upper bound).
const fwdCpuMs = forwarderBench.cpuMsPerEvent;
const forwardersByCpu =
  fwdCpuMs === undefined ? 0 : Math.ceil(((eventsPerS + resyncKeysPerS) * fwdCpuMs) / 1000 / a.forwarderCpuUtilization);
const forwarders = Math.max(forwardersByMemory, forwardersByCpu);
const apiPerS = churnKeysPerS * apiPerReconcile;

lines.push(
  `The fleet: ${f(clusters)} clusters × ${workloadsPerCluster} workloads × ${podsPerWorkload} pods (${f(workloads)} workloads, ${f(objects / 1e6, 1)} M cached objects).`,
);
lines.push('');
table(
  ['need', 'value', 'how'],
  [
    [
      'keys/s from the periodic resync',
      f(resyncKeysPerS),
      `${f(workloads)} workloads / ${a.resyncSeconds} s (FLEETQ_RESYNC_MS)`,
    ],
    [
      'keys/s from rollouts',
      f(churnKeysPerS),
      `${a.rolloutsPerWorkloadPerDay} rollout/workload/day × ${f(reconcilesPerRollout, 1)} reconciles`,
    ],
    ['keys/s total', f(keysPerS), ''],
    ['one Redis, measured', f(redisLimit), inputs.measured.queueKeysPerSecondOneRedis.source],
    [
      'queue shards (one queue name = one hash tag = one slot)',
      f(queueShards),
      `at ${a.redisHeadroom * 100}% of the measured rate`,
    ],
    [
      'Redis commands/s (all)',
      f(resyncKeysPerS * cmdsPerIdleKey + churnKeysPerS * cmdsPerReconcile),
      'per-key figures above',
    ],
    ['cache memory', `${f(cacheGiB, 0)} GiB`, `${f(objects / 1e6, 1)} M objects × ${f(bytesPerObject)} B`],
    ['watch events/s into forwarders (rollouts only)', f(eventsPerS), `${f(eventsPerRollout, 0)} events per rollout`],
    [
      'forwarder memory per cluster watched',
      `${f(restMiBPerCluster, 2)} MiB at rest; ${f(relistMiBPerCluster, 0)} MiB while it relists`,
      `${f(objectsPerCluster)} objects × ${f(fwdHeapPerObject)} B; × ${f(relistBytesPerObject)} B`,
    ],
    [
      'forwarders',
      f(forwarders),
      `memory: ${f(forwardersByMemory)} (${f(clustersPerForwarder)} clusters each in ${a.forwarderClustersPerProcessByMemoryGiB} GiB less a ${a.forwarderBaselineMiB} MiB baseline, all relisting at once); ` +
        (fwdCpuMs === undefined
          ? 'CPU: not measured'
          : `CPU: ${f(forwardersByCpu)} (${f(eventsPerS + resyncKeysPerS)} events and resync keys/s × ${f(fwdCpuMs, 3)} ms, ${a.forwarderCpuUtilization * 100}% busy)`),
    ],
    ['API requests/s over the fleet (rollouts)', f(apiPerS), `${f(apiPerS / clusters, 2)} per cluster`],
  ],
);

// --- monthly cost ----------------------------------------------------------------------------------------------
const month = 730 * 3600;
const reconcilesPerMonth = keysPerS * month;
const cpuS = largest.workerCpuMsPerReconcile / 1000;
const lambdaGbS = reconcilesPerMonth * (lambdaMsPerReconcile / 1000) * (lb.configuredMemoryMb / 1024);
const lambdaCompute = lambdaGbS * price('lambdaArmPerGbSecond');
const messagesPerMonth = (resyncKeysPerS + churnKeysPerS * recordsPerRolloutReconcile) * month;
const lambdaRequests = ((messagesPerMonth / recordsPerInvocation) * price('lambdaPerMillionRequests')) / 1e6;
const sqs = (messagesPerMonth * sqsPerRecord * price('sqsFifoPerMillionRequests')) / 1e6;
const vcpus = Math.ceil((keysPerS * cpuS) / a.workerVcpuUtilization);
const workerInstances = Math.ceil(vcpus / price('workerInstanceVcpus'));
const workers = workerInstances * price('workerInstancePerHour') * 730;
const redisNodes = Math.max(queueShards, Math.ceil(cacheGiB / price('redisNodeGiB')));
const redisCost = redisNodes * 2 * price('redisNodePerHour') * 730;
const forwarderCost =
  Math.ceil((forwarders * a.forwarderClustersPerProcessByMemoryGiB) / price('workerInstanceGiB')) *
  price('workerInstancePerHour') *
  730;
table(
  ['monthly (USD)', 'Lambda + SQS', 'long-running workers'],
  [
    ['reconciles', `${f(reconcilesPerMonth / 1e9, 2)} G`, `${f(reconcilesPerMonth / 1e9, 2)} G`],
    [
      'compute',
      `${f(lambdaCompute)} (${f(lambdaGbS / 1e6, 1)} M GB-s at ${f(lambdaMsPerReconcile, 0)} billed ms × ${lb.configuredMemoryMb} MB)`,
      `${f(workers)} (${workerInstances} × ${price('workerInstanceVcpus')} vCPU at ${f(cpuS * 1000, 1)} CPU-ms/reconcile, ${a.workerVcpuUtilization * 100}% busy)`,
    ],
    [
      'invocations / queue requests',
      `${f(lambdaRequests + sqs)} (Lambda ${f(lambdaRequests)}; SQS FIFO ${f(sqs)}: ${f(messagesPerMonth / 1e9, 1)} G messages × ${f(sqsPerRecord, 2)} requests)`,
      'in Redis (below)',
    ],
    [
      'Redis (primary + replica)',
      `${f(redisCost)} (${redisNodes} × 2 nodes: cache, budget, checkpoints)`,
      `${f(redisCost)} (${redisNodes} × 2 nodes)`,
    ],
    ['forwarders', f(forwarderCost), f(forwarderCost)],
    [
      'total',
      f(lambdaCompute + lambdaRequests + sqs + redisCost + forwarderCost),
      f(workers + redisCost + forwarderCost),
    ],
  ],
);
lines.push(`Prices (${inputs.prices.asOf}): ${inputs.prices.note}`);

const out = lines.join('\n');
if (values.write) {
  replaceTablesSection(values.doc as string, out);
} else {
  console.log(out);
}
