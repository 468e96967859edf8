// The Lambda deployment shape on a sandbox cluster: forwarder → SQS (a real emulator) → the reconcile
// Lambda handler, invoked with real SQS batches the way the event source mapping does (receive, invoke,
// delete what was not reported in batchItemFailures); the delay-queue handler moves requeues back.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { MIRROR_TO } from '../../shared/controllers/configmap-mirror/types.js';
import { FleetForwarder } from '../../shared/forwarder/fleet-forwarder.js';
import { ClusterRegistry, loadRegistry } from '../../shared/kube/registry.js';
import { MemoryCheckpointStore } from '../../shared/queue/history/checkpoint-store.js';
import { SqsQueue } from '../../shared/queue/sqs/sqs-queue.js';
import { ensureSqsQueues, sqsQueueNames, type SqsQueueUrls } from '../../shared/queue/sqs/sqs-setup.js';
import { waitFor } from '../../infra/sandbox/process.js';
import type * as Reconcile from '../../functions/reconcile.js';
import { readConfigMap, unreachableCluster, updateConfigMap, writeRegistry } from '../helpers/fleet.js';
import { startMapping } from '../helpers/lambda-sqs.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/sqs.js';

const CLUSTER = 'fleetq-2';
type Ns = { name: string; remove: () => Promise<void> };

describe('pipeline on SQS with the Lambda handler', () => {
  let c: TestCluster;
  let src: Ns, dst: Ns;
  let sqs: SqsEmulator;
  let client: SQSClient;
  let urls: SqsQueueUrls;
  let forwarder: FleetForwarder;
  let mapping: ReturnType<typeof startMapping>;
  let queue: SqsQueue;
  let lambda: typeof Reconcile;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    [src, dst] = await Promise.all([testNamespace(c.kc), testNamespace(c.kc)]);
    sqs = await startSqsEmulator();
    client = sqsClient(sqs.endpoint);
    urls = await ensureSqsQueues(client, sqsQueueNames(`lambda-${randomUUID().slice(0, 8)}`));
    const registryPath = writeRegistry([
      { name: CLUSTER, kubeconfig: c.state.kubeconfig, owns: ['ConfigMap'] },
      await unreachableCluster('gone'),
    ]);
    Object.assign(process.env, {
      FLEETQ_REGISTRY: registryPath,
      SQS_ENDPOINT: sqs.endpoint,
      SQS_WORK_URL: urls.work,
      SQS_DELAY_URL: urls.delay,
      SQS_DEAD_URL: urls.dead,
      SQS_VISIBILITY_MS: '30000',
      FLEETQ_MAX_FAILURES: '3',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    lambda = await import('../../functions/reconcile.js');
    queue = new SqsQueue({ client, urls, maxFailures: 3 });
    const forwarderRegistry = new ClusterRegistry(loadRegistry(registryPath).filter((r) => r.name === CLUSTER));
    forwarder = new FleetForwarder(forwarderRegistry, { queue, checkpoints: new MemoryCheckpointStore(), resyncMs: 0 });
    await forwarder.start();
    mapping = startMapping(client, [
      { url: urls.work, handler: lambda.handler },
      { url: urls.delay, handler: lambda.delay },
    ]);
  });
  afterAll(async () => {
    await forwarder?.stop();
    await mapping?.stop();
    await queue?.close();
    await sqs?.stop();
    await Promise.all([src, dst].map((n) => n?.remove()));
  });

  it('converges the mirror controller from real SQS batches', async () => {
    const core = c.kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: src.name,
      body: { metadata: { name: 'cfg', annotations: { [MIRROR_TO]: dst.name } }, data: { n: '1' } },
    });
    await waitFor(async () => (await readConfigMap(c.kc, dst.name, 'cfg'))?.data?.n === '1', 60_000, 200, 'the copy');
    await updateConfigMap(c.kc, src.name, 'cfg', (cm) => ({ ...cm, data: { n: '2' } }));
    await waitFor(
      async () => (await readConfigMap(c.kc, dst.name, 'cfg'))?.data?.n === '2',
      60_000,
      200,
      'the updated copy',
    );
    await core.deleteNamespacedConfigMap({ namespace: src.name, name: 'cfg' });
    await waitFor(async () => (await readConfigMap(c.kc, dst.name, 'cfg')) === null, 60_000, 200, 'the copy deleted');
    expect(
      mapping.invocations.some((i) => i.records.some((r) => r.body === `${CLUSTER}/ConfigMap/${src.name}/cfg`)),
    ).toBe(true);
  });

  it('reports a failing key in batchItemFailures, dead-letters it after its retries, and dead-letters a malformed body', async () => {
    const gone = `gone/ConfigMap/${src.name}/x`;
    await queue.add({ cluster: 'gone', kind: 'ConfigMap', namespace: src.name, name: 'x' });
    await client.send(
      new SendMessageCommand({
        QueueUrl: urls.work,
        MessageBody: '{"not":"a key"}',
        MessageGroupId: 'junk',
        MessageDeduplicationId: randomUUID(),
      }),
    );
    await waitFor(async () => (await queue.deadLetters()).length >= 2, 90_000, 250, 'two dead letters');
    const letters = await queue.deadLetters();
    expect(letters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          key: null,
          raw: '{"not":"a key"}',
          reason: expect.stringMatching(/malformed reconcile key/),
        }),
        expect.objectContaining({
          key: expect.objectContaining({ cluster: 'gone' }),
          failures: 3,
          reason: expect.stringMatching(/unreachable/i),
        }),
      ]),
    );
    const goneInvocations = mapping.invocations.filter((i) => i.records.some((r) => r.body === gone));
    const reportedFailed = goneInvocations.filter((i) => i.failed.length > 0);
    expect(reportedFailed.length).toBe(2); // failures 1 and 2 retried; the third parks it and succeeds
    for (const inv of reportedFailed) {
      const ids = inv.records.filter((r) => r.body === gone).map((r) => r.messageId);
      expect(inv.failed).toEqual(ids);
    }
  });
});
