// `fleetq dlq list|show|redrive` filters (shared/replay/dead-letters.ts) on every driver: memory (in-process),
// redis (real Redis) and sqs (a real fauxqs); and the command itself on Redis, as a separate process.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { keyString, type ReconcileKey } from '../../shared/kube/key.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys } from '../../shared/queue/redis/redis-keys.js';
import type { Lease, WorkQueue } from '../../shared/queue/work-queue.js';
import { formatDeadLetters, listDeadLetters, redriveDeadLetters } from '../../shared/replay/dead-letters.js';
import { allDrivers, type TestQueue } from '../helpers/queue/drivers.js';
import { redisClient, REDIS_URL, testQueueName } from '../helpers/queue/redis.js';
import { spawnTsx, type Proc } from '../helpers/processes.js';
import '../helpers/long-timeout.js';

const execFileP = promisify(execFile);
const key = (cluster: string, kind: string, name: string): ReconcileKey => ({ cluster, kind, namespace: 'ns', name });
const A = key('c1', 'Deployment', 'a');
const B = key('c1', 'Job', 'b');
const C = key('c2', 'Deployment', 'c');
/** More than one page of any reader. */
const MANY = 520;

async function mustGet(queue: WorkQueue, ms = 10_000): Promise<Lease> {
  const lease = await queue.get(ms);
  if (!lease) throw new Error(`no lease within ${ms} ms`);
  return lease;
}

/** Parks A, B and C (in that order) with their own reasons, and one message that never was a key. */
async function park(q: WorkQueue): Promise<void> {
  for (const k of [A, B, C]) {
    await q.add(k);
    const lease = await mustGet(q);
    await q.deadLetter(lease, `terminal: ${lease.key.name} is invalid`);
  }
  await q.parkInvalid('c1/Deployment/ns/Bad_Name', 'name "Bad_Name" is not a valid name');
}

const names = (letters: Array<{ key: ReconcileKey | null }>): string[] => letters.map((d) => d.key?.name ?? '(raw)');

describe.each(allDrivers())('dead letters: $name', (h) => {
  let tq: TestQueue | undefined;
  beforeAll(() => h.start());
  afterAll(() => h.stop());
  afterEach(async () => {
    await tq?.dispose();
    tq = undefined;
  });

  it('lists by cluster, kind, key and age, and redrives only the matching keys', async () => {
    tq = await h.create({ leaseMs: 30_000, baseDelayMs: h.baseDelayMs });
    const q = tq.queue;
    await park(q);
    const now = Date.now();
    expect(names(await listDeadLetters(q, {}, now)).sort()).toEqual(['(raw)', 'a', 'b', 'c']);
    expect(names(await listDeadLetters(q, { cluster: 'c1' }, now)).sort()).toEqual(['a', 'b']);
    expect(names(await listDeadLetters(q, { kind: 'Deployment' }, now)).sort()).toEqual(['a', 'c']);
    expect(names(await listDeadLetters(q, { key: keyString(C) }, now))).toEqual(['c']);
    expect(await listDeadLetters(q, { olderThanMs: 60_000 }, now)).toEqual([]);
    expect(await listDeadLetters(q, { olderThanMs: 60_000 }, now + 120_000)).toHaveLength(4);

    const table = formatDeadLetters(await listDeadLetters(q, { cluster: 'c1' }, now), now);
    expect(table).toMatch(/^KEY\s+FAILURES\s+PARKED\s+LAST ERROR$/m);
    expect(table).toMatch(/^c1\/Deployment\/ns\/a\s+0\s+\d{4}-\d\d-\d\dT.*Z \(\d+s ago\)\s+terminal: a is invalid$/m);
    expect(table).toContain('2 dead letter(s)');

    // Redrive c1's Jobs: b alone goes back to ready, with its backoff reset.
    expect((await redriveDeadLetters(q, { cluster: 'c1', kind: 'Job' }, now)).moved).toBe(1);
    expect(names(await listDeadLetters(q, {}, now)).sort()).toEqual(['(raw)', 'a', 'c']);
    const lease = await mustGet(q);
    expect([lease.key, lease.failures]).toEqual([B, 0]);
    await q.done(lease);
    // An age filter that nothing passes moves nothing.
    expect((await redriveDeadLetters(q, { olderThanMs: 3_600_000 }, Date.now())).moved).toBe(0);
    expect((await redriveDeadLetters(q, { kind: 'Deployment' }, Date.now())).moved).toBe(2);
    expect(names(await listDeadLetters(q, {}, now))).toEqual(['(raw)']);
  });

  // More than a page of anything (the Redis stream reader's 500, SQS's 10 per receive): none is left out.
  it(`lists and redrives ${MANY} dead letters, every one`, async () => {
    tq = await h.create({ leaseMs: 30_000, baseDelayMs: h.baseDelayMs });
    const q = tq.queue;
    for (let i = 0; i < MANY; i++) await q.add(key(i % 2 === 0 ? 'c1' : 'c2', 'Deployment', `d-${i}`));
    for (let i = 0; i < MANY; i++) {
      const lease = await mustGet(q);
      await q.deadLetter(lease, `terminal: ${lease.key.name}`);
    }
    const now = Date.now();
    const all = await listDeadLetters(q, {}, now);
    expect(new Set(names(all)).size).toBe(MANY);
    expect(await listDeadLetters(q, { cluster: 'c1' }, now)).toHaveLength(MANY / 2);
    expect((await redriveDeadLetters(q, { cluster: 'c2' }, now)).moved).toBe(MANY / 2);
    expect(await listDeadLetters(q, {}, now)).toHaveLength(MANY / 2);
    expect(await q.depth()).toBe(MANY / 2);
  });
});

