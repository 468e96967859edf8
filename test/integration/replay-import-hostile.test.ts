// `fleetq log import` over a hostile file, through the command itself (a process of its own, like an operator's):
// a cluster named `../…` never writes outside the JSON-lines store, a record dated 2100 is refused before anything
// is written, and an import without --into leaves the live stream alone. Real Redis at REDIS_URL; a temp dir.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JsonlEventLog } from '../../shared/queue/history/jsonl-event-log.js';
import type { LogRecord } from '../../shared/queue/history/log-record.js';
import { eventStreamKey as eventKey, RedisStreamEventLog } from '../../shared/queue/history/redis-stream-event-log.js';
import { readLogFile } from '../../shared/replay/log-file.js';
import { importLogFile } from '../../shared/replay/log-import.js';
import { openLogStore } from '../../shared/replay/log-store.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { redisClient, REDIS_URL, testQueueName } from '../helpers/queue/redis.js';
import '../helpers/long-timeout.js';

const execFileP = promisify(execFile);
const ROLLOUT = 'events/logs/rollout-scale.jsonl';
const YEAR_2100 = Date.UTC(2100, 0, 1);

/** Runs `fleetq log import …` on queue `queue`; resolves with its exit code and output, whatever the code. */
async function fleetqImport(
  queue: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const out = await execFileP('npx', ['tsx', 'functions/cli.ts', 'log', 'import', ...args], {
      env: { ...process.env, FLEETQ_QUEUE: queue, REDIS_URL, FLEETQ_EVENT_LOG: '', NODE_OPTIONS: '' },
      timeout: 140_000, // a process start takes seconds, and more on a loaded machine
    });
    return { code: 0, ...out };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('fleetq log import over a hostile file', () => {
  const redis = redisClient();
  let dir: string;
  let good: LogRecord[];
  const streams: string[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleetq-import-'));
    good = [];
    for await (const r of readLogFile(ROLLOUT)) if (good.push(r) >= 20) break;
  });
  afterAll(async () => {
    if (streams.length > 0) await redis.del(...streams);
    await redis.quit();
    await rm(dir, { recursive: true, force: true });
  });
  const writeLog = async (name: string, records: readonly object[]): Promise<string> => {
    const file = join(dir, name);
    await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return file;
  };
  /** The live stream of `cluster` for queue `queue`, as the forwarder writes it. */
  const liveKey = (queue: string, cluster: string): string => {
    const key = new RedisStreamEventLog({ redis, prefix: `fleetq:${queue}` }).key(cluster);
    streams.push(key);
    return key;
  };

  it('refuses a cluster named ../…: nothing is written, least of all outside the store', async () => {
    const store = join(dir, 'store');
    const file = await writeLog('escape.jsonl', [good[0]!, { ...good[1]!, cluster: '../escape' }, good[2]!]);
    const run = await fleetqImport(testQueueName(), '--file', file, '--store', `jsonl:${store}`);
    expect(existsSync(join(dir, 'escape'))).toBe(false);
    expect(existsSync(store)).toBe(false);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${file}: 1 bad record(s), nothing imported`);
    expect(run.stderr).toMatch(/line 2: cluster "\.\.\/escape" is not a cluster name/);
    expect(run.stderr).toContain('--skip-bad');

    // The store itself refuses a path out of its root, whoever calls it.
    const files = new JsonlEventLog({ dir: store, maxSegments: 0 });
    await expect(files.append('../escape', [good[0]!])).rejects.toThrow(/cluster name "\.\.\/escape" is not a plain/);
    await expect(files.append('a/../../escape', [good[0]!])).rejects.toThrow(/is not a plain directory name/);
    expect(existsSync(join(dir, 'escape'))).toBe(false);
  });

  it('refuses a record dated 2100 before writing anything, naming its line; --skip-bad imports the rest', async () => {
    const queue = testQueueName();
    const live = liveKey(queue, good[0]!.cluster);
    const named = new RedisStreamEventLog({ redis, prefix: `fleetq:${queue}:import:imported` }).key(good[0]!.cluster);
    streams.push(named);
    const file = await writeLog('future.jsonl', [...good.slice(0, 5), { ...good[5]!, observedAt: YEAR_2100 }]);
    const refused = await fleetqImport(queue, '--file', file);
    expect([await redis.xlen(live), await redis.xlen(named)]).toEqual([0, 0]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/line 6: observedAt 2100-01-01T00:00:00\.000Z is in the future/);

    // --skip-bad (in this process: one command start is enough) imports the good five, here into the live stream.
    const liveStore = openLogStore('redis', loadConfig({ FLEETQ_QUEUE: queue, REDIS_URL }));
    const skipped = await importLogFile(file, liveStore, { now: Date.now(), skipBad: true }).finally(() =>
      liveStore.close(),
    );
    expect(skipped.check).toMatchObject({ records: 5, bad: 1 });
    expect([...skipped.imported]).toEqual([[good[0]!.cluster, 5]]);
    expect(await redis.xlen(live)).toBe(5);
    // Nothing in the stream is dated ahead of now: `--since` and `fleetq status` still see the live entries.
    const [[lastId]] = (await redis.xrevrange(live, '+', '-', 'COUNT', 1)) as [[string, string[]]];
    expect(Number(lastId.split('-')[0])).toBeLessThanOrEqual(Date.now());
  });

  it('an import without --into goes to a named log: the live stream is untouched', async () => {
    const queue = testQueueName();
    const cluster = good[0]!.cluster;
    const live = liveKey(queue, cluster);
    const named = new RedisStreamEventLog({ redis, prefix: `fleetq:${queue}:import:imported` }).key(cluster);
    streams.push(named);
    const file = await writeLog('good.jsonl', good);
    const run = await fleetqImport(queue, '--file', file);
    expect(await redis.xlen(live)).toBe(0);
    expect(await redis.xlen(named)).toBe(good.length);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`imported ${good.length} record(s) of ${cluster} into redis:imported`);
    expect(run.stdout).toContain('read it with --store redis:imported');
    expect(await readdir(dir)).not.toContain('escape');
  });

  it('a second import of the same file into the same log is refused whole, and --replace replaces it', async () => {
    const queue = testQueueName();
    const cluster = good[0]!.cluster;
    const named = new RedisStreamEventLog({ redis, prefix: `fleetq:${queue}:import:again` }).key(cluster);
    streams.push(named);
    const file = await writeLog('again.jsonl', good);
    const entries = async (): Promise<string[]> => (await redis.xrange(named, '-', '+')).map(([id]) => id);
    expect((await fleetqImport(queue, '--file', file, '--into', 'again')).code).toBe(0);
    const first = await entries();
    expect(first).toHaveLength(good.length);

    // Before: the pipeline appended the records not older than the stream's last entry, then failed.
    const again = await fleetqImport(queue, '--file', file, '--into', 'again');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`redis:again already holds records of ${cluster}: nothing imported`);
    expect(again.stderr).toContain('--replace');
    expect(await entries()).toEqual(first);

    const replaced = await fleetqImport(queue, '--file', file, '--into', 'again', '--replace');
    expect(replaced.code).toBe(0);
    expect(await redis.xlen(named)).toBe(good.length);
    expect(await redis.pttl(named)).toBe(-1); // the aside stream's expiry does not follow it in
    expect(await redis.keys(`fleetq:{fleetq:${queue}:import:again}:importing:*`)).toEqual([]);
  });

  it('a file of two clusters, one already in the log: neither is written (Redis and JSON lines)', async () => {
    const other = good.map((r) => ({ ...r, cluster: 'other-1' }));
    const file = await writeLog('two.jsonl', [...good, ...other]);
    const queue = testQueueName();
    const config = loadConfig({ FLEETQ_QUEUE: queue, REDIS_URL });
    for (const spec of ['redis:two', `jsonl:${join(dir, 'two-store')}`]) {
      const store = openLogStore(spec, config);
      try {
        await importLogFile(await writeLog('one.jsonl', other), store, { now: Date.now() });
        if (spec.startsWith('redis')) {
          streams.push(...['other-1', good[0]!.cluster].map((c) => eventKey(`fleetq:${queue}:import:two`, c)));
        }
        await expect(importLogFile(file, store, { now: Date.now() })).rejects.toThrow(
          `${spec} already holds records of other-1: nothing imported`,
        );
        expect(await store.clusters()).toEqual(['other-1']);
        // The store's own transaction refuses too, when the pre-check was passed by (a writer in between).
        const txn = store.beginImport({ replace: false });
        await txn.write(good[0]!.cluster, good);
        await txn.write('other-1', other);
        await expect(txn.commit()).rejects.toThrow('already holds records of other-1');
        await txn.abort();
        expect(await store.clusters()).toEqual(['other-1']);

        const replaced = await importLogFile(file, store, { now: Date.now(), replace: true });
        expect([...replaced.imported]).toEqual([
          [good[0]!.cluster, good.length],
          ['other-1', good.length],
        ]);
        expect(await store.clusters()).toEqual([good[0]!.cluster, 'other-1'].sort());
        let n = 0;
        for await (const r of store.read('other-1', 0, Number.MAX_SAFE_INTEGER)) n += r.cluster === 'other-1' ? 1 : 0;
        expect(n).toBe(good.length);
      } finally {
        await store.close();
      }
    }
    expect((await readdir(dir)).filter((f) => f.includes('importing'))).toEqual([]);
  });

  it.each([
    [
      'binary',
      Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00]),
      'a binary file (a NUL byte at offset 3; gzip: gunzip it first)',
    ],
    ['empty', Buffer.alloc(0), 'empty file, no log records'],
    ['text', Buffer.from('hello\nworld\n'), 'no readable log records (2 line(s) are not log records'],
  ])('refuses a %s file, naming it, and writes nothing', async (name, bytes, want) => {
    const queue = testQueueName();
    const file = join(dir, `${name}.jsonl`);
    await writeFile(file, bytes);
    const run = await fleetqImport(queue, '--file', file, '--skip-bad');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`fleetq: ${file}: ${want}`);
    expect(await redis.keys(`fleetq:{fleetq:${queue}*`)).toEqual([]);
  });
});
