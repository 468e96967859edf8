// What a reconcile costs on Lambda + SQS, measured on the real pipeline of the Lambda deployment: the stack's
// queues (the packaged template's, created in fauxqs), the forwarder on the SQS driver (long-running, as the
// pipeline-lambda-sqs e2e test runs it), the event source mapping of both queues as test/helpers/lambda/sqs.ts
// simulates it (receive, invoke, delete what was not reported failed), the delay function, and the reconcile
// function's packaged zip on Node 22 in a child process: one warm container, invoked over IPC, one invocation
// at a time, reading its credentials from its secret (a local Secrets Manager) like the deployed function.
// Workload: N Deployments of R replicas created in a fresh namespace of fleetq-1, converged, each rolled once
// (pod template changed), converged again. Every SQS request goes through a counting proxy per component.
// The forwarder's adds are folded per key over --fold-ms (shared/queue/sqs/sqs-add-fold.ts, as functions/forwarder.ts
// runs it on SQS; 0: every add is a message). What the function writes (its log lines on stderr, its EMF lines on
// stdout: CloudWatch Logs ingests both) is counted in bytes per reconcile, and the EMF lines' distinct metrics
// (name + dimension values: each one a CloudWatch custom metric), with and without a `cluster` dimension.
//   npx tsx test/bench/lambda-cost.ts [--deployments 20] [--replicas 10] [--fold-ms 200] [--json out.json]
// A bench: it prints figures and asserts nothing. Reported: Lambda wall time per record and per reconcile
// (invocation duration / records or reconciles, and the 'Reconcile finished' lines' own times), the
// container's peak RSS and heap, the smallest Lambda memory size that holds it, SQS requests by action and
// component, per key handed out and per reconcile, load average, date and Node versions.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { AppsV1Api } from '@kubernetes/client-node';
import type { SQSRecord } from 'aws-lambda';
import type * as Delay from '../../functions/delay.js';
import { FleetForwarder } from '../../shared/forwarder/fleet-forwarder.js';
import { parseKey } from '../../shared/kube/key.js';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { SqsQueue } from '../../shared/queue/sqs/sqs-queue.js';
import { ADD_FOLD_DEFAULTS, AddFoldQueue } from '../../shared/queue/sqs/sqs-add-fold.js';
import { Logger } from '../../shared/runtime/logger.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { Container, NODE22, type InvocationStat } from '../helpers/bench/lambda-container.js';
import {
  envOf,
  EventSourceMappings,
  functionSecret,
  isConverged,
  kwokDeployment,
  lambdaEnv,
  messagesIn,
  rollDeployment,
} from '../helpers/bench/lambda-pipeline.js';
import { COMPONENTS, reportLambdaCost, type Component } from '../helpers/bench/lambda-report.js';
import { writeRegistry } from '../helpers/pipeline/fleet.js';
import { createTemplateQueues, packageStack, type CfnResource } from '../helpers/lambda/package.js';
import type { BatchHandler } from '../helpers/lambda/sqs.js';
import { REDIS_URL, redisClient } from '../helpers/queue/redis.js';
import { sandboxCluster, testNamespace } from '../helpers/sandbox/clusters.js';
import { startSecretsServer } from '../helpers/lambda/secrets-manager-server.js';
import { startSqsCountingProxy, type CountingProxy } from '../helpers/queue/sqs-counting-proxy.js';
import { sqsClient, startSqsEmulator } from '../helpers/queue/sqs.js';

const { values } = parseArgs({
  options: {
    deployments: { type: 'string', default: '20' },
    replicas: { type: 'string', default: '10' },
    json: { type: 'string' },
    'fold-ms': { type: 'string', default: String(ADD_FOLD_DEFAULTS.windowMs) },
  },
});
const FOLD_MS = Number(values['fold-ms']);
const N = Number(values.deployments);
const REPLICAS = Number(values.replicas);
const CLUSTER = 'fleetq-1';
const SECRET_ARN_FALLBACK = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:fleetq-bench/handler-AbCdEf';
const CONVERGE_MS = 5 * 60_000;
const DRAIN_MS = 60_000;

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const date = new Date().toISOString();
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanup = async () => {
    // Taken out as they run: a signal during the finally's cleanup does not run them twice.
    for (let fn = cleanups.pop(); fn; fn = cleanups.pop()) {
      await fn().catch((err: unknown) => process.stderr.write(`cleanup: ${String(err)}\n`));
    }
  };
  const signals = () => void cleanup().finally(() => process.exit(130));
  process.once('SIGINT', signals);
  process.once('SIGTERM', signals);
  try {
    return await run(loadBefore, date, cleanups);
  } finally {
    await cleanup();
  }
}

