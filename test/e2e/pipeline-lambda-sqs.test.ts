// The Lambda deployment shape on a sandbox cluster: forwarder → SQS (a real emulator) → the reconcile
// Lambda handler, invoked with real SQS batches the way the event source mapping does (receive, invoke,
// delete what was not reported in batchItemFailures); the delay-queue handler moves requeues back. Messages
// are signed (FLEETQ_SIGNING_SECRET): the forwarder's keys run, an unsigned one is dead-lettered.
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
import type * as Delay from '../../functions/delay.js';
import { readConfigMap, unreachableCluster, updateConfigMap, writeRegistry } from '../helpers/pipeline/fleet.js';
import { startMapping } from '../helpers/lambda/sqs.js';
import { sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';

const CLUSTER = 'fleetq-2';
const SECRET = 'e2e-lambda-secret';
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
  let delayLambda: typeof Delay;

  beforeAll(async () => {
    c = await sandboxCluster(CLUSTER);
    [src, dst] = await Promise.all([testNamespace(c.kc), testNamespace(c.kc)]);
    sqs = await startSqsEmulator();
    client = sqsClient(sqs.endpoint);
    urls = await ensureSqsQueues(client, sqsQueueNames(`lambda-${randomUUID().slice(0, 8)}`));
    const registryPath = writeRegistry([
      { name: CLUSTER, kubeconfig: c.state.kubeconfig, owns: ['ConfigMap'], mirror: { allowedNamespaces: ['test-*'] } },
      await unreachableCluster('gone'),
    ]);
    Object.assign(process.env, {
      FLEETQ_REGISTRY: registryPath,
      SQS_ENDPOINT: sqs.endpoint,
      SQS_WORK_URL: urls.work,
      SQS_DELAY_URL: urls.delay,
      SQS_DEAD_URL: urls.dead,
      SQS_VISIBILITY_MS: '30000',
      FLEETQ_SIGNING_SECRET: SECRET,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    lambda = await import('../../functions/reconcile.js');
    delayLambda = await import('../../functions/delay.js');
    queue = new SqsQueue({ client, urls, signingSecret: SECRET });
    const forwarderRegistry = new ClusterRegistry(loadRegistry(registryPath).filter((r) => r.name === CLUSTER));
    forwarder = new FleetForwarder(forwarderRegistry, { queue, checkpoints: new MemoryCheckpointStore(), resyncMs: 0 });
    await forwarder.start();
    mapping = startMapping(client, [
      { url: urls.work, handler: lambda.handler },
      { url: urls.delay, handler: delayLambda.delay },
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

  it('retries a failing key through batchItemFailures without dead-lettering it; dead-letters a malformed and an unsigned body', async () => {
    const gone = `gone/ConfigMap/${src.name}/x`;
    const unsigned = `${CLUSTER}/ConfigMap/${src.name}/unsigned`;
    await queue.add({ cluster: 'gone', kind: 'ConfigMap', namespace: src.name, name: 'x' });
    for (const [body, group] of [
      ['{"not":"a key"}', 'junk'],
      [unsigned, unsigned],
    ]) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: urls.work,
          MessageBody: body,
          MessageGroupId: group,
          MessageDeduplicationId: randomUUID(),
        }),
      );
    }
    const goneRuns = () =>
      mapping.invocations.flatMap((i) =>
        i.records.filter((r) => r.body === gone).map((r) => ({ record: r, failed: i.failed.includes(r.messageId) })),
      );
    // More failed runs than the old receive-count limit (3): retried without end, never dead-lettered.
    await waitFor(
      async () => goneRuns().filter((r) => r.failed).length >= 4,
      90_000,
      250,
      'four failed runs of the gone key',
    );
    await waitFor(async () => (await queue.deadLetters()).length >= 2, 30_000, 250, 'two dead letters');
    const letters = await queue.deadLetters();
    expect(
      letters
        .map((d) => ({ key: d.key, raw: d.raw, reason: d.reason }))
        .sort((a, b) => String(a.raw).localeCompare(String(b.raw))), // localeCompare puts '{' first
    ).toEqual([
      { key: null, raw: '{"not":"a key"}', reason: expect.stringMatching(/malformed reconcile key/) },
      { key: null, raw: unsigned, reason: 'bad signature' },
    ]);
    const runs = goneRuns();
    expect(runs.every((r) => r.failed)).toBe(true); // each run failed and was reported, so SQS kept the message
    // One message, received again after each backoff: its receive count is the failure count + 1.
    expect(runs.map((r) => Number(r.record.attributes.ApproximateReceiveCount))).toEqual(runs.map((_, i) => i + 1));
    // The unsigned and the malformed bodies were not reported (dead-lettered and deleted), and never ran.
    const reported = mapping.invocations.flatMap((i) => i.records.filter((r) => i.failed.includes(r.messageId)));
    expect(reported.every((r) => r.body === gone)).toBe(true);
  });
});
