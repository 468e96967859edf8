// connectFailFast (shared/queue/redis/redis-connection.ts), the connect of `fleetq status` and `fleetq forwarder
// unquarantine`: a Redis nobody listens for fails at once with an error naming the URL, its password redacted, and
// the command exits non-zero saying so; a Redis that is there answers.
import { afterAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../infra/sandbox/process.js';
import { connectFailFast, RedisUnreachableError } from '../../shared/queue/redis/redis-connection.js';
import { spawnTsx } from '../helpers/processes.js';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PASSWORD = 'hunter2-not-printed';

describe('connectFailFast', () => {
  let deadUrl = '';
  const clients: { disconnect(): void }[] = [];
  afterAll(() => clients.forEach((c) => c.disconnect()));

  it('connects to a Redis that is there', async () => {
    const redis = await connectFailFast({ REDIS_URL: REDIS });
    clients.push(redis);
    expect(await redis.ping()).toBe('PONG');
  });

  it('refuses a port nobody listens on at once, naming the URL without its password', async () => {
    deadUrl = `redis://:${PASSWORD}@127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const err = await connectFailFast({ REDIS_URL: deadUrl }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RedisUnreachableError);
    const message = (err as Error).message;
    expect(message).toContain(`127.0.0.1:${new URL(deadUrl).port}`);
    expect(message).toContain('is not reachable');
    expect(message).not.toContain(PASSWORD);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it.each([
    ['forwarder unquarantine', ['forwarder', 'unquarantine', 'some-cluster']],
    ['status', ['status', '--driver', 'redis']],
  ])(
    'fleetq %s exits non-zero with that error',
    async (name, args) => {
      const port = await freePort();
      const cli = spawnTsx(
        'functions/cli.ts',
        { REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}`, FLEETQ_DRIVER: 'redis' },
        `fleetq ${name}`,
        args,
      );
      const code = await cli.exited;
      const said = cli.lines.join('\n');
      expect(code).not.toBe(0);
      expect(said).toMatch(new RegExp(`fleetq: Redis at redis://.*127\\.0\\.0\\.1:${port} is not reachable`));
      expect(said).not.toContain(PASSWORD);
    },
    120_000,
  );
});
