// `fleetq describe KEY` (shared/ops/describe.ts) against real Redis and a real RedisQueue: each state is built
// through the queue's own operations (add, addAfter, get, done, retry, deadLetter) and the forwarder's cache store,
// and describe must show exactly those facts, the last outcome the scripts recorded with them; then the command
// itself, as a process (text, -o json, a malformed key).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { keyString, type ReconcileKey } from '../../shared/kube/key.js';
import { cacheEntry } from '../../shared/cache/cache-entry.js';
import { RedisCacheStore, redisCachePrefix } from '../../shared/cache/redis-cache-store.js';
import { describeKey, lastReconcileKey, type KeyDescription } from '../../shared/ops/describe.js';
import { LAST_ERROR_MAX, RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import { DEFAULT_QUEUE_OPTIONS, type Lease } from '../../shared/queue/work-queue.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import { redisClient, REDIS_URL, testQueueName } from '../helpers/queue/redis.js';

const CLUSTER = `d${randomUUID().slice(0, 8)}`;
const key = (name: string): ReconcileKey => ({ cluster: CLUSTER, kind: 'Deployment', namespace: 'shop', name });
const READY = key('ready');
const DELAYED = key('delayed');
const HELD = key('held');
const PARKED = key('parked');
const FAILING = key('failing');
const CONFLICTING = key('conflicting');
const DONE = key('done');
const REQUEUED = key('requeued');
const LONG_ERROR = key('long-error');
const CACHED_RV = '424242';
/** Consecutive failures of FAILING: its last backoff is 5 ms · 2^11 ≈ 10 s, long enough to be seen waiting. */
const FAILURES = 12;
/** The failing key's error: a URL with a password and a bearer token, which must not reach Redis. */
const PASSWORD = 'hunter2-s3cret';
const BEARER_TOKEN = 'abcdefghijklmnopqrstuvwx0123';
const FAILING_ERROR = `GET https://admin:${PASSWORD}@api.example:6443/apis said 500 (Authorization: Bearer ${BEARER_TOKEN})`;
const DAY_MS = 86_400_000;

const regexpText = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('fleetq describe', () => {
  const name = testQueueName();
  const queue = new RedisQueue({ name, redis: REDIS_URL });
  const redis = redisClient();
  const cache = new RedisCacheStore({ redis, cluster: CLUSTER });
  const { baseDelayMs, maxDelayMs } = DEFAULT_QUEUE_OPTIONS;
  const describeOf = (k: ReconcileKey): Promise<KeyDescription> =>
    describeKey(redis, k, { queue: name, baseDelayMs, maxDelayMs });
  let held: Lease;
  /** Server-clock bounds around each run's end: the record's time must fall between them. */
  let doneBetween: [number, number];

  async function serverNow(): Promise<number> {
    const [s, us] = await redis.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  }

  async function leaseOf(k: ReconcileKey, ms = 20_000): Promise<Lease> {
    const lease = await queue.get(ms);
    if (lease?.id !== keyString(k)) throw new Error(`wanted a lease of ${keyString(k)}, got ${lease?.id ?? 'none'}`);
    return lease;
  }

  beforeAll(async () => {
    // Each state through the queue's own operations, one key in play at a time so get() hands out that key.
    await queue.add(FAILING);
    for (let i = 0; i < FAILURES; i++) await queue.retry(await leaseOf(FAILING), new Error(FAILING_ERROR));
    await queue.add(PARKED);
    await queue.deadLetter(await leaseOf(PARKED), 'terminal: spec.replicas: Invalid value: -1');
    await queue.add(HELD);
    held = await leaseOf(HELD);
    await queue.add(HELD); // an event while it runs: a rerun after the lease
    await queue.add(DONE);
    const doneLease = await leaseOf(DONE);
    const before = await serverNow();
    await queue.done(doneLease);
    doneBetween = [before, await serverNow()];
    await queue.add(REQUEUED);
    await queue.done(await leaseOf(REQUEUED), 600_000);
    // Retries with a short backoff come last: a later get() would hand them out again (they are due in ms, and
    // a key added before that get() is ahead of them).
    await queue.add(CONFLICTING);
    await queue.retry(await leaseOf(CONFLICTING), new Error('409'), { conflict: true });
    await queue.add(LONG_ERROR);
    await queue.retry(await leaseOf(LONG_ERROR), 'x'.repeat(5_000));
    await queue.add(READY);
    await queue.addAfter(DELAYED, 600_000);
    // The forwarder's cache of the cluster: READY's Deployment at CACHED_RV, kept alive by a heartbeat.
    const object = { metadata: { name: 'ready', namespace: 'shop', uid: 'u-1', resourceVersion: CACHED_RV } };
    await cache.replace('Deployment', [cacheEntry('Deployment', 'apps/v1', object)], CACHED_RV);
    await cache.heartbeat(600_000);
  }, 120_000);

  afterAll(async () => {
    await queue.close();
    await deleteQueueKeys(redis, queue.prefix);
    await deleteQueueKeys(redis, redisCachePrefix(CLUSTER));
    await redis.quit();
  });

  it('a ready key: queued since its ready time, no lease, no failures, the cached resourceVersion', async () => {
    const d = await describeOf(READY);
    expect(d).toMatchObject({
      key: keyString(READY),
      state: 'ready',
      queued: { delayed: false, inMs: 0 },
      held: null,
      failures: { count: 0, backoffMs: null },
      conflicts: { count: 0, backoffMs: null },
      deadLetter: null,
      lastError: null,
      lastReconcile: null,
      cache: { kind: 'Deployment', resourceVersion: CACHED_RV, watermark: CACHED_RV },
      notRecorded: ['lastReconcile', 'lastError'],
    });
  });

  it('a delayed key: delayed until its time', async () => {
    const d = await describeOf(DELAYED);
    expect(d).toMatchObject({ state: 'delayed', queued: { delayed: true }, held: null });
    expect(Date.parse(d.queued?.readyAt ?? '') - Date.parse(d.at)).toBeGreaterThan(590_000);
    expect(d.cache).toEqual({ kind: 'Deployment', resourceVersion: null, watermark: CACHED_RV });
  });

  it('a held key: its holder and token, the lease expiry, the rerun asked for while held', async () => {
    const d = await describeOf(HELD);
    expect(d).toMatchObject({ state: 'held', queued: null });
    expect(d.held).toMatchObject({ token: held.token });
    // The holder names this process: host/pid/random, the token's fields before its call and lease numbers.
    expect(d.held?.holder.startsWith(`${hostname()}/${process.pid}/`)).toBe(true);
    expect(held.token).toBe(`${d.held?.holder}.${held.token.split('.').slice(-2).join('.')}`);
    expect(d.held?.leaseExpiresInMs).toBeGreaterThan(0);
    expect(d.held?.leaseExpiresInMs).toBeLessThanOrEqual(DEFAULT_QUEUE_OPTIONS.leaseMs);
    expect(Date.parse(d.held?.leaseExpiresAt ?? '') - Date.parse(d.at)).toBe(d.held?.leaseExpiresInMs);
    expect(d.held?.rerunAt).not.toBeNull();
  });

  it('a dead-lettered key: the letter, its reason as the last error and the last outcome', async () => {
    const d = await describeOf(PARKED);
    expect(d).toMatchObject({
      state: 'dead-lettered',
      queued: null,
      held: null,
      deadLetter: { reason: 'terminal: spec.replicas: Invalid value: -1', failures: 0 },
      lastError: 'terminal: spec.replicas: Invalid value: -1',
      lastReconcile: { result: 'dead-lettered', error: 'terminal: spec.replicas: Invalid value: -1' },
      notRecorded: [],
    });
  });

  it('a finished key: its last reconcile, done at the time the script ran, kept 24 h', async () => {
    const d = await describeOf(DONE);
    expect(d).toMatchObject({
      state: 'not queued',
      lastReconcile: { result: 'done', error: null },
      lastError: null,
      notRecorded: ['lastError'],
    });
    const at = Date.parse(d.lastReconcile?.at ?? '');
    expect(at).toBeGreaterThanOrEqual(doneBetween[0]);
    expect(at).toBeLessThanOrEqual(doneBetween[1]);
    const ttl = await redis.pttl(lastReconcileKey(queue.prefix, keyString(DONE)));
    expect(ttl).toBeGreaterThan(DAY_MS - 600_000);
    expect(ttl).toBeLessThanOrEqual(DAY_MS);
  });

  it('a key finished with a requeue: requeued, and delayed until then', async () => {
    const d = await describeOf(REQUEUED);
    expect(d).toMatchObject({ state: 'delayed', lastReconcile: { result: 'requeued', error: null } });
  });

  it('a failing key: its failures and the backoff it waits out', async () => {
    const d = await describeOf(FAILING);
    const backoff = baseDelayMs * 2 ** (FAILURES - 1);
    expect(d).toMatchObject({
      state: 'delayed',
      queued: { delayed: true },
      failures: { count: FAILURES, backoffMs: backoff },
      conflicts: { count: 0, backoffMs: null },
      deadLetter: null,
      lastReconcile: { result: 'retried' },
    });
    expect(d.queued?.inMs).toBeLessThanOrEqual(backoff);
  });

  it('a retried key: its error as the last error, the password and token in it redacted', async () => {
    const d = await describeOf(FAILING);
    expect(d.lastError).toBe(d.lastReconcile?.error);
    expect(d.lastError).toMatch(/^Error: GET https:\/\/admin:\*\*\*@api\.example:6443\/apis said 500 /);
    expect(d.lastError).toContain('***');
    // Not in describe, nor anywhere in the record Redis holds.
    const stored = (await redis.get(lastReconcileKey(queue.prefix, keyString(FAILING)))) ?? '';
    for (const text of [d.lastError ?? '', stored]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(BEARER_TOKEN);
    }
    expect(JSON.parse(stored)).toMatchObject({ result: 'retried', at: Date.parse(d.lastReconcile?.at ?? '') });
  });

  it('a long error is capped before it reaches Redis', async () => {
    const d = await describeOf(LONG_ERROR);
    expect(d.lastReconcile).toMatchObject({ result: 'retried', error: 'x'.repeat(LAST_ERROR_MAX) });
  });

  it('a conflicting key: its conflict count and backoff, no failures', async () => {
    const d = await describeOf(CONFLICTING);
    expect(d).toMatchObject({
      failures: { count: 0, backoffMs: null },
      conflicts: { count: 1, backoffMs: baseDelayMs },
      lastReconcile: { result: 'conflict', error: 'Error: 409' },
      lastError: 'Error: 409',
    });
  });

  it('a key parked as "bad signature" (signed by a secret the workers do not know): its raw letter', async () => {
    const signed = testQueueName();
    const stranger = new RedisQueue({ name: signed, redis: REDIS_URL, signingSecret: 'a-secret-nobody-knows' });
    const worker = new RedisQueue({ name: signed, redis: REDIS_URL, signingSecret: 'the-current-secret-16' });
    try {
      await stranger.add(READY);
      expect(await worker.get(200)).toBeNull(); // dead-lettered as "bad signature", never handed out
      const d = await describeKey(redis, READY, { queue: signed, baseDelayMs, maxDelayMs });
      expect(d).toMatchObject({
        state: 'dead-lettered',
        queued: null,
        deadLetter: { reason: 'bad signature', failures: 0 },
        lastError: 'bad signature',
        lastReconcile: null, // a raw letter records no outcome: no worker ran it
      });
    } finally {
      await stranger.close();
      await worker.close();
      await deleteQueueKeys(redis, worker.prefix);
    }
  });

  it('the command: text and -o json show the same facts; a malformed key is bad usage (exit 2)', async () => {
    const env = { REDIS_URL, FLEETQ_DRIVER: 'redis', FLEETQ_QUEUE: name };
    const run = (...args: string[]): Proc => spawnTsx('functions/cli.ts', env, args.join(' '), args);
    const [text, json, parked, done, malformed] = [
      run('describe', keyString(HELD)),
      run('describe', keyString(FAILING), '-o', 'json'),
      run('describe', keyString(PARKED)),
      run('describe', keyString(DONE)),
      run('describe', `${CLUSTER}/Deployment/shop`),
    ] as [Proc, Proc, Proc, Proc, Proc];
    expect(await Promise.all([text, json, parked, done, malformed].map((p) => p.exited))).toEqual([0, 0, 0, 0, 2]);

    const field = (p: Proc, name: string): string =>
      (p.lines.find((l) => l.startsWith(`${name}:`)) ?? '').slice(name.length + 1).trim();
    expect(field(text, 'Key')).toBe(keyString(HELD));
    expect(field(text, 'State')).toBe('held');
    expect(field(text, 'Queued')).toBe('no');
    expect(field(text, 'Held')).toMatch(
      new RegExp(
        `^by ${regexpText(`${hostname()}/${process.pid}/`)}\\S+ \\(token ${regexpText(held.token)}\\), lease expires `,
      ),
    );
    expect(field(text, 'Held')).toContain('runs again after it');
    expect(field(text, 'Failures')).toBe('0');
    expect(field(text, 'Dead letter')).toBe('none');
    expect(field(text, 'Last error')).toBe('not recorded');
    expect(field(text, 'Last reconcile')).toBe('not recorded');
    expect(field(text, 'Cached object')).toBe(`Deployment not in the cache (cache current at ${CACHED_RV})`);

    const d = JSON.parse(json.lines.join('\n')) as KeyDescription;
    expect(d).toMatchObject({
      key: keyString(FAILING),
      failures: { count: FAILURES, backoffMs: baseDelayMs * 2 ** (FAILURES - 1) },
      lastReconcile: { result: 'retried' },
    });
    expect(d.lastError).not.toContain(PASSWORD);

    expect(field(parked, 'State')).toBe('dead-lettered');
    expect(field(parked, 'Dead letter')).toMatch(
      /^parked \S+ after 0 failure\(s\): terminal: spec\.replicas: Invalid value: -1$/,
    );
    expect(field(parked, 'Last error')).toBe('terminal: spec.replicas: Invalid value: -1');
    expect(field(parked, 'Last reconcile')).toMatch(/^dead-lettered at \S+ \(\S+ ago\)$/);

    expect(field(done, 'Last reconcile')).toMatch(/^done at \d{4}-\S+Z \(\S+ ago\)$/);
    expect(field(done, 'Last error')).toBe('not recorded');

    expect(malformed.lines.join('\n')).toContain('the form is cluster/kind/namespace/name');
  }, 150_000);
});
