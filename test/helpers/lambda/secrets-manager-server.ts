// A tiny Secrets Manager on 127.0.0.1 speaking the service's JSON protocol (POST /, X-Amz-Target
// secretsmanager.GetSecretValue, application/x-amz-json-1.1), for the real AWS SDK client: the secrets are set
// by the test, every request is recorded, and `failing` makes it answer 500 (an outage).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SecretsServer = {
  readonly endpoint: string;
  readonly secrets: Map<string, string>;
  readonly requests: Array<{ target: string; secretId: string }>;
  failing: boolean;
  stop(): Promise<void>;
};

export async function startSecretsServer(): Promise<SecretsServer> {
  const secrets = new Map<string, string>();
  const requests: SecretsServer['requests'] = [];
  const state = { failing: false };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const input = JSON.parse(body || '{}') as { SecretId?: string };
      const secretId = input.SecretId ?? '';
      requests.push({ target, secretId });
      const reply = (status: number, payload: unknown) =>
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(payload));
      if (state.failing) return reply(500, { __type: 'InternalServiceError', message: 'down' });
      if (target !== 'secretsmanager.GetSecretValue') return reply(400, { __type: 'UnknownOperationException' });
      const value = secrets.get(secretId);
      if (value === undefined) {
        return reply(400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the secret" });
      }
      reply(200, {
        ARN: secretId,
        Name: secretId.split(':').pop(),
        SecretString: value,
        VersionId: `v-${value.length}`,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: Date.now() / 1000,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    secrets,
    requests,
    get failing() {
      return state.failing;
    },
    set failing(v: boolean) {
      state.failing = v;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
