// The offline loop as docs/deploy.md ("AWS Lambda") shows it: the real `osls` binary from node_modules runs
// `osls invoke local --stage local -f <fn> --path events/<file>` for every function with the shipped sample events,
// against the fauxqs emulator (the `local` stage's queues, as infra/lambda/local-queues.ts makes them), the local
// Redis and a sandbox cluster (fleetq-2, registered as `dev-1`, the name the samples use), with no AWS credentials
// at all (none in the environment, no credentials or config file).
// - forwarder: one tick of FORWARDER_RUN_MS, from no checkpoint (a fresh Redis prefix): it enqueues the key of a
//   Deployment of our namespace into the stack's work queue, and the process exits as soon as its tick ends.
// - reconcile: the sample batch (dev-1 default/web and its ReplicaSet, which do not exist on fleetq-2: nothing is
//   written), no batch item failure, and the EMF lines of its reconcile and workqueue metrics.
// - delay: the sample delayed key (due at once) is moved to the work queue.
// The three run side by side (each is mostly osls's own start-up).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api } from '@kubernetes/client-node';
import { CreateQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageStack } from '../helpers/lambda/package.js';
import { redisClient } from '../helpers/queue/redis.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const CLUSTER = 'fleetq-2';
const TICK_MS = 3_000;

type Invocation = { code: number | null; stdout: string; stderr: string; tickDoneToExitMs?: number };

