// The fleet-wide API budget's token bucket against a real Redis: the shared redis-server at REDIS_URL for the
// script itself, and a redis-server of the test's own where Redis is killed, restarted or paused. Grant times
// are taken with Date.now() in this one process (one clock for every client).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { RedisTokenBucket, type RedisTokenBucketOptions } from '../../shared/kube/redis-token-bucket.js';
import { deleteQueueKeys, redisKeyPrefix, redisKeys } from '../../shared/queue/redis/redis-keys.js';
import { redisApiBudget, type ApiBudget } from '../../shared/runtime/clients.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { Logger } from '../../shared/runtime/logger.js';
import { freePort, waitFor } from '../../infra/sandbox/process.js';
import { REDIS_URL, testQueueName } from '../helpers/queue/redis.js';

const CLUSTER = 'c1';

/** A redis-server of the test's own that can be killed (SIGKILL: nothing saved), restarted empty, paused. */
async function ownRedis(): Promise<{
  url: string;
  kill(): Promise<void>;
  restart(): Promise<void>;
  pause(): void;
  resume(): void;
}> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const c = spawn(
      'redis-server',
      ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    child = c;
    let out = '';
    c.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(async () => out.includes('Ready to accept connections'), 10_000, 20, `redis-server on ${port}`);
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGCONT');
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
}

function logSink(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const raw: string[] = [];
  return {
    logger: new Logger('redis-token-bucket-test', 'debug', (l) => raw.push(l)),
    lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Time (ms) that `n` takes in a row need. */
async function timeTakes(b: { take(): Promise<void> }, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await b.take();
  return performance.now() - t0;
}

describe('RedisTokenBucket (the script, on the shared Redis)', () => {
  const clients: Redis[] = [];
  let queue: string;
  let admin: Redis;
  const keysOf = () => redisKeys(redisKeyPrefix(queue));

  function bucket(o: Partial<RedisTokenBucketOptions> & Pick<RedisTokenBucketOptions, 'qps' | 'burst'>) {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
    clients.push(redis);
    const k = keysOf();
    return new RedisTokenBucket({
      redis,
      keys: { bucket: k.apiBucket(CLUSTER), takers: k.apiBucketTakers(CLUSTER) },
      takerId: `taker-${clients.length}`,
      ...o,
    });
  }

  beforeAll(() => {
    admin = new Redis(REDIS_URL);
  });
  beforeEach(() => {
    queue = testQueueName();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.quit()));
    await deleteQueueKeys(admin, redisKeyPrefix(queue));
  });
  afterAll(async () => {
    await admin.quit();
  });

  it('grants the burst at once, then paces at qps', async () => {
    const b = bucket({ qps: 10, burst: 5 });
    // At 10 qps, 5 paced tokens would take 400 ms.
    expect(await timeTakes(b, 5)).toBeLessThan(250);
    // The next 10 come at the pace: about 1 s.
    const paced = await timeTakes(b, 10);
    expect(paced).toBeGreaterThanOrEqual(850);
    expect(paced).toBeLessThan(2_000);
  });

  it('two processes sharing one bucket get no more than qps × t + burst together', async () => {
    const qps = 20;
    const burst = 4;
    const total = 40;
    const [a, b] = [bucket({ qps, burst }), bucket({ qps, burst })];
    const grants: Array<{ who: string; at: number }> = [];
    const t0 = performance.now();
    // Three callers per process at once: each process serves its own callers in order.
    const callers = [a, a, a, b, b, b].map(async (x, i) => {
      while (grants.length < total) {
        await x.take();
        grants.push({ who: i < 3 ? 'a' : 'b', at: performance.now() });
      }
    });
    await Promise.all(callers);
    grants.sort((x, y) => x.at - y.at);
    // The n-th grant (1-based) at t never exceeds burst + qps × t; 1 token of slack for ms rounding.
    const over = grants.filter((g, i) => i + 1 > burst + (qps * (g.at - t0)) / 1000 + 1);
    expect(over).toEqual([]);
    const elapsed = (grants.at(-1)?.at ?? t0) - t0;
    expect(elapsed).toBeGreaterThanOrEqual(((grants.length - burst - 1) / qps) * 1000);
    expect(grants.filter((g) => g.who === 'a').length).toBeGreaterThan(0);
    expect(grants.filter((g) => g.who === 'b').length).toBeGreaterThan(0);
    expect(await admin.zcard(keysOf().apiBucketTakers(CLUSTER))).toBe(2);
  });

  it('serves takers in the order they asked, across processes (a reservation each, no asking again)', async () => {
    // One worker's 5 deletes ask first, another worker's 5 creates after them: all 5 deletes must be sent first
    // (kube-controller-manager's one client serves them in order; redis-flush caught creates overtaking deletes).
    const qps = 10;
    const [a, b] = [bucket({ qps, burst: 1 }), bucket({ qps, burst: 1 })];
    const order: string[] = [];
    const first = Array.from({ length: 5 }, (_, i) => a.take().then(() => order.push(`a${i}`)));
    // a's five reservations are in once the bucket is 4 tokens below zero (a few ms of refill between calls).
    const key = keysOf().apiBucket(CLUSTER);
    await waitFor(async () => Number(await admin.hget(key, 'tokens')) < -3.5, 5_000, 5, "a's reservations");
    const t0 = performance.now();
    const second = Array.from({ length: 5 }, (_, i) => b.take().then(() => order.push(`b${i}`)));
    await Promise.all([...first, ...second]);
    expect(order).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'b2', 'b3', 'b4']);
    // b's five tokens come after a's four reserved ones, at the pace: 9 tokens at 10 qps from t0, less the
    // refill while a's reservations were made.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(800);
  });

  it('heals a deleted or clobbered key as a full bucket, and lets an idle bucket expire once it would be full', async () => {
    const b = bucket({ qps: 1, burst: 3 });
    expect(await timeTakes(b, 3)).toBeLessThan(250);
    const key = keysOf().apiBucket(CLUSTER);
    // Empty now; it would be full again in 3 s, so it expires within 3 s + 1 s.
    const ttl = await admin.pttl(key);
    expect(ttl).toBeGreaterThan(2_000);
    expect(ttl).toBeLessThanOrEqual(4_000);
    await admin.del(key); // data loss (FLUSHALL, restart without persistence, eviction)
    // At 1 qps three more tokens would take 2 s; a missing bucket is full.
    expect(await timeTakes(b, 3)).toBeLessThan(250);
    expect(Number(await admin.hget(key, 'tokens'))).toBeLessThan(0.5);
    // A clobbered key (another type) is replaced the same way, and takes stay on Redis.
    await admin.set(key, 'not a bucket');
    await admin.set(keysOf().apiBucketTakers(CLUSTER), 'nor this');
    expect(await timeTakes(b, 3)).toBeLessThan(250);
    expect(b.fallingBack).toBe(false);
    expect(await admin.type(key)).toBe('hash');
  });
});

