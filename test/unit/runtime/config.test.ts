import { describe, expect, it } from '@jest/globals';
import { ClusterRegistry } from '../../../shared/kube/registry.js';
import { ConfigError, loadConfig, readsMode } from '../../../shared/runtime/config.js';
import { queueConfig } from '../../../shared/runtime/deps.js';

describe('loadConfig', () => {
  it('applies defaults', () => {
    expect(loadConfig({})).toMatchObject({
      FLEETQ_DRIVER: 'memory',
      FLEETQ_QUEUE: 'fleetq',
      FLEETQ_CONCURRENCY: 8,
      FLEETQ_LEASE_MS: 30_000,
      FLEETQ_METRICS_HOST: '127.0.0.1',
    });
    expect(readsMode(loadConfig({}))).toBe('cache');
    expect(readsMode(loadConfig({ FLEETQ_DRIVER: 'redis' }))).toBe('cache');
    expect(readsMode(loadConfig({ FLEETQ_DRIVER: 'sqs' }))).toBe('live');
    expect(readsMode(loadConfig({ FLEETQ_DRIVER: 'sqs', FLEETQ_READS: 'cache' }))).toBe('cache');
    expect(loadConfig({ FLEETQ_METRICS_HOST: '0.0.0.0', FLEETQ_READS: 'live' })).toMatchObject({
      FLEETQ_METRICS_HOST: '0.0.0.0',
      FLEETQ_READS: 'live',
    });
  });
  it.each([
    { name: 'an unknown driver', env: { FLEETQ_DRIVER: 'kafka' }, variable: 'FLEETQ_DRIVER="kafka"' },
    {
      name: 'the Redis driver by its old name',
      env: { FLEETQ_DRIVER: 'bullmq' },
      variable: `FLEETQ_DRIVER="bullmq": 'bullmq' is now 'redis'`,
    },
    { name: 'a zero concurrency', env: { FLEETQ_CONCURRENCY: '0' }, variable: 'FLEETQ_CONCURRENCY="0"' },
    { name: 'a queue name with a slash', env: { FLEETQ_QUEUE: 'a/b' }, variable: 'FLEETQ_QUEUE="a/b"' },
    { name: 'a non-URL SQS endpoint', env: { SQS_ENDPOINT: 'localhost' }, variable: 'SQS_ENDPOINT="localhost"' },
    { name: 'an unknown read path', env: { FLEETQ_READS: 'informer' }, variable: 'FLEETQ_READS="informer"' },
    {
      name: 'a metrics host that is no address',
      env: { FLEETQ_METRICS_HOST: 'pod ip' },
      variable: 'FLEETQ_METRICS_HOST="pod ip"',
    },
    {
      name: 'a short signing secret',
      env: { FLEETQ_SIGNING_SECRET: 'short' },
      // Named, not repeated: a secret does not go into an error message (and from there into logs).
      variable: 'FLEETQ_SIGNING_SECRET="***"',
    },
    {
      name: 'a short previous signing secret',
      env: { FLEETQ_SIGNING_SECRET: 'a-secret-of-16-chars', FLEETQ_SIGNING_SECRET_PREVIOUS: 'short' },
      variable: 'FLEETQ_SIGNING_SECRET_PREVIOUS="***"',
    },
    {
      name: 'a previous signing secret without a current one',
      env: { FLEETQ_SIGNING_SECRET_PREVIOUS: 'a-secret-of-16-chars' },
      variable: 'FLEETQ_SIGNING_SECRET_PREVIOUS="***": needs FLEETQ_SIGNING_SECRET',
    },
    {
      name: "a Lambda without the stack's queues or Redis",
      env: { AWS_LAMBDA_FUNCTION_NAME: 'fleetq-prod-reconcile', FLEETQ_DRIVER: 'sqs' },
      variable: 'SQS_WORK_URL=undefined: required in Lambda',
    },
    {
      name: "one of the stack's queues without the others",
      env: { SQS_WORK_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/fleetq-prod-work.fifo' },
      variable: 'SQS_DELAY_URL and SQS_DEAD_URL go together',
    },
  ])('names the variable for $name', ({ env, variable }) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });
  it('lets flags override the environment', () => {
    expect(loadConfig({ FLEETQ_DRIVER: 'sqs' }, { FLEETQ_DRIVER: 'redis' }).FLEETQ_DRIVER).toBe('redis');
  });
});

describe('queueConfig', () => {
  it('turns registry concurrency limits into per-cluster caps', () => {
    const registry = new ClusterRegistry([
      {
        name: 'a',
        owns: ['ConfigMap'],
        limits: { qps: 1, burst: 1, concurrency: 3 },
        connection: { type: 'kubeconfig', path: '/k' },
      },
      { name: 'b', owns: ['ConfigMap'], limits: { qps: 1, burst: 1 }, connection: { type: 'kubeconfig', path: '/k' } },
    ]);
    const q = queueConfig(
      loadConfig({ FLEETQ_DRIVER: 'redis', FLEETQ_SIGNING_SECRET: 'a-secret-of-16-chars' }),
      undefined,
      undefined,
      registry,
    );
    expect(q).toMatchObject({
      driver: 'redis',
      name: 'fleetq',
      options: { signingSecret: 'a-secret-of-16-chars', clusterConcurrencyOverrides: { a: 3 } },
    });
    expect(q.options?.clusterConcurrencyOverrides).not.toHaveProperty('b');
  });

  it('passes the previous signing secret of a rotation window to the queue', () => {
    const q = queueConfig(
      loadConfig({
        FLEETQ_DRIVER: 'redis',
        FLEETQ_SIGNING_SECRET: 'the-new-secret-16',
        FLEETQ_SIGNING_SECRET_PREVIOUS: 'the-old-secret-16',
      }),
    );
    expect(q.options).toMatchObject({ signingSecret: 'the-new-secret-16', signingSecretPrevious: 'the-old-secret-16' });
  });
});