describe('osls invoke local, offline, for every function (stage local)', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let sqs: SqsEmulator;
  let client: SQSClient;
  let dir: string;
  let urls: Record<string, string>;
  const prefix = `test-${randomUUID()}`;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    // The bundles the local stage's handlers name (dist/lambda/*), built under the packaging lock; the local
    // stage packages too.
    await packageStack({}, { stage: 'local' });
    sqs = await startSqsEmulator();
    client = sqsClient(sqs.endpoint);
    urls = {};
    for (const [name, Attributes] of [
      ['work.fifo', { FifoQueue: 'true', VisibilityTimeout: '360' }],
      ['delay', { VisibilityTimeout: '180' }],
      ['dead', { VisibilityTimeout: '360' }],
    ] as const) {
      const out = await client.send(new CreateQueueCommand({ QueueName: `fleetq-local-${name}`, Attributes }));
      urls[name] = out.QueueUrl ?? '';
    }
    dir = await mkdtemp(join(tmpdir(), 'fleetq-invoke-local-'));
    await writeFile(
      join(dir, 'fleet.yaml'),
      `clusters:\n  - { name: dev-1, kubeconfig: ${c.state.kubeconfig}, owns: [Deployment, ReplicaSet] }\n`,
    );
  });

  afterAll(async () => {
    await ns?.remove();
    await sqs?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    const redis = redisClient();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  /** `osls invoke local` as a user runs it, with no AWS credentials anywhere; resolves when the process exits. */
  function invoke(fn: string, event: string): Promise<Invocation> {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AWS_') && k !== 'NODE_OPTIONS') env[k] = v;
    Object.assign(env, {
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
      AWS_CONFIG_FILE: join(dir, 'no-config'),
      AWS_EC2_METADATA_DISABLED: 'true',
      SLS_TELEMETRY_DISABLED: '1',
      SLS_NOTIFICATIONS_MODE: 'off',
      FAUXQS_PORT: new URL(sqs.endpoint).port,
      FLEETQ_REGISTRY: join(dir, 'fleet.yaml'),
      FLEETQ_REDIS_PREFIX: prefix,
      FORWARDER_RUN_MS: String(TICK_MS),
      LOG_LEVEL: 'info', // the tick's end is seen by its 'Forwarder tick done' line
    });
    return new Promise((resolve, reject) => {
      const child = spawn(
        'node_modules/.bin/osls',
        ['invoke', 'local', '--stage', 'local', '-f', fn, '--path', event],
        {
          cwd: ROOT,
          env,
        },
      );
      const out: Invocation = { code: null, stdout: '', stderr: '' };
      let tickDoneAt: number | undefined;
      child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
      // Log lines go to stderr.
      child.stderr.on('data', (d: Buffer) => {
        out.stderr += d.toString();
        if (tickDoneAt === undefined && out.stderr.includes('"Forwarder tick done"')) tickDoneAt = Date.now();
      });
      // A process that does not exit fails the test here (not by jest's timeout): the forwarder must end with its tick.
      const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
      child.on('error', reject);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ ...out, code, ...(tickDoneAt !== undefined && { tickDoneToExitMs: Date.now() - tickDoneAt }) });
      });
    });
  }

  /** The JSON value osls prints last (the handler's return value). */
  function result(stdout: string): unknown {
    const at = stdout.lastIndexOf('\n{\n');
    return at < 0 ? undefined : JSON.parse(stdout.slice(at + 1));
  }

  it('runs the forwarder, reconcile and delay functions with the sample events, and the forwarder exits with its tick', async () => {
    const apps = c.kc.makeApiClient(AppsV1Api);
    const labels = { app: 'invoke-local' };
    await apps.createNamespacedDeployment({
      namespace: ns.name,
      body: {
        metadata: { name: 'web' },
        spec: { replicas: 1, selector: { matchLabels: labels }, template: kwokPodTemplate(labels) },
      },
    });
    const started = Date.now();
    const [forwarder, reconcile, delay] = await Promise.all([
      invoke('forwarder', 'events/scheduled/forwarder-tick.json'),
      invoke('reconcile', 'events/sqs/reconcile-batch.json'),
      invoke('delay', 'events/sqs/delay-batch.json'),
    ]);
    const show = (i: Invocation) => `exit ${i.code}\n${i.stdout.slice(-3000)}\n${i.stderr.slice(-3000)}`;

    // The forwarder: one tick, ok, and the process gone within seconds of its end (connections closed).
    expect({ code: forwarder.code, out: forwarder.code === 0 ? '' : show(forwarder) }).toEqual({ code: 0, out: '' });
    expect(result(forwarder.stdout)).toMatchObject({ results: [{ cluster: 'dev-1', ok: true }] });
    expect(forwarder.tickDoneToExitMs).toBeDefined();
    expect(forwarder.tickDoneToExitMs ?? Infinity).toBeLessThan(15_000);

    // Reconcile: the sample keys run (nothing to converge on fleetq-2), none reported failed; its metrics as EMF.
    expect({ code: reconcile.code, out: reconcile.code === 0 ? '' : show(reconcile) }).toEqual({ code: 0, out: '' });
    expect(result(reconcile.stdout)).toEqual({ batchItemFailures: [] });
    const emf = reconcile.stdout
      .split('\n')
      .filter((l) => l.startsWith('{"_aws"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const metrics = new Set(emf.flatMap((r) => Object.keys(r).filter((k) => /^(fleetq|workqueue)_/.test(k))));
    for (const name of [
      'fleetq_reconcile_total',
      'fleetq_reconcile_duration_seconds_count',
      'workqueue_queue_duration_seconds_count',
      'workqueue_work_duration_seconds_count',
    ])
      expect({ name, printed: metrics.has(name) }).toEqual({ name, printed: true });
    expect(emf).toContainEqual(
      expect.objectContaining({ service: 'reconcile', cluster: 'dev-1', kind: 'Deployment', outcome: 'done' }),
    );

    expect({ code: delay.code, out: delay.code === 0 ? '' : show(delay) }).toEqual({ code: 0, out: '' });

    // The work queue got our Deployment's key from the tick, and the sample's delayed key from the delay function.
    const bodies = new Set<string>();
    const want = [`dev-1/Deployment/${ns.name}/web`, 'dev-1/Deployment/default/web'];
    const deadline = Date.now() + 30_000;
    while (!want.every((b) => bodies.has(b)) && Date.now() < deadline) {
      const got = await client.send(
        new ReceiveMessageCommand({ QueueUrl: urls['work.fifo'], MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      for (const m of got.Messages ?? []) bodies.add(m.Body ?? '');
    }
    expect(want.filter((b) => !bodies.has(b))).toEqual([]);
    process.stderr.write(
      `lambda invoke local: 3 functions in ${Date.now() - started} ms; forwarder exited ${forwarder.tickDoneToExitMs} ms after its tick\n`,
    );
  });
});