describe('redisApiBudget when Redis is out', () => {
  const budgets: ApiBudget[] = [];
  afterEach(async () => {
    await Promise.all(budgets.splice(0).map((b) => b.close()));
  });

  function budget(url: string, logger: Logger): ApiBudget {
    const config = loadConfig({ REDIS_URL: url, FLEETQ_QUEUE: testQueueName(), FLEETQ_DRIVER: 'redis' });
    const b = redisApiBudget({ config, logger, timeoutMs: 300, retryMs: 200 });
    budgets.push(b);
    return b;
  }

  it('falls back to this process share (qps/N, burst/N) while Redis is down, and back to Redis when it answers', async () => {
    const redis = await ownRedis();
    try {
      const log = logSink();
      const limits = { qps: 10, burst: 4 };
      const queue = testQueueName();
      const config = loadConfig({ REDIS_URL: redis.url, FLEETQ_QUEUE: queue, FLEETQ_DRIVER: 'redis' });
      // Two processes take from the cluster's bucket: N = 2.
      const [p1, p2] = [1, 2].map(() => {
        const b = redisApiBudget({ config, logger: log.logger, timeoutMs: 300, retryMs: 200 });
        budgets.push(b);
        return b.limiter(CLUSTER, limits);
      }) as [RedisTokenBucket, RedisTokenBucket];
      await p1.take();
      await p2.take();
      await p1.take(); // p1 learns N from its own takes

      await redis.kill();
      // Requests go on at the share (10/2 qps), which starts empty once p1's reserved token came.
      expect(await timeTakes(p1, 2)).toBeLessThan(1_000);
      expect(p1.fallingBack).toBe(true);
      const share = await timeTakes(p1, 5);
      expect(share).toBeGreaterThanOrEqual(850); // 5 tokens at 10/2 qps; the whole 10 qps would take 500 ms
      expect(share).toBeLessThan(2_500);
      const warned = log
        .lines()
        .filter((l) => l.message === 'API budget in Redis unavailable; using this process share');
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ level: 'warn', cluster: CLUSTER, takers: 2, qps: 5, burst: 2 });

      await redis.restart(); // empty: the bucket is gone, which is a full bucket
      await waitFor(
        async () => {
          await p1.take();
          return !p1.fallingBack;
        },
        15_000,
        0,
        'the budget back on Redis',
      );
      expect(log.lines().some((l) => l.message === 'API budget in Redis restored' && l.cluster === CLUSTER)).toBe(true);
      await p1.take();
      const check = new Redis(redis.url);
      try {
        expect(await check.exists(redisKeys(redisKeyPrefix(queue)).apiBucket(CLUSTER))).toBe(1);
      } finally {
        check.disconnect();
      }
    } finally {
      await redis.kill();
    }
  });

  it('a Redis that does not answer (paused) costs a take at most the timeout', async () => {
    const redis = await ownRedis();
    try {
      const log = logSink();
      const b = budget(redis.url, log.logger).limiter(CLUSTER, { qps: 10, burst: 4 }) as RedisTokenBucket;
      await b.take();
      redis.pause();
      expect(await timeTakes(b, 1)).toBeLessThan(300 + 500);
      expect(b.fallingBack).toBe(true);
      // While paused, probes time out beside the line: takes are not held up by them.
      expect(await timeTakes(b, 2)).toBeLessThan(300);
      redis.resume();
      await waitFor(
        async () => {
          await b.take();
          return !b.fallingBack;
        },
        15_000,
        0,
        'the budget back on Redis',
      );
    } finally {
      await redis.kill();
    }
  });

  it('a process that never reached Redis takes 1/FLEETQ_API_BUDGET_FALLBACK_TAKERS of the budget until it does', async () => {
    // A process started during the outage (a Lambda cold start, a restarted worker) does not know how many
    // share the budget; ten of them each taking the whole budget sent ten times it.
    const log = logSink();
    const config = loadConfig({
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      FLEETQ_QUEUE: testQueueName(),
      FLEETQ_DRIVER: 'redis',
      FLEETQ_API_BUDGET_FALLBACK_TAKERS: '5',
    });
    const budget = redisApiBudget({ config, logger: log.logger, timeoutMs: 300, retryMs: 200 });
    budgets.push(budget);
    const b = budget.limiter(CLUSTER, { qps: 10, burst: 3 }) as RedisTokenBucket;
    // 10/5 = 2 qps, starting empty: 3 tokens take 1.5 s (the whole budget would grant them at once).
    expect(await timeTakes(b, 3)).toBeGreaterThanOrEqual(1_400);
    expect(b.fallingBack).toBe(true);
    expect(log.lines().find((l) => l.level === 'warn')).toMatchObject({
      takers: 5,
      takersKnown: false,
      qps: 2,
      burst: 1,
    });
  });

  it('processes that took from Redis keep to the budget together once it is down', async () => {
    // Each of 4 processes (4 callers each) learns N = 4 from its takes; when Redis is killed, the tokens it had
    // already reserved there still come, and its share (qps/4) only starts after them: in no second do the
    // 4 together get more than qps + burst.
    const redis = await ownRedis();
    const conns: Redis[] = [];
    try {
      const qps = 20;
      const burst = 5;
      const k = redisKeys(redisKeyPrefix(testQueueName()));
      const buckets = ['p0', 'p1', 'p2', 'p3'].map((takerId) => {
        // As clients.ts connects: a socket that does not close when asked (Redis down) is destroyed after 200 ms.
        const r = new Redis(redis.url, { maxRetriesPerRequest: 0, disconnectTimeout: 200 });
        r.on('error', () => undefined);
        conns.push(r);
        const keys = { bucket: k.apiBucket(CLUSTER), takers: k.apiBucketTakers(CLUSTER) };
        return new RedisTokenBucket({ redis: r, keys, qps, burst, takerId, timeoutMs: 300, retryMs: 200 });
      });
      const grants: number[] = [];
      let stop = false;
      const callers = buckets.flatMap((b) =>
        [1, 2, 3, 4].map(async () => {
          while (!stop) {
            await b.take();
            grants.push(performance.now());
          }
        }),
      );
      await waitFor(async () => grants.length >= 30, 10_000, 10, 'takes from Redis');
      await redis.kill();
      const killedAt = performance.now();
      // 2.5 s of the outage at the budget.
      await waitFor(async () => grants.filter((t) => t > killedAt).length >= 50, 10_000, 10, 'takes in the outage');
      stop = true;
      await Promise.all(callers);
      expect(buckets.map((b) => b.fallingBack)).toEqual([true, true, true, true]);
      // The most tokens granted in any 1 s window (1 token of slack for ms rounding).
      const most = Math.max(...grants.map((t, i) => grants.slice(i).filter((u) => u < t + 1_000).length));
      expect(most).toBeLessThanOrEqual(qps + burst + 1);
    } finally {
      conns.forEach((c) => c.disconnect());
      await redis.kill();
    }
  });
});
