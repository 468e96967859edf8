// Property test of the queue contract under real concurrency. For the redis and sqs drivers, 3 worker child processes
// (test/helpers/queue/property-worker.ts) loop get → record start → random work (≤ 5 ms) → record end → done,
// while this process adds 2000 overlapping adds over 20 keys and records when each add was called.
// The memory driver cannot be shared between processes, so it runs 3 concurrent async workers in this one.
// All processes share one machine clock (Date.now()), so intervals and add times are comparable.
// Asserted: (1) no two intervals of one key overlap; (2) every add at time t is followed by a reconcile of
// that key starting at or after t (no lost update); (3) so every key added was reconciled (no starvation).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { createQueue, type QueueConfig } from '../../shared/queue/index.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { deleteQueueKeys, redisKeyPrefix } from '../../shared/queue/redis/redis-keys.js';
import { deleteSqsQueues, ensureSqsQueues, sqsQueueNames } from '../../shared/queue/sqs/sqs-setup.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { redisClient, REDIS_URL, testQueueName } from '../helpers/queue/redis.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from '../helpers/queue/sqs.js';
import { spawnWorkers } from '../helpers/queue/workers.js';

jest.setTimeout(120_000);

type Interval = { id: string; token: string; start: number; end: number };
const KEYS = 20;
const ADDS = 2000;
const WORKERS = 3;
const OPTIONS = { leaseMs: 10_000 };
const keyOf = (i: number): ReconcileKey => ({
  cluster: `c${i % 3}`,
  kind: 'Deployment',
  namespace: 'ns',
  name: `d${i}`,
});

/** 2000 adds over 20 keys from 4 concurrent chains, yielding now and then so adds interleave with work. */
async function addOverlapping(queue: WorkQueue): Promise<Map<string, number[]>> {
  const addTimes = new Map<string, number[]>();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let n = 0; n < ADDS / 4; n++) {
        const key = keyOf(Math.floor(Math.random() * KEYS));
        const id = `${key.cluster}/${key.kind}/${key.namespace}/${key.name}`;
        const at = Date.now();
        await queue.add(key);
        addTimes.set(id, [...(addTimes.get(id) ?? []), at]);
        if (n % 25 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }),
  );
  return addTimes;
}

function uncovered(addTimes: Map<string, number[]>, intervals: Interval[]): string[] {
  const lastStart = new Map<string, number>();
  for (const i of intervals) lastStart.set(i.id, Math.max(lastStart.get(i.id) ?? 0, i.start));
  return [...addTimes].filter(([id, times]) => (lastStart.get(id) ?? -1) < Math.max(...times)).map(([id]) => id);
}

function overlaps(intervals: Interval[]): Array<[Interval, Interval]> {
  const byKey = new Map<string, Interval[]>();
  for (const i of intervals) byKey.set(i.id, [...(byKey.get(i.id) ?? []), i]);
  const found: Array<[Interval, Interval]> = [];
  for (const list of byKey.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let k = 1; k < list.length; k++) {
      const [prev, next] = [list[k - 1] as Interval, list[k] as Interval];
      if (next.start < prev.end) found.push([prev, next]);
    }
  }
  return found;
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}

function assertProperties(addTimes: Map<string, number[]>, intervals: Interval[]): void {
  expect(overlaps(intervals)).toEqual([]);
  expect(uncovered(addTimes, intervals)).toEqual([]);
  expect(new Set(intervals.map((i) => i.id))).toEqual(new Set(addTimes.keys()));
  // Dedup works: far fewer reconciles than adds.
  expect(intervals.length).toBeLessThan(ADDS);
}

describe('WorkQueue properties under concurrent workers', () => {
  let emulator: SqsEmulator;
  let dir: string;
  beforeAll(async () => {
    emulator = await startSqsEmulator();
    dir = mkdtempSync(join(tmpdir(), 'fleetq-queue-property-'));
  });
  afterAll(async () => {
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('memory (3 async workers in one process)', async () => {
    const queue = new MemoryQueue(OPTIONS);
    const intervals: Interval[] = [];
    let stopping = false;
    const workers = Array.from({ length: WORKERS }, async () => {
      while (!stopping) {
        const lease = await queue.get(50);
        if (!lease) continue;
        const start = Date.now();
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
        intervals.push({ id: lease.id, token: lease.token, start, end: Date.now() });
        await queue.done(lease);
      }
    });
    const addTimes = await addOverlapping(queue);
    await until(() => uncovered(addTimes, intervals).length === 0, 30_000);
    stopping = true;
    await Promise.all(workers);
    await queue.close();
    assertProperties(addTimes, intervals);
  });

  it.each(['redis', 'sqs'] as const)('%s (3 worker processes)', async (driver) => {
    const name = testQueueName();
    const client = sqsClient(emulator.endpoint);
    const queueConfig: QueueConfig =
      driver === 'redis'
        ? { driver, name, redisUrl: REDIS_URL, options: OPTIONS }
        : {
            driver,
            name,
            endpoint: emulator.endpoint,
            queueUrls: await ensureSqsQueues(client, sqsQueueNames(name)),
            options: OPTIONS,
          };
    const outs = Array.from({ length: WORKERS }, (_, i) => join(dir, `${driver}-${i}.jsonl`));
    const workers = await spawnWorkers(WORKERS, (i) => ({ queue: queueConfig, out: outs[i] as string, maxWorkMs: 5 }));
    const queue = await createQueue(queueConfig);
    const read = (): Interval[] =>
      outs.flatMap((f) =>
        existsSync(f)
          ? readFileSync(f, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Interval)
          : [],
      );
    try {
      const addTimes = await addOverlapping(queue);
      await until(() => uncovered(addTimes, read()).length === 0, 60_000);
      const handled = await workers.stop();
      expect(handled.every((n) => n >= 0)).toBe(true);
      assertProperties(addTimes, read());
    } finally {
      await queue.close();
      if (queueConfig.driver === 'sqs' && queueConfig.queueUrls) await deleteSqsQueues(client, queueConfig.queueUrls);
      if (driver === 'redis') {
        const redis = redisClient();
        await deleteQueueKeys(redis, redisKeyPrefix(name));
        await redis.quit();
      }
      client.destroy();
    }
  });
});
