// shared/runtime/redis-url-policy.ts: a Redis off this machine is reached with AUTH and TLS (rediss:// with a
// password), or the operator says in the environment that it may not be.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../../shared/runtime/config.js';
import { insecureRedisUrl } from '../../../shared/runtime/redis-url-policy.js';
import { loadForwarderConfig } from '../../../shared/forwarder/forwarder-deps.js';

describe('redis URL policy', () => {
  it.each([
    { name: 'loopback, plain', url: 'redis://127.0.0.1:6379' },
    { name: 'loopback 127/8', url: 'redis://127.0.0.2:6400/1' },
    { name: 'localhost', url: 'redis://localhost:6379' },
    { name: 'IPv6 loopback', url: 'redis://[::1]:6379' },
    { name: 'remote with password and TLS', url: 'rediss://:s3cret@redis.example:6380' },
    { name: 'remote with user, password and TLS', url: 'rediss://fleetq:s3cret@10.0.0.5:6380/0' },
    { name: 'Redis Cluster seeds on loopback', url: 'redis://127.0.0.1:7000,127.0.0.1:7001,localhost:7002' },
    { name: 'Redis Cluster seeds with password and TLS', url: 'rediss://:s3cret@r1.example:7000,r2.example:7001' },
  ])('accepts $name', ({ url }) => expect(insecureRedisUrl(url, {})).toBeUndefined());

  it.each([
    { name: 'remote plain, no password', url: 'redis://redis.example:6379', want: /no password and no TLS/ },
    { name: 'remote plain with password', url: 'redis://:s3cret@10.0.0.5:6379', want: /no TLS/ },
    { name: 'remote TLS without password', url: 'rediss://redis.example:6380', want: /no password/ },
    { name: 'user without password', url: 'rediss://fleetq@redis.example:6380', want: /no password/ },
    { name: 'a host that only looks local', url: 'redis://localhost.evil.example:6379', want: /no password/ },
    { name: '127.x as a host name prefix', url: 'redis://127.0.0.1.nip.io:6379', want: /no password/ },
    {
      name: 'a remote Redis Cluster seed among loopback ones',
      url: 'redis://127.0.0.1:7000,r2.example:7001',
      want: /at r2\.example .*no password and no TLS/,
    },
  ])('refuses $name, saying what to do', ({ url, want }) => {
    const problem = insecureRedisUrl(url, {});
    expect(problem).toMatch(want);
    expect(problem).toMatch(/FLEETQ_ALLOW_INSECURE_REDIS=1/);
  });

  it.each([
    { name: 'not a Redis URL', url: 'http://redis.example:6379' },
    { name: 'not a URL', url: 'redis.example:6379' },
  ])('refuses $name', ({ url }) => expect(insecureRedisUrl(url, {})).toMatch(/not a redis:\/\/ or rediss:\/\/ URL/));

  it('never repeats the password', () => {
    expect(insecureRedisUrl('redis://:hunter2-secret@redis.example:6379', {})).not.toMatch(/hunter2/);
  });

  it('FLEETQ_ALLOW_INSECURE_REDIS=1 accepts a plain remote URL; other values do not', () => {
    expect(insecureRedisUrl('redis://redis.example:6379', { FLEETQ_ALLOW_INSECURE_REDIS: '1' })).toBeUndefined();
    expect(insecureRedisUrl('redis://redis.example:6379', { FLEETQ_ALLOW_INSECURE_REDIS: 'yes' })).toMatch(
      /FLEETQ_ALLOW_INSECURE_REDIS must be 1/,
    );
    // Not a Redis URL at all is refused even so.
    expect(insecureRedisUrl('http://x', { FLEETQ_ALLOW_INSECURE_REDIS: '1' })).toMatch(/not a redis/);
  });

  it('loadConfig refuses at start-up, naming REDIS_URL without its password', () => {
    const load = () => loadConfig({ FLEETQ_DRIVER: 'redis', REDIS_URL: 'redis://:topsecret@redis.example:6379' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/REDIS_URL="redis:\/\/:\*\*\*@redis.example:6379": .*no TLS/);
    expect(load).not.toThrow(/topsecret/);
    expect(loadConfig({ REDIS_URL: 'rediss://:p@redis.example:6380' }).REDIS_URL).toBe(
      'rediss://:p@redis.example:6380',
    );
    expect(loadConfig({}).REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(loadConfig({ REDIS_URL: 'redis://redis.example:6379', FLEETQ_ALLOW_INSECURE_REDIS: '1' }).REDIS_URL).toBe(
      'redis://redis.example:6379',
    );
  });
});

describe('the event log’s Redis (FLEETQ_EVENT_LOG_REDIS_URL)', () => {
  it('is under the same rule', () => {
    const load = (env: NodeJS.ProcessEnv) => loadForwarderConfig(env);
    expect(() => load({ FLEETQ_EVENT_LOG_REDIS_URL: 'redis://:pw-secret@log.example:6379' })).toThrow(
      /FLEETQ_EVENT_LOG_REDIS_URL: a Redis at log.example \(not loopback\) with no TLS/,
    );
    expect(() => load({ FLEETQ_EVENT_LOG_REDIS_URL: 'redis://:pw-secret@log.example:6379' })).not.toThrow(/pw-secret/);
    expect(load({ FLEETQ_EVENT_LOG_REDIS_URL: 'rediss://:pw@log.example:6380' }).FLEETQ_EVENT_LOG_REDIS_URL).toBe(
      'rediss://:pw@log.example:6380',
    );
    expect(load({ FLEETQ_EVENT_LOG_REDIS_URL: 'redis://127.0.0.1:6380' }).FLEETQ_EVENT_LOG_REDIS_URL).toBe(
      'redis://127.0.0.1:6380',
    );
  });
});
