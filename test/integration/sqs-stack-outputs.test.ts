// `fleetq status` and `fleetq dlq list` on the Lambda stack's queues, found from the stack's CloudFormation
// outputs (--stack-outputs: serverless.yml's WorkQueueUrl, DelayQueueUrl, DeadLetterQueueUrl, Region), on the
// SQS emulator (fauxqs): queues named as the stack names them, which the driver's own names do not find.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SqsQueue } from '../../shared/queue/sqs/sqs-queue.js';
import { ALL_CLUSTERS, collectStatus } from '../../shared/ops/status.js';
import { UsageError } from '../../functions/cli/common.js';
import { openQueue, queueCommandConfig, type QueueFlags } from '../../functions/cli/queue-open.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';

describe('fleetq status and dlq with --stack-outputs (fauxqs)', () => {
  let sqs: SqsEmulator;
  let admin: SQSClient;
  let dir: string;
  let outputsFile: string;

  beforeAll(async () => {
    sqs = await startSqsEmulator();
    admin = sqsClient(sqs.endpoint);
    const stack = `fleetq-${randomUUID().slice(0, 6)}`;
    const create = async (QueueName: string, fifo: boolean) =>
      (await admin.send(new CreateQueueCommand({ QueueName, Attributes: fifo ? { FifoQueue: 'true' } : {} })))
        .QueueUrl ?? '';
    const urls = {
      work: await create(`${stack}-work.fifo`, true),
      delay: await create(`${stack}-delay`, false),
      dead: await create(`${stack}-dead`, false),
    };
    const queue = new SqsQueue({ client: admin, urls });
    await queue.add({ cluster: 'c1', kind: 'Deployment', namespace: 'default', name: 'web' });
    await queue.parkInvalid('not a key', 'malformed');
    dir = await mkdtemp(join(tmpdir(), 'fleetq-stack-outputs-'));
    outputsFile = join(dir, 'outputs.json');
    // What `aws cloudformation describe-stacks --query 'Stacks[0].Outputs'` prints.
    await writeFile(
      outputsFile,
      JSON.stringify([
        { OutputKey: 'WorkQueueUrl', OutputValue: urls.work },
        { OutputKey: 'DelayQueueUrl', OutputValue: urls.delay },
        { OutputKey: 'DeadLetterQueueUrl', OutputValue: urls.dead },
        { OutputKey: 'Region', OutputValue: 'us-east-1' },
        { OutputKey: 'AdmissionLambdaFunctionUrl', OutputValue: 'https://example.invalid/' },
      ]),
    );
  });
  afterAll(async () => {
    admin?.destroy();
    await sqs?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The configuration `fleetq status|dlq --stack-outputs` builds (functions/cli/queue-open.ts). */
  const configOf = async (flags: QueueFlags) => {
    const saved = process.env.SQS_ENDPOINT;
    process.env.SQS_ENDPOINT = sqs.endpoint;
    try {
      return await queueCommandConfig(flags);
    } finally {
      if (saved === undefined) delete process.env.SQS_ENDPOINT;
      else process.env.SQS_ENDPOINT = saved;
    }
  };

  it("reads the stack's queues: status counts them, dlq lists the stack's dead letters", async () => {
    const config = await configOf({ stackOutputs: outputsFile });
    expect(config.FLEETQ_DRIVER).toBe('sqs');
    const row = (await collectStatus(config)).clusters.find((r) => r.cluster === ALL_CLUSTERS);
    expect(row).toMatchObject({ depth: 1, deadLetters: 1 });
    const { queue, close } = await openQueue(config);
    try {
      const letters = await queue.deadLetters();
      expect(letters.map((l) => [l.raw, l.reason])).toEqual([['not a key', 'malformed']]);
    } finally {
      await close();
    }
  });

  it('refuses outputs without the queues, and another driver, as bad usage', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify([{ OutputKey: 'WorkQueueUrl', OutputValue: 'http://x/1/q.fifo' }]));
    await expect(configOf({ stackOutputs: bad })).rejects.toThrow(/lack DelayQueueUrl, DeadLetterQueueUrl, Region/);
    await expect(configOf({ stackOutputs: join(dir, 'missing.json') })).rejects.toBeInstanceOf(UsageError);
    await expect(configOf({ stackOutputs: outputsFile, driver: 'redis' })).rejects.toThrow(/goes with --driver sqs/);
  });
});
