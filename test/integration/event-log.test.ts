// The event log drivers on real Redis and a real filesystem: order, time-window reads, and retention.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trimObject, type EventLog, type LoggedEvent } from '../../shared/queue/history/event-log.js';
import { JsonlEventLog, segmentName } from '../../shared/queue/history/jsonl-event-log.js';
import { RedisStreamEventLog } from '../../shared/queue/history/redis-stream-event-log.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { redisClient } from '../helpers/queue/redis.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);

function event(i: number, observedAt: number, cluster = 'c1'): LoggedEvent {
  return { type: 'ADDED', cluster, resource: 'pods', observedAt, object: { metadata: { name: `p${i}` } } };
}

async function readAll(log: EventLog, cluster: string, from = 0, to = Number.MAX_SAFE_INTEGER): Promise<string[]> {
  const names: string[] = [];
  for await (const e of log.read(cluster, from, to))
    names.push((e.object as { metadata: { name: string } }).metadata.name);
  return names;
}

describe('RedisStreamEventLog', () => {
  const redis = redisClient();
  let prefix: string;
  beforeEach(() => {
    prefix = `test-${randomUUID()}`;
  });
  afterEach(async () => {
    const keys = await redis.keys(`fleetq:{${prefix}}:*`);
    if (keys.length > 0) await redis.del(...keys);
  });
  afterAll(async () => redis.quit());

  it('appends in order per cluster and reads them back, past one read batch', async () => {
    const log = new RedisStreamEventLog({ redis, prefix, maxLen: 0 });
    const events = Array.from({ length: 1_203 }, (_, i) => event(i, Date.now()));
    await log.append('c1', events);
    await log.append('c2', [event(9_999, Date.now(), 'c2')]);
    expect(await readAll(log, 'c1')).toEqual(events.map((_, i) => `p${i}`));
    expect(await readAll(log, 'c2')).toEqual(['p9999']);
    expect(await redis.exists(`fleetq:{${prefix}}:events:c1`)).toBe(1);
  });

  it('keeps at most maxLen entries (exact trim), the newest', async () => {
    const log = new RedisStreamEventLog({ redis, prefix, maxLen: 5, trim: 'exact' });
    for (let i = 0; i < 12; i++) await log.append('c1', [event(i, Date.now())]);
    expect(await log.length('c1')).toBe(5);
    expect(await readAll(log, 'c1')).toEqual(['p7', 'p8', 'p9', 'p10', 'p11']);
  });

  it('keeps about maxLen entries with approximate trim', async () => {
    const log = new RedisStreamEventLog({ redis, prefix, maxLen: 100 });
    await log.append(
      'c1',
      Array.from({ length: 1_000 }, (_, i) => event(i, Date.now())),
    );
    const length = await log.length('c1');
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThan(300);
  });

  it('drops entries older than maxAgeMs', async () => {
    const maxAgeMs = HOUR;
    const early = new RedisStreamEventLog({ redis, prefix, maxLen: 0 });
    await early.append('c1', [event(0, Date.now()), event(1, Date.now())]);
    const [lastId] = (await redis.xrevrange(early.key('c1'), '+', '-', 'COUNT', 1))[0] ?? [''];
    const cutoff = Number(lastId.split('-')[0]) + 1;
    // Entries appended from `cutoff` on are younger than maxAgeMs at now = cutoff + maxAgeMs; earlier ones are older.
    const log = new RedisStreamEventLog({
      redis,
      prefix,
      maxLen: 0,
      maxAgeMs,
      trim: 'exact',
      now: () => cutoff + maxAgeMs,
    });
    const redisNowMs = async (): Promise<number> => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    await waitFor(async () => (await redisNowMs()) > cutoff, 5_000, 1, 'the Redis clock to pass the cutoff');
    await log.append('c1', [event(2, Date.now())]);
    expect(await readAll(log, 'c1')).toEqual(['p2']);
  });
});

describe('JsonlEventLog', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleetq-jsonl-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('writes one segment per hour and reads a time window across segments, in order', async () => {
    const log = new JsonlEventLog({ dir, now: () => T0 + 3 * HOUR });
    await log.append('c1', [
      event(0, T0 + 10),
      event(1, T0 + HOUR - 1),
      event(2, T0 + HOUR),
      event(3, T0 + 2 * HOUR + 5),
    ]);
    expect((await readdir(join(dir, 'c1'))).sort()).toEqual([
      segmentName(T0),
      segmentName(T0 + HOUR),
      segmentName(T0 + 2 * HOUR),
    ]);
    expect(segmentName(T0)).toBe('20260101T000000Z.jsonl');
    expect(await readAll(log, 'c1')).toEqual(['p0', 'p1', 'p2', 'p3']);
    expect(await readAll(log, 'c1', T0 + HOUR - 1, T0 + HOUR)).toEqual(['p1', 'p2']);
    expect(await readAll(log, 'c2')).toEqual([]);
  });

  it('keeps at most maxSegments segments, deleting the oldest', async () => {
    const log = new JsonlEventLog({ dir, maxSegments: 3, now: () => T0 + 10 * HOUR });
    for (let h = 0; h < 6; h++) await log.append('c1', [event(h, T0 + h * HOUR)]);
    expect((await log.segments('c1')).map((s) => s.file)).toEqual([3, 4, 5].map((h) => segmentName(T0 + h * HOUR)));
    expect(await readAll(log, 'c1')).toEqual(['p3', 'p4', 'p5']);
  });

  it('deletes segments that ended more than maxAgeMs ago', async () => {
    let now = T0;
    const log = new JsonlEventLog({ dir, maxSegments: 0, maxAgeMs: 2 * HOUR, now: () => now });
    for (let h = 0; h < 5; h++) {
      now = T0 + h * HOUR;
      await log.append('c1', [event(h, now)]);
    }
    // At T0+4h, segments ending at or before T0+2h (hours 0 and 1) are gone.
    expect(await readAll(log, 'c1')).toEqual(['p2', 'p3', 'p4']);
  });

  it('keeps lines whole when appends race', async () => {
    const log = new JsonlEventLog({ dir, now: () => T0 });
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append('c1', [event(i, T0 + i)])));
    expect(await readAll(log, 'c1')).toEqual(Array.from({ length: 50 }, (_, i) => `p${i}`));
  });
});

describe('trimObject', () => {
  it('removes metadata.managedFields and nothing else, without touching the input', () => {
    const object = { kind: 'Pod', metadata: { name: 'p', managedFields: [{ manager: 'x' }] }, spec: { a: 1 } };
    expect(trimObject(object)).toEqual({ kind: 'Pod', metadata: { name: 'p' }, spec: { a: 1 } });
    expect(object.metadata.managedFields).toHaveLength(1);
  });
});
