// No credential reaches a log line or an error message: a configuration with every secret set (the signing
// secret, Redis passwords in both Redis URLs and as a query parameter, a bearer token, a client key) is driven
// through the paths that print configuration and errors, and the output must not contain any secret string.
import { describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterRegistry } from '../../../shared/kube/registry.js';
import { loadForwarderConfig } from '../../../shared/forwarder/forwarder-deps.js';
import { redisOptionsFor, redactedUrl } from '../../../shared/queue/redis/redis-connection.js';
import { ConfigError, loadConfig } from '../../../shared/runtime/config.js';
import { errorFields, Logger } from '../../../shared/runtime/logger.js';
import { redactText, redactUrl } from '../../../shared/kube/redact-secrets.js';

const SIGNING = 'signing-secret-0123456789';
const REDIS_PW = 'redis-pass@with/odd:chars';
const LOG_PW = 'eventlog-pass-4711';
const QUERY_PW = 'query-pass-0815';
const BEARER = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IkFiQyJ9.payload.signature';
const CLIENT_KEY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${CLIENT_KEY}\n-----END RSA PRIVATE KEY-----`;
const SECRETS = [SIGNING, REDIS_PW, 'redis-pass', 'odd:chars', LOG_PW, QUERY_PW, BEARER, CLIENT_KEY];

const env = {
  FLEETQ_DRIVER: 'redis',
  REDIS_URL: `rediss://fleetq:${REDIS_PW}@redis.internal:6380/0`,
  FLEETQ_SIGNING_SECRET: SIGNING,
  FLEETQ_EVENT_LOG_REDIS_URL: `rediss://:${LOG_PW}@log.internal:6379`,
};

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: new Logger('test', 'debug', (l) => lines.push(l)), lines };
}

function expectNoSecret(text: string): void {
  for (const s of SECRETS) expect(text).not.toContain(s);
}

/** The message of what `f` throws. */
function thrown(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('did not throw');
}