describe('fleetq dlq (the command, on Redis)', () => {
  const name = testQueueName();
  const queue = new RedisQueue({ name, redis: REDIS_URL, leaseMs: 30_000 });
  const redis = redisClient();
  afterAll(async () => {
    await queue.close();
    await deleteQueueKeys(redis, queue.prefix);
    await redis.quit();
  });
  const fleetq = async (...args: string[]): Promise<string> =>
    (
      await execFileP('npx', ['tsx', 'functions/cli.ts', 'dlq', ...args, '--driver', 'redis'], {
        env: { ...process.env, FLEETQ_QUEUE: name, REDIS_URL, NODE_OPTIONS: '' },
        timeout: 140_000, // a process start takes seconds, and tens of seconds on a loaded machine
      })
    ).stdout;

  it('lists and redrives (two processes: each start costs seconds on a loaded machine)', async () => {
    await park(queue);
    const listed = await fleetq('list', '--cluster', 'c1');
    expect(listed).toMatch(/^c1\/Deployment\/ns\/a\s+0\s+.*terminal: a is invalid$/m);
    expect(listed).toMatch(/^c1\/Job\/ns\/b\s+/m);
    expect(listed).not.toContain('c2/');
    expect(listed).toContain('2 dead letter(s)');
    expect(await fleetq('redrive', '--kind', 'Deployment', '--older-than', '0s')).toBe('redrove 2 key(s)\n');
    expect(names(await queue.deadLetters()).sort()).toEqual(['(raw)', 'b']);
  });

  it('-o json and --json, show, --dry-run, a filter matching nothing, an unknown kind, a malformed key', async () => {
    const other = testQueueName();
    const q = new RedisQueue({ name: other, redis: REDIS_URL, leaseMs: 30_000 });
    try {
      await park(q);
      const run = (...args: string[]): Proc =>
        spawnTsx('functions/cli.ts', { FLEETQ_QUEUE: other, REDIS_URL, FLEETQ_DRIVER: 'redis' }, args.join(' '), args);
      // None of these moves a letter: all at once (a process start costs seconds on a loaded machine).
      const [json, jsonAlias, yaml, show, dryRun, none, typo, malformed] = [
        run('dlq', 'list', '-o', 'json', '--kind', 'Deployment'),
        run('dlq', 'list', '--json', '--kind', 'Deployment'),
        run('dlq', 'list', '-o', 'yaml', '--key', keyString(B)),
        run('dlq', 'show', keyString(B)),
        run('dlq', 'redrive', '--dry-run', '--cluster', 'c1'),
        run('dlq', 'redrive', '--kind', 'CronJob'),
        run('dlq', 'redrive', '--kind', 'Deploymnet'),
        run('dlq', 'show', 'c1/Deployment/a'),
      ] as [Proc, Proc, Proc, Proc, Proc, Proc, Proc, Proc];
      const codes = await Promise.all(
        [json, jsonAlias, yaml, show, dryRun, none, typo, malformed].map((p) => p.exited),
      );
      expect(codes).toEqual([0, 0, 0, 0, 0, 0, 2, 2]);

      const parsed = (p: Proc) => p.lines.map((l) => JSON.parse(l) as { key: ReconcileKey; reason: string });
      expect(parsed(json).map((d) => d.key.name)).toEqual(['a', 'c']);
      expect(jsonAlias.lines).toEqual(json.lines);
      expect(yaml.lines).toContain('  reason: "terminal: b is invalid"');
      expect(show.lines).toEqual([
        'Key:       c1/Job/ns/b',
        'Failures:  0',
        expect.stringMatching(/^Parked: {4}\d{4}-\d\d-\d\dT/),
        'Reason:    terminal: b is invalid',
      ]);
      // --dry-run lists the c1 letters it would move (A, B; the raw letter is not a key) and moves none.
      expect(dryRun.lines.filter((l) => l.startsWith('c1/')).map((l) => l.split(/\s+/)[0])).toEqual([
        keyString(A),
        keyString(B),
      ]);
      expect(dryRun.lines).toContain('would redrive 2 key(s) (dry run: nothing moved)');
      expect(none.lines).toEqual([
        'redrove 0 key(s): no dead letter matches --kind CronJob (4 other(s) parked: fleetq dlq list)',
      ]);
      expect(typo.lines.join('\n')).toContain('--kind "Deploymnet": not a valid kind; did you mean Deployment?');
      expect(malformed.lines.join('\n')).toContain('the form is cluster/kind/namespace/name');
      expect(names(await q.deadLetters())).toEqual(['a', 'b', 'c', '(raw)']);
    } finally {
      await q.close();
      await deleteQueueKeys(redis, q.prefix);
    }
  });

  it('redrive refuses a bad-signature letter no known secret signed, saying what to do, and exits 1', async () => {
    const signedName = testQueueName();
    const stranger = new RedisQueue({ name: signedName, redis: REDIS_URL, signingSecret: 'a-secret-nobody-knows' });
    const worker = new RedisQueue({ name: signedName, redis: REDIS_URL, signingSecret: 'the-current-secret-16' });
    try {
      await stranger.add(A);
      expect(await worker.get(200)).toBeNull(); // dead-lettered as "bad signature", never handed out
      const run = execFileP('npx', ['tsx', 'functions/cli.ts', 'dlq', 'redrive', '--driver', 'redis'], {
        env: {
          ...process.env,
          FLEETQ_QUEUE: signedName,
          REDIS_URL,
          FLEETQ_SIGNING_SECRET: 'the-current-secret-16',
          NODE_OPTIONS: '',
        },
        timeout: 140_000,
      });
      const failed = (await run.then(
        () => {
          throw new Error('dlq redrive exited 0');
        },
        (err: unknown) => err,
      )) as { code: number; stdout: string; stderr: string };
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe('redrove 0 key(s)\n');
      expect(failed.stderr).toContain(
        '1 dead letter(s) with a bad signature were signed by no secret this process knows',
      );
      expect(failed.stderr).toContain('--resign-unverified');
      expect(failed.stderr).not.toContain('the-current-secret-16');
      expect((await worker.deadLetters()).map((d) => d.raw)).toEqual([keyString(A)]);
    } finally {
      await stranger.close();
      await worker.close();
      await deleteQueueKeys(redis, worker.prefix);
    }
  });
});
