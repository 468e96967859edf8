// connectFailFast (shared/queue/redis/redis-connection.ts), the connect of every one-shot command that opens Redis
// (status, dlq, dead-letters, redrive, describe, forwarder unquarantine): a Redis nobody listens on fails at once
// with an error naming the URL, its password redacted, and what to do; the command exits 1 within a deadline
// saying so, with no stack trace and no ioredis reconnect noise. A Redis that is there answers.
import { afterAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../infra/sandbox/process.js';
import { connectFailFast, RedisUnreachableError } from '../../shared/queue/redis/redis-connection.js';
import { unreachableCluster, writeRegistry } from '../helpers/pipeline/fleet.js';
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
    expect(message).toBe(
      `cannot reach Redis at redis://:***@127.0.0.1:${new URL(deadUrl).port} (ECONNREFUSED): start it or set REDIS_URL`,
    );
    expect(message).not.toContain(PASSWORD);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('on a Redis Cluster URL no seed answers: names every seed, without the password, and what to do', async () => {
    const ports = [await freePort(), await freePort()];
    const url = `redis://:${PASSWORD}@127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}`;
    const started = Date.now();
    const err = await connectFailFast({ REDIS_URL: url }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RedisUnreachableError);
    expect((err as Error).message).toBe(
      `cannot reach the Redis Cluster at redis://:***@127.0.0.1:${ports[0]},127.0.0.1:${ports[1]} (no seed answered): ` +
        'start it or set REDIS_URL to its nodes (host:port, comma-separated)',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('says a Redis asked for as a Cluster (FLEETQ_REDIS_CLUSTER=true) is not one', async () => {
    const before = process.env.FLEETQ_REDIS_CLUSTER;
    process.env.FLEETQ_REDIS_CLUSTER = 'true';
    try {
      const err = await connectFailFast({ REDIS_URL: REDIS }).then(
        (c) => (c.disconnect(), undefined),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RedisUnreachableError);
      expect((err as Error).message).toBe(
        `the Redis at ${REDIS} is not a Redis Cluster (ERR This instance has cluster support disabled): for one ` +
          'node, name one seed in REDIS_URL and unset FLEETQ_REDIS_CLUSTER; for a cluster, set REDIS_URL to its nodes',
      );
    } finally {
      if (before === undefined) delete process.env.FLEETQ_REDIS_CLUSTER;
      else process.env.FLEETQ_REDIS_CLUSTER = before;
    }
  });

  it('every command that opens Redis exits 1 within the deadline, naming the URL and what to do', async () => {
    const port = await freePort();
    // replay requeue reads the cluster's entry first (its owns): a registry naming c1.
    const registry = writeRegistry([await unreachableCluster('c1')]);
    const commands = [
      ['status'],
      ['status', '-o', 'json'],
      ['dlq', 'list'],
      ['dlq', 'show', 'c1/Deployment/ns/a'],
      ['dlq', 'redrive', '--kind', 'Job'],
      ['dead-letters'],
      ['redrive'],
      ['describe', 'c1/Deployment/ns/a'],
      ['forwarder', 'unquarantine', 'some-cluster'],
      // The event log's store (--store redis, the default) is the same Redis.
      ['log', 'export', '--cluster', 'c1'],
      ['log', 'stats', '--cluster', 'c1'],
      ['log', 'import', '--file', 'events/logs/rollout-scale.jsonl', '--into', 'x1'],
      ['replay', 'requeue', '--cluster', 'c1', '--since', '1h', '--registry', registry],
      ['replay', 'shadow', '--cluster', 'c1', '--b', 'current'],
    ];
    const started = Date.now();
    // At once: a process start takes seconds (tens at this machine's load); a command that hangs never exits.
    const runs = commands.map((args) =>
      spawnTsx(
        'functions/cli.ts',
        { REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}`, FLEETQ_DRIVER: 'redis' },
        `fleetq ${args.join(' ')}`,
        args,
      ),
    );
    const DEADLINE_MS = 120_000;
    let deadline: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => (deadline = setTimeout(() => resolve('hung'), DEADLINE_MS)));
    const exited = await Promise.all(runs.map((r) => Promise.race([r.exited, hung])));
    clearTimeout(deadline);
    runs.forEach((r) => void r.stop('SIGKILL'));
    const said = runs.map((r, i) => ({ command: commands[i]?.join(' '), exit: exited[i], lines: r.lines }));
    expect(said.map((s) => ({ command: s.command, exit: s.exit }))).toEqual(
      commands.map((c) => ({ command: c.join(' '), exit: 1 })),
    );
    const message = `fleetq: cannot reach Redis at redis://:***@127.0.0.1:${port} (ECONNREFUSED): start it or set REDIS_URL`;
    for (const s of said) {
      const text = s.lines.join('\n');
      expect({ command: s.command, says: s.lines.includes(message) }).toEqual({ command: s.command, says: true });
      // No stack trace, no ioredis reconnect noise, no password.
      expect({ command: s.command, noise: s.lines.filter((l) => /^\s+at |\[ioredis\]|Error:/.test(l)) }).toEqual({
        command: s.command,
        noise: [],
      });
      expect(text).not.toContain(PASSWORD);
    }
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
  }, 200_000);
});
