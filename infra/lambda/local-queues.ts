// The offline loop's SQS: fauxqs on 127.0.0.1:$FAUXQS_PORT (default 4566) with the `local` stage's queues, named
// and configured as serverless.yml's (fleetq-local-work.fifo, -delay, -dead). Runs until Ctrl-C.
//   npx tsx infra/lambda/local-queues.ts
// then, in another shell: npx osls invoke local --stage local -f forwarder --path events/scheduled/forwarder-tick.json
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';

const port = Number(process.env.FAUXQS_PORT ?? 4566);
const server = await startFauxqs({ port, host: '127.0.0.1', logger: false });
const client = new SQSClient({
  endpoint: `http://127.0.0.1:${port}`,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const queues: Array<[string, Record<string, string>]> = [
  ['fleetq-local-work.fifo', { FifoQueue: 'true', VisibilityTimeout: '360' }],
  ['fleetq-local-delay', { VisibilityTimeout: '180' }],
  ['fleetq-local-dead', { VisibilityTimeout: '360' }],
];
for (const [QueueName, Attributes] of queues) {
  const out = await client.send(new CreateQueueCommand({ QueueName, Attributes }));
  process.stdout.write(`${out.QueueUrl}\n`);
}
process.stdout.write(`SQS emulator on http://127.0.0.1:${port}; Ctrl-C stops it\n`);
await new Promise<void>((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});
client.destroy();
await server.stop();
