// Secrets at cold start, cached with a TTL, through the real AWS SDK client against a local server speaking
// Secrets Manager's JSON protocol; and what a Lambda container keeps (lambda-deps.ts): a failed build is not
// kept, a rotated secret rebuilds.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../shared/runtime/config.js';
import { LambdaDeps } from '../../../shared/runtime/lambda-deps.js';
import { SecretEnvLoader, secretEnvLoader } from '../../../shared/runtime/lambda-secrets.js';
import { startSecretsServer, type SecretsServer } from '../../helpers/lambda/secrets-manager-server.js';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:fleetq/handler-AbCdEf';
const secret = (redis: string) =>
  JSON.stringify({
    env: { REDIS_URL: redis, FLEETQ_SIGNING_SECRET: 'sixteen-chars-secret' },
    files: {
      'fleet.yaml': 'clusters:\n  - { name: eu-1, kubeconfig: kubeconfigs/eu-1.yaml }\n',
      'kubeconfigs/eu-1.yaml': 'apiVersion: v1\nkind: Config\n',
    },
  });

describe('Lambda secrets (Secrets Manager JSON protocol on 127.0.0.1)', () => {
  let server: SecretsServer;
  let dir: string;
  let client: SecretsManagerClient;

  beforeAll(async () => {
    server = await startSecretsServer();
    dir = await mkdtemp(join(tmpdir(), 'fleetq-secrets-test-'));
    client = new SecretsManagerClient({
      endpoint: server.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client.destroy();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the secret once per TTL, writes its files 0600 and points FLEETQ_REGISTRY at its fleet.yaml', async () => {
    server.secrets.set(ARN, secret('rediss://:pw1@redis.internal:6379'));
    let now = 1_000_000;
    const loader = new SecretEnvLoader({ secretId: ARN, client, ttlMs: 60_000, dir, now: () => now });
    const first = await loader.get();
    expect(first.env).toEqual({
      REDIS_URL: 'rediss://:pw1@redis.internal:6379',
      FLEETQ_SIGNING_SECRET: 'sixteen-chars-secret',
      FLEETQ_REGISTRY: join(dir, first.version, 'fleet.yaml'),
    });
    const registry = first.env.FLEETQ_REGISTRY ?? '';
    expect(await readFile(registry, 'utf8')).toMatch(/name: eu-1/);
    expect((await stat(join(dir, first.version, 'kubeconfigs/eu-1.yaml'))).mode & 0o777).toBe(0o600);
    // The values reach the configuration (REDIS_URL is required in Lambda; the secret gives it).
    const config = loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'fleetq-reconcile', FLEETQ_DRIVER: 'memory', ...first.env });
    expect(config.REDIS_URL).toBe('rediss://:pw1@redis.internal:6379');

    now += 59_000;
    expect(await loader.get()).toBe(first); // within the TTL: no request
    expect(server.requests.filter((r) => r.secretId === ARN)).toHaveLength(1);
    expect(server.requests[0]?.target).toBe('secretsmanager.GetSecretValue');

    server.secrets.set(ARN, secret('rediss://:pw2@redis.internal:6379')); // rotated
    now += 2_000;
    const second = await loader.get();
    expect(second.version).not.toBe(first.version);
    expect(second.env.REDIS_URL).toBe('rediss://:pw2@redis.internal:6379');
    expect(loader.reads).toBe(2);

    // Secrets Manager down after the TTL: the last value is kept, and asked for again next time.
    server.failing = true;
    now += 61_000;
    const stale: unknown[] = [];
    const keeping = new SecretEnvLoader({ secretId: ARN, client, ttlMs: 0, dir, onStale: (e) => stale.push(e) });
    server.failing = false;
    await keeping.get();
    server.failing = true;
    expect((await keeping.get()).env.REDIS_URL).toBe('rediss://:pw2@redis.internal:6379');
    expect(stale).toHaveLength(1);
    server.failing = false;
  });

  it('fails a cold start without the secret, and refuses a secret with unknown variables or paths outside it', async () => {
    const missing = new SecretEnvLoader({ secretId: `${ARN}-missing`, client, dir });
    await expect(missing.get()).rejects.toThrow(/can't find the secret/);
    server.secrets.set(`${ARN}-bad`, JSON.stringify({ env: { PATH: '/x' }, files: { '../escape': 'x' } }));
    const bad = new SecretEnvLoader({ secretId: `${ARN}-bad`, client, dir });
    await expect(bad.get()).rejects.toThrow(/env\.PATH|files\.\.\.\/escape|relative path inside the secret/);
  });

  it('a Lambda container: the environment names the secret, a failed build is not kept, a rotation rebuilds', async () => {
    const id = `${ARN}-container`;
    server.secrets.set(id, secret('redis://:a@127.0.0.1:1'));
    const env = {
      FLEETQ_SECRET_ID: id,
      SECRETS_ENDPOINT: server.endpoint,
      FLEETQ_SECRET_TTL_MS: '0',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    };
    expect(secretEnvLoader({})).toBeUndefined();
    const builds: string[] = [];
    const closed: string[] = [];
    let fail = true;
    const lambda = new LambdaDeps<string>(
      'test',
      async (e) => {
        builds.push(e.REDIS_URL ?? '');
        if (fail) throw new Error('cold start failed');
        return e.REDIS_URL ?? '';
      },
      async (d) => void closed.push(d),
      env,
    );
    await expect(lambda.get()).rejects.toThrow('cold start failed');
    fail = false;
    const warm = await lambda.get(); // built again: the failure was not cached
    expect(warm).toEqual({ deps: 'redis://:a@127.0.0.1:1', coldStart: false });
    expect((await lambda.get()).deps).toBe('redis://:a@127.0.0.1:1');
    expect(builds).toEqual(['redis://:a@127.0.0.1:1', 'redis://:a@127.0.0.1:1']);
    server.secrets.set(id, secret('redis://:b@127.0.0.1:1'));
    expect((await lambda.get()).deps).toBe('redis://:b@127.0.0.1:1');
    expect(closed).toEqual(['redis://:a@127.0.0.1:1']);
    await lambda.dispose();
    expect(closed).toEqual(['redis://:a@127.0.0.1:1', 'redis://:b@127.0.0.1:1']);
  });
});