describe('no secret reaches a log line', () => {
  it('config errors name the variable, never its secret (every URL credential form)', () => {
    const bad = { ...env, FLEETQ_CONCURRENCY: '0', FLEETQ_METRICS_HOST: 'pod ip' };
    const message = thrown(() => loadConfig(bad));
    expect(message).toContain('FLEETQ_CONCURRENCY="0"');
    expectNoSecret(message);
    // Each credential form in a value the check refuses is hidden, the rest of the value kept.
    const sqs = thrown(() => loadConfig({ SQS_ENDPOINT: `http://AKIA:${QUERY_PW}@not a url` }));
    expectNoSecret(sqs);
    expect(() => loadConfig({ FLEETQ_SIGNING_SECRET: 'short' })).toThrow(ConfigError);
    const forwarder = thrown(() => loadForwarderConfig({ FLEETQ_EVENT_LOG_REDIS_URL: `http://u:${LOG_PW}@log:6379` }));
    expect(forwarder).toContain('FLEETQ_EVENT_LOG_REDIS_URL="http://u:***@log:6379"');
    expectNoSecret(forwarder);
    const tls = thrown(() =>
      redisOptionsFor(`redis://fleetq:${REDIS_PW}@h:6379/0?password=${QUERY_PW}`, { tlsCaFile: '/ca.pem' }),
    );
    expect(tls).toContain('redis://fleetq:***@h:6379/0?password=***');
    expectNoSecret(tls);
  });

  it('the logger hides credentials in messages, fields, errors and their causes', () => {
    const { logger, lines } = capture();
    const config = loadConfig(env);
    const fwd = loadForwarderConfig(env);
    // What a careless debug line could print: the whole configuration.
    logger.debug('Configuration', { config, fwd });
    logger.info(`connecting to ${config.REDIS_URL}`);
    const cause = new Error(`AUTH failed for rediss://fleetq:${REDIS_PW}@redis.internal:6380 (password=${QUERY_PW})`);
    logger.error('Reconcile failed', {
      error: new Error('request refused', { cause }),
      request: { headers: { Authorization: `Bearer ${BEARER}` }, url: `https://api/x?access_token=${BEARER}` },
      kubeconfig: { users: [{ user: { token: BEARER, 'client-key-data': CLIENT_KEY, clientKey: PEM } }] },
    });
    logger.warn('API budget in Redis unavailable', {
      redis: redactedUrl(config.REDIS_URL),
      error: errorFields(new Error(`got ${PEM}`)),
    });
    logger.child({ password: REDIS_PW }).info('child keys too');
    logger.info('Rotation', {
      FLEETQ_SIGNING_SECRET_PREVIOUS: SIGNING,
      secretId: 'arn:x',
      tokens: 3,
      token: 'lease-1',
    });
    expect(lines).toHaveLength(6);
    expect(JSON.parse(lines[5] ?? '{}')).toMatchObject({ tokens: 3, token: 'lease-1' });
    for (const line of lines) expectNoSecret(line);
    // What is not secret stays readable.
    expect(lines[1]).toContain('rediss://fleetq:***@redis.internal:6380/0');
    expect(JSON.parse(lines[2] ?? '{}').error.cause.message).toContain('rediss://fleetq:***@redis.internal:6380');
  });

  it("the registry's own warning line (stderr) hides a server URL's credentials", () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetq-redact-'));
    const path = join(dir, 'kubeconfig');
    const server = `http://admin:${REDIS_PW}@127.0.0.1:6443`;
    writeFileSync(
      path,
      `apiVersion: v1\nkind: Config\nclusters: [{ name: c, cluster: { server: "${server}" } }]\n` +
        `users: [{ name: u, user: { token: "${BEARER}" } }]\ncontexts: [{ name: c, context: { cluster: c, user: u } }]\n` +
        'current-context: c\n',
    );
    const lines: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const registry = new ClusterRegistry([
        {
          name: 'c',
          owns: ['ConfigMap'],
          limits: { qps: 1, burst: 1 },
          connection: { type: 'kubeconfig', path },
          allowInsecure: true,
        },
      ]);
      registry.kubeConfig('c');
    } finally {
      spy.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(lines.join('')).toContain('http://admin:***@127.0.0.1:6443');
    for (const line of lines) expectNoSecret(line);
  });

  it.each([
    { name: 'user and password', url: 'redis://user:pass@host:6379', want: 'redis://user:***@host:6379' },
    { name: 'password only', url: 'rediss://:pass@host:6380/1', want: 'rediss://:***@host:6380/1' },
    { name: 'an @ in the password', url: 'redis://u:p@ss@host', want: 'redis://u:***@host' },
    { name: 'a lone credential', url: 'redis://token@host', want: 'redis://***@host' },
    { name: 'a password parameter', url: 'redis://host?db=1&password=pass', want: 'redis://host?db=1&password=***' },
    { name: 'no credentials', url: 'redis://127.0.0.1:6379', want: 'redis://127.0.0.1:6379' },
  ])('redactUrl: $name', ({ url, want }) => {
    expect(redactUrl(url)).toBe(want);
    expect(redactedUrl(url)).toBe(want);
  });

  it('does bounded work on hostile text (no pattern backtracks over the whole of a long string)', () => {
    const started = performance.now();
    for (const unit of ['a://', 'eyJ-', 'eyJaaaa.', 'bearer ', 'authorization ', '-----BEGIN PRIVATE KEY-----'])
      expect(redactText(unit.repeat(Math.ceil(200_000 / unit.length))).length).toBeLessThan(70_000);
    // Linear work is tens of ms here; a quadratic pattern takes tens of seconds on the first input.
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('leaves ordinary text alone', () => {
    const text = 'basic setup: 3 keys, token 42 of lease, Bearer tokens are read from tokenFile';
    expect(redactText(text)).toBe(text);
  });
});
