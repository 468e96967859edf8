// A real SQS emulator (fauxqs) for integration tests, started in-process on a free loopback port.
// Queue URLs are used exactly as fauxqs returns them; the SDK sends every request to `endpoint`.
import { SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';

export type SqsEmulator = { readonly endpoint: string; stop(): Promise<void> };

export async function startSqsEmulator(): Promise<SqsEmulator> {
  const server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

export function sqsClient(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}