async function run(loadBefore: number[], date: string, cleanups: Array<() => Promise<unknown>>): Promise<void> {
  const log = (s: string) => process.stderr.write(`lambda-cost: ${s}\n`);
  const c = await sandboxCluster(CLUSTER);
  const ns = await testNamespace(c.kc);
  cleanups.push(() => ns.remove());
  log(`namespace ${ns.name} on ${CLUSTER}; packaging the stack`);

  // The packaged stack: the reconcile zip as Lambda runs it, and the template's queues, environment and limits.
  const { dir, template, zips, region } = await packageStack();
  log(`packaged for region ${region}`);
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const zip = zips.find((z) => z.name === 'reconcile');
  if (!zip) throw new Error('no reconcile.zip in the package');
  const taskRoot = await mkdtemp(join(tmpdir(), 'fleetq-lambda-task-'));
  cleanups.push(() => rm(taskRoot, { recursive: true, force: true }));
  await promisify(execFile)('unzip', ['-q', zip.path, '-d', taskRoot]);
  const fn = (id: string) => (template.Resources[id] ?? ({} as CfnResource)).Properties ?? {};
  const reconcileFn = fn('ReconcileLambdaFunction');
  const delayFn = fn('DelayLambdaFunction');
  const bundle = join(taskRoot, `${String(reconcileFn.Handler).replace(/\.[^.]+$/, '')}.js`);
  const memorySize = Number(reconcileFn.MemorySize);
  const timeoutMs = Number(reconcileFn.Timeout) * 1000;
  const delayTimeoutMs = Number(delayFn.Timeout) * 1000;
  const workVisibility = Number(fn('WorkQueue').VisibilityTimeout);
  const delayVisibility = Number(fn('DelayQueue').VisibilityTimeout);

  const sqs = await startSqsEmulator();
  cleanups.push(() => sqs.stop());
  const admin = sqsClient(sqs.endpoint); // uncounted: setup and the drain check only
  const urlsById = await createTemplateQueues(admin, template);
  const urls = {
    work: urlsById.WorkQueue ?? '',
    delay: urlsById.DelayQueue ?? '',
    dead: urlsById.DeadLetterQueue ?? '',
  };
  const proxies = {} as Record<Component, CountingProxy>;
  for (const name of COMPONENTS) {
    proxies[name] = await startSqsCountingProxy(sqs.endpoint);
    cleanups.push(() => proxies[name].stop());
  }

  // The function's secret, as the deployed stack gives it: registry and kubeconfig files, Redis, signing secret.
  const secrets = await startSecretsServer();
  cleanups.push(() => secrets.stop());
  const prefix = `bench-${randomUUID()}`;
  cleanups.push(async () => {
    const redis = redisClient();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  const signingSecret = randomUUID();
  const kubeconfig = await readFile(c.state.kubeconfig, 'utf8');
  const reconcileSecretId = String(envOf(reconcileFn).FLEETQ_SECRET_ID ?? SECRET_ARN_FALLBACK);
  const delaySecretId = String(envOf(delayFn).FLEETQ_SECRET_ID ?? SECRET_ARN_FALLBACK);
  const secret = functionSecret(CLUSTER, kubeconfig, { REDIS_URL, FLEETQ_SIGNING_SECRET: signingSecret });
  for (const id of new Set([reconcileSecretId, delaySecretId])) secrets.secrets.set(id, secret);
  const functionEnv = (props: Record<string, unknown>, component: Component, name: string): NodeJS.ProcessEnv =>
    lambdaEnv(props, name, {
      urlsById,
      memorySize,
      sqs: proxies[component].endpoint,
      secrets: secrets.endpoint,
      prefix,
    });

  const container = await Container.start(bundle, {
    PATH: process.env.PATH,
    ...functionEnv(reconcileFn, 'reconcile', 'fleetq-bench-reconcile'),
  });
  cleanups.push(() => container.stop());
  const output = watchOutput(container);
  log(`container pid ${container.child.pid} (${NODE22}), init ${container.initMs.toFixed(0)} ms`);

  // The delay function runs in this process (its cost is not what is measured; its SQS requests are counted).
  Object.assign(process.env, functionEnv(delayFn, 'delay', 'fleetq-bench-delay'));
  const delay: typeof Delay = await import('../../functions/delay.js');

  // The forwarder on the SQS driver, watching the whole cluster (as pipeline-lambda-sqs.test.ts runs it).
  const registryPath = writeRegistry([
    { name: CLUSTER, kubeconfig: c.state.kubeconfig, owns: ['Deployment', 'ReplicaSet'] },
  ]);
  cleanups.push(() => rm(dirname(registryPath), { recursive: true, force: true }));
  const driver = new SqsQueue({
    client: sqsClient(proxies.forwarder.endpoint),
    ownsClient: true,
    urls,
    signingSecret,
  });
  const fold = FOLD_MS > 0 ? new AddFoldQueue(driver, { windowMs: FOLD_MS, maxKeys: ADD_FOLD_DEFAULTS.maxKeys }) : null;
  const forwarderQueue = fold ?? driver;
  const forwarder = new FleetForwarder(new ClusterRegistry(loadRegistry(registryPath)), {
    queue: forwarderQueue,
    checkpoints: new MemoryCheckpointStore(),
    resyncMs: 0,
    logger: new Logger('fleetq-forwarder', 'warn'),
  });
  cleanups.push(() => forwarderQueue.close());
  cleanups.push(() => forwarder.stop());

  // The event source mappings: one poller per queue, one container for the work queue (invocations in turn).
  // Keys of other namespaces (other users of the cluster) are deleted unhandled: never written by this bench.
  const invocations: InvocationStat[] = [];
  let foreignRecords = 0;
  let lastInvocationAt = Date.now();
  const isMine = (r: SQSRecord): boolean => {
    try {
      return parseKey(r.body).namespace === ns.name;
    } catch {
      return true; // not a key: the function dead-letters it, as in production
    }
  };
  const reconcileHandler: BatchHandler = async (event) => {
    const records = event.Records.filter(isMine);
    foreignRecords += event.Records.length - records.length;
    if (records.length === 0) return { batchItemFailures: [] };
    const reply = await container.invoke({ Records: records }, timeoutMs);
    lastInvocationAt = Date.now();
    invocations.push({
      requestId: reply.requestId,
      records: records.length,
      durationMs: reply.durationMs,
      ...(reply.error !== undefined && { error: reply.error }),
    });
    if (reply.error !== undefined) {
      log(`invocation failed: ${reply.error.slice(0, 300)}`);
      return { batchItemFailures: records.map((r) => ({ itemIdentifier: r.messageId })) };
    }
    return reply.response ?? { batchItemFailures: [] };
  };
  const mappings = new EventSourceMappings(sqsClient(proxies.mapping.endpoint), urls, log);
  mappings.poll('work', reconcileHandler, workVisibility, timeoutMs);
  mappings.poll('delay', delay.delay as BatchHandler, delayVisibility, delayTimeoutMs);
  cleanups.push(() => mappings.stop());
  const { receives, empty, deletingInvocations } = mappings;

  const queueDepth = (url: string, delayed = false): Promise<number> => messagesIn(admin, url, delayed);
  const idle = async (quietMs: number): Promise<boolean> =>
    Date.now() - lastInvocationAt >= quietMs &&
    (await queueDepth(urls.work)) === 0 &&
    (await queueDepth(urls.delay)) === 0;

  // The forwarder's initial list enqueues every workload of the cluster: drained before counting starts.
  await forwarder.start();
  await waitFor(() => idle(1_000), 60_000, 250, 'the initial list drained');
  for (const p of Object.values(proxies)) p.counts.clear();
  for (const o of [receives, empty, deletingInvocations]) o.work = o.delay = 0;
  foreignRecords = 0;
  invocations.length = 0;
  container.finished.length = 0;
  output.reset();
  if (fold) Object.assign(fold.stats, { adds: 0, sends: 0, earlyFlushes: 0 });
  log(`forwarder started, initial list drained; creating ${N} Deployments of ${REPLICAS} replicas`);

  const apps = c.kc.makeApiClient(AppsV1Api);
  const names = Array.from({ length: N }, (_, i) => `web-${i}`);
  const started = Date.now();
  await Promise.all(
    names.map((name) => apps.createNamespacedDeployment({ namespace: ns.name, body: kwokDeployment(name, REPLICAS) })),
  );
  const converged = async (generation: number): Promise<boolean> => {
    const list = await apps.listNamespacedDeployment({ namespace: ns.name });
    return list.items.length === N && list.items.every((d) => isConverged(d, generation, REPLICAS));
  };
  await waitFor(() => converged(1), CONVERGE_MS, 500, `${N} Deployments created and converged`);
  const createdMs = Date.now() - started;
  log(`created and converged in ${(createdMs / 1000).toFixed(1)} s; rolling each once`);
  const rollStarted = Date.now();
  await Promise.all(names.map((name) => rollDeployment(apps, ns.name, name, rollStarted.toString())));
  await waitFor(() => converged(2), CONVERGE_MS, 500, `${N} Deployments rolled and converged`);
  const rolledMs = Date.now() - rollStarted;
  log(`rolled and converged in ${(rolledMs / 1000).toFixed(1)} s; draining the queues`);
  const drained = await waitFor(() => idle(3_000), DRAIN_MS, 250, 'the queues drained').then(
    () => true,
    () => false,
  );
  const delayedLeft = await queueDepth(urls.delay, true);
  await mappings.stop();
  const stats = await container.stats();
  const loadAfter = loadavg();

  await reportLambdaCost({
    date,
    cluster: CLUSTER,
    deployments: N,
    replicas: REPLICAS,
    loadBefore,
    loadAfter,
    createdMs,
    rolledMs,
    drained,
    delayedLeft,
    memorySize,
    timeoutMs,
    container,
    stats,
    invocations,
    proxies,
    receives,
    empty,
    deletingInvocations,
    foreignRecords,
    ...(values.json !== undefined && { json: values.json }),
  });
  // What the report does not hold: the fold, the bytes the function wrote, the custom metrics its EMF names.
  const reconciles = container.finished.length;
  const perReconcile = (x: number) => Number((x / Math.max(1, reconciles)).toFixed(1));
  const extra = {
    region,
    fold: { windowMs: FOLD_MS, ...(fold ? { ...fold.stats } : { adds: null, sends: null, earlyFlushes: null }) },
    logs: {
      stderrBytes: output.stderrBytes,
      stdoutEmfBytes: output.stdoutBytes,
      bytesPerReconcile: perReconcile(output.stderrBytes + output.stdoutBytes),
      logBytesPerReconcile: perReconcile(output.stderrBytes),
      emfBytesPerReconcile: perReconcile(output.stdoutBytes),
      note: "the function's own output; Lambda's START/END/REPORT lines are not counted",
    },
    emf: {
      lines: output.emfLines,
      distinctMetrics: output.metrics.size,
      distinctMetricsWithCluster: [...output.metrics.values()].filter((hasCluster) => hasCluster).length,
      clusters: 1,
    },
  };
  console.log(
    [
      '',
      `Forwarder add fold: ${FOLD_MS > 0 ? `${FOLD_MS} ms, ${extra.fold.adds} adds → ${extra.fold.sends} messages (${extra.fold.earlyFlushes} early flushes)` : 'off'}`,
      `Function output (CloudWatch Logs ingestion): ${extra.logs.bytesPerReconcile} B per reconcile (log lines ${extra.logs.logBytesPerReconcile}, EMF ${extra.logs.emfBytesPerReconcile}); ${output.emfLines} EMF lines`,
      `EMF custom metrics (name + dimension values): ${extra.emf.distinctMetrics}, of which ${extra.emf.distinctMetricsWithCluster} carry the cluster dimension (one cluster here)`,
    ].join('\n'),
  );
  if (values.json !== undefined) {
    const written = JSON.parse(await readFile(values.json, 'utf8')) as Record<string, unknown>;
    await writeFile(values.json, JSON.stringify({ ...written, ...extra }, null, 2) + '\n');
  }
}

/** Bytes the container writes to stdout (EMF) and stderr (log lines), and the distinct metrics its EMF names. */
function watchOutput(container: Container) {
  const state = {
    stdoutBytes: 0,
    stderrBytes: 0,
    emfLines: 0,
    /** metric identity (name + dimension values) → whether it has a `cluster` dimension */
    metrics: new Map<string, boolean>(),
    reset() {
      state.stdoutBytes = state.stderrBytes = state.emfLines = 0;
      state.metrics.clear();
    },
  };
  let rest = '';
  container.child.stderr?.on('data', (d: Buffer) => (state.stderrBytes += d.length));
  container.child.stdout?.on('data', (d: Buffer) => {
    state.stdoutBytes += d.length;
    const parts = (rest + d.toString('utf8')).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) {
      let record: {
        _aws?: { CloudWatchMetrics?: Array<{ Dimensions?: string[][]; Metrics?: Array<{ Name: string }> }> };
      };
      try {
        record = JSON.parse(line) as typeof record;
      } catch {
        continue;
      }
      const directives = record._aws?.CloudWatchMetrics ?? [];
      if (directives.length === 0) continue;
      state.emfLines++;
      for (const directive of directives) {
        for (const dims of directive.Dimensions ?? [[]]) {
          const values = dims.map((name) => `${name}=${String((record as Record<string, unknown>)[name])}`).join(',');
          for (const m of directive.Metrics ?? []) state.metrics.set(`${m.Name}{${values}}`, dims.includes('cluster'));
        }
      }
    }
  });
  return state;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`lambda-cost: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
