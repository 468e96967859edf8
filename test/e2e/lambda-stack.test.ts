// The Lambda stack as deployed, on a sandbox cluster: the queues are the generated template's own (names and
// attributes, created in the SQS emulator), every function runs in Lambda mode (AWS_LAMBDA_FUNCTION_NAME) with its
// credentials (the registry and its kubeconfig, REDIS_URL, the signing secret) read from its own secret through
// the AWS SDK against a local Secrets Manager, and the stack's queue URLs in SQS_*_URL. A forwarder tick, then the
// reconcile handler invoked with the batches the work queue gives (as the event source mapping does: delete what
// was not reported in batchItemFailures) and the delay handler with the delay queue's, again, until a Deployment
// converges on fleetq-2. The forwarder watches the whole cluster: keys of other namespaces (other tests) are
// deleted unhandled, so this test never writes outside its namespace.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ScheduledEvent, SQSEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseKey } from '../../shared/kube/key.js';
import type * as Delay from '../../functions/delay.js';
import type * as Forwarder from '../../functions/forwarder.js';
import type * as Reconcile from '../../functions/reconcile.js';
import { createTemplateQueues, packageStack } from '../helpers/lambda/package.js';
import { lambdaContext, pollOnce, type BatchHandler } from '../helpers/lambda/sqs.js';
import { REDIS_URL, redisClient } from '../helpers/queue/redis.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { startSecretsServer, type SecretsServer } from '../helpers/lambda/secrets-manager-server.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';

const CLUSTER = 'fleetq-2';
const ARN = (fn: string) => `arn:aws:secretsmanager:us-east-1:123456789012:secret:fleetq-e2e/${fn}-AbCdEf`;

describe('Lambda stack end to end (template queues, secrets, bundle entry points)', () => {
  let c: TestCluster;
  let ns: { name: string; remove: () => Promise<void> };
  let sqs: SqsEmulator;
  let client: SQSClient;
  let secrets: SecretsServer;
  let urls: Record<string, string>;
  let forwarder: typeof Forwarder;
  let reconcile: typeof Reconcile;
  let delay: typeof Delay;
  const prefix = `test-${randomUUID()}`;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    ns = await testNamespace(c.kc);
    const { template } = await packageStack();
    sqs = await startSqsEmulator();
    client = sqsClient(sqs.endpoint);
    urls = await createTemplateQueues(client, template);
    secrets = await startSecretsServer();
    const kubeconfig = await readFile(c.state.kubeconfig, 'utf8');
    const secret = JSON.stringify({
      env: { REDIS_URL, FLEETQ_SIGNING_SECRET: 'e2e-lambda-stack-secret' },
      files: {
        'fleet.yaml': `clusters:\n  - { name: ${CLUSTER}, kubeconfig: kubeconfigs/${CLUSTER}.yaml, owns: [Deployment, ReplicaSet] }\n`,
        [`kubeconfigs/${CLUSTER}.yaml`]: kubeconfig,
      },
    });
    for (const fn of ['forwarder', 'reconcile', 'delay']) secrets.secrets.set(ARN(fn), secret);
    const vars = (id: string) =>
      ((template.Resources[id]?.Properties ?? {}).Environment as { Variables: Record<string, unknown> }).Variables;
    Object.assign(process.env, {
      AWS_LAMBDA_FUNCTION_NAME: 'fleetq-ci-e2e',
      FLEETQ_DRIVER: 'sqs',
      SQS_ENDPOINT: sqs.endpoint,
      SQS_WORK_URL: urls.WorkQueue,
      SQS_DELAY_URL: urls.DelayQueue,
      SQS_DEAD_URL: urls.DeadLetterQueue,
      SQS_VISIBILITY_MS: String(vars('ReconcileLambdaFunction').SQS_VISIBILITY_MS),
      SECRETS_ENDPOINT: secrets.endpoint,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      FLEETQ_REDIS_PREFIX: prefix,
      FORWARDER_RUN_MS: '5000',
      FLEETQ_RESYNC_MS: '0',
      LOG_LEVEL: 'warn',
    });
    // Each function's module reads its own secret's name at load, as each Lambda has its own environment.
    process.env.FLEETQ_SECRET_ID = ARN('forwarder');
    forwarder = await import('../../functions/forwarder.js');
    process.env.FLEETQ_SECRET_ID = ARN('reconcile');
    reconcile = await import('../../functions/reconcile.js');
    process.env.FLEETQ_SECRET_ID = ARN('delay');
    delay = await import('../../functions/delay.js');
  });

  afterAll(async () => {
    await forwarder?.closeTickDeps();
    await reconcile?.closeReconcileDeps();
    await ns?.remove();
    await sqs?.stop();
    await secrets?.stop();
    const redis = redisClient();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
  });

  it('converges a Deployment through forwarder ticks and reconcile batches from the stack’s own queues', async () => {
    expect(Object.keys(urls).sort()).toEqual([
      'DeadLetterQueue',
      'DelayBackstopQueue',
      'DelayQueue',
      'WorkBackstopQueue',
      'WorkQueue',
    ]);
    expect(urls.WorkQueue).toMatch(/\/fleetq-ci-work\.fifo$/);
    const apps = c.kc.makeApiClient(AppsV1Api);
    const labels = { app: 'lambda-e2e' };
    await apps.createNamespacedDeployment({
      namespace: ns.name,
      body: {
        metadata: { name: 'web' },
        spec: { replicas: 2, selector: { matchLabels: labels }, template: kwokPodTemplate(labels) },
      },
    });
    const mine: BatchHandler = async (event: SQSEvent, context) => {
      const records = event.Records.filter((r) => parseKey(r.body).namespace === ns.name);
      handled += records.length;
      if (records.length === 0) return { batchItemFailures: [] };
      // The EMF lines the invocation prints at its end (what CloudWatch would turn into metrics) are kept.
      const write = process.stdout.write.bind(process.stdout);
      process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (typeof chunk === 'string' && chunk.startsWith('{"_aws"')) return emf.push(chunk) > 0;
        return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof process.stdout.write;
      try {
        return await reconcile.handler({ Records: records }, { ...context, awsRequestId: randomUUID() });
      } finally {
        process.stdout.write = write;
      }
    };
    const emf: string[] = [];
    let handled = 0;
    let ticks = 0;
    const event = JSON.parse(
      await readFile(new URL('../../events/scheduled/forwarder-tick.json', import.meta.url), 'utf8'),
    ) as ScheduledEvent;
    const converged = (d: V1Deployment) =>
      d.status?.observedGeneration === d.metadata?.generation &&
      d.status?.updatedReplicas === 2 &&
      d.status?.readyReplicas === 2 &&
      d.status?.availableReplicas === 2;
    // Errors are not retried here: a tick or batch that throws fails the test with its own message.
    const deadline = Date.now() + 240_000;
    for (;;) {
      const result = await forwarder.tick(event, { ...lambdaContext(70_000), awsRequestId: randomUUID() });
      ticks++;
      expect(result.results).toEqual([{ cluster: CLUSTER, ok: true }]);
      // Drain both queues as their event source mappings would.
      for (let idle = 0; idle < 2;) {
        const work = await pollOnce(client, urls.WorkQueue ?? '', mine, 360, 60_000);
        const delayed = await pollOnce(client, urls.DelayQueue ?? '', delay.delay as BatchHandler, 180, 30_000);
        idle = work === null && delayed === null ? idle + 1 : 0;
      }
      if (converged(await apps.readNamespacedDeployment({ namespace: ns.name, name: 'web' }))) break;
      if (Date.now() > deadline) throw new Error(`not converged after ${ticks} ticks (${handled} records handled)`);
    }
    expect(handled).toBeGreaterThan(0);
    // The reconcile function's metrics, as the long-running worker serves them: reconcile outcomes and the
    // workqueue_* of its queue (queue/work durations of the leases its batches held).
    const records = emf.flatMap((l) => l.trim().split('\n')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const names = new Set(
      records
        .filter((r) => r.service === 'reconcile')
        .flatMap((r) =>
          (r._aws as { CloudWatchMetrics: Array<{ Metrics: Array<{ Name: string }> }> }).CloudWatchMetrics.flatMap(
            (m) => m.Metrics.map((x) => x.Name),
          ),
        ),
    );
    for (const name of [
      'fleetq_reconcile_total',
      'fleetq_reconcile_duration_seconds_count',
      'workqueue_queue_duration_seconds_count',
      'workqueue_work_duration_seconds_count',
      'fleetq_kube_requests_total',
    ])
      expect({ name, printed: names.has(name) }).toEqual({ name, printed: true });
    const ours = records.find(
      (r) => r.service === 'reconcile' && r.kind === 'Deployment' && r.fleetq_reconcile_total !== undefined,
    );
    expect(ours).toMatchObject({ cluster: CLUSTER, kind: 'Deployment', outcome: expect.any(String) });
    process.stderr.write(`lambda stack e2e: converged after ${ticks} ticks, ${handled} records of this namespace\n`);
  });
});
