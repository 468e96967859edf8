// Queue throughput and latency, per driver. Prints figures; asserts nothing.
//   npx tsx test/bench/queue-throughput.ts [--runs 3] [--drivers memory,redis,sqs]
// Throughput: N distinct keys preloaded, then 1/2/4 worker processes with a no-op reconcile
// (get → done) drain them; keys/s = N / time until depth() is 0. Median of --runs runs.
// Latency: 1 idle worker, keys added one every 5 ms (far from saturation); add call → get returned.
// The memory driver cannot be shared across processes, so its "workers" are async loops in this process.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { createQueue, type QueueConfig } from '../../shared/queue/index.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { deleteQueueKeys, redisKeyPrefix } from '../../shared/queue/redis/redis-keys.js';
import { ensureSqsQueues, sqsQueueNames, deleteSqsQueues } from '../../shared/queue/sqs/sqs-setup.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { redisClient, REDIS_URL, testQueueName } from '../helpers/redis.js';
import { sqsClient, startSqsEmulator } from '../helpers/sqs.js';
import { spawnWorkers } from '../helpers/queue-workers.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, drivers: { type: 'string', default: 'memory,redis,sqs' } },
});
const RUNS = Number(values.runs);
const WORKER_COUNTS = [1, 2, 4];
const KEYS: Record<string, number> = { memory: 50_000, redis: 20_000, sqs: 1_000 };
const keysFor = (t: Target): number => KEYS[t.label.split(' ')[0] as string] as number;
const key = (i: number): ReconcileKey => ({
  cluster: `c${i % 8}`,
  kind: 'Deployment',
  namespace: 'bench',
  name: `d${i}`,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number;

async function preload(queue: WorkQueue, n: number): Promise<void> {
  for (let i = 0; i < n; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, n - i) }, (_, j) => queue.add(key(i + j))));
  }
}

async function drained(queue: WorkQueue): Promise<void> {
  while ((await queue.depth()) > 0) await sleep(5);
}

async function inProcessWorkers(queue: WorkQueue, count: number, onStart?: (id: string) => void) {
  let stopping = false;
  const loops = Array.from({ length: count }, async () => {
    while (!stopping) {
      const lease = await queue.get(50);
      if (!lease) continue;
      onStart?.(lease.id);
      await queue.done(lease);
    }
  });
  return async () => {
    stopping = true;
    await Promise.all(loops);
  };
}

type Target = {
  label: string;
  /** Concurrent get→done loops per worker process. */
  concurrency: number;
  config: () => Promise<QueueConfig>;
  cleanup: (c: QueueConfig) => Promise<void>;
};

async function throughput(target: Target, workers: number): Promise<number> {
  const config = await target.config();
  const n = keysFor(target);
  const queue = config.driver === 'memory' ? new MemoryQueue() : await createQueue(config);
  try {
    await preload(queue, n);
    if (config.driver === 'memory') {
      const start = performance.now();
      const stop = await inProcessWorkers(queue, workers * target.concurrency);
      await drained(queue);
      const ms = performance.now() - start;
      await stop();
      return n / (ms / 1000);
    }
    const procs = await spawnWorkers(workers, () => ({
      queue: config,
      waitForGo: true,
      concurrency: target.concurrency,
    }));
    const start = performance.now();
    procs.go();
    await drained(queue);
    const ms = performance.now() - start;
    await procs.stop();
    return n / (ms / 1000);
  } finally {
    await queue.close();
    await target.cleanup(config);
  }
}

async function latency(target: Target, dir: string): Promise<number[]> {
  const config = await target.config();
  const queue = config.driver === 'memory' ? new MemoryQueue() : await createQueue(config);
  const added = new Map<string, number>();
  const started = new Map<string, number>();
  const out = join(dir, `${target.label.replace(/\W/g, '-')}-latency.jsonl`);
  const stop =
    config.driver === 'memory'
      ? await inProcessWorkers(queue, 1, (id) => started.set(id, Date.now()))
      : await spawnWorkers(1, () => ({ queue: config, out })).then((w) => () => w.stop());
  try {
    for (let i = 0; i < 300; i++) {
      const k = key(i);
      added.set(`${k.cluster}/${k.kind}/${k.namespace}/${k.name}`, Date.now());
      await queue.add(k);
      await sleep(5);
    }
    await drained(queue);
    await sleep(300);
  } finally {
    await stop();
    await queue.close();
    await target.cleanup(config);
  }
  if (existsSync(out)) {
    for (const line of readFileSync(out, 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as { id: string; start: number };
      started.set(r.id, r.start);
    }
  }
  return [...added].flatMap(([id, at]) => (started.has(id) ? [(started.get(id) as number) - at] : []));
}

const emulator = await startSqsEmulator();
const sqs = sqsClient(emulator.endpoint);
const redis = redisClient();
const redisTarget = (label: string, concurrency: number, prefetch?: number): Target => ({
  label,
  concurrency,
  config: async () => ({
    driver: 'redis',
    name: testQueueName(),
    redisUrl: REDIS_URL,
    ...(prefetch ? { prefetch } : {}),
  }),
  cleanup: async (c) => void (await deleteQueueKeys(redis, redisKeyPrefix(c.name ?? ''))),
});
const allTargets: Target[] = [
  { label: 'memory', concurrency: 1, config: async () => ({ driver: 'memory' }), cleanup: async () => {} },
  redisTarget('redis', 1),
  redisTarget('redis prefetch 8', 1, 8),
  redisTarget('redis 8 loops/process', 8),
  {
    label: 'sqs',
    concurrency: 1,
    config: async () => {
      const name = testQueueName();
      return {
        driver: 'sqs',
        name,
        endpoint: emulator.endpoint,
        queueUrls: await ensureSqsQueues(sqs, sqsQueueNames(name)),
      };
    },
    cleanup: async (c) => {
      if (c.driver === 'sqs' && c.queueUrls) await deleteSqsQueues(sqs, c.queueUrls);
    },
  },
];
const targets = allTargets.filter((t) => (values.drivers ?? '').split(',').includes(t.label.split(' ')[0] as string));

const dir = mkdtempSync(join(tmpdir(), 'fleetq-queue-bench-'));
const rows: string[][] = [];
for (const target of targets) {
  const row = [target.label, String(keysFor(target))];
  for (const workers of WORKER_COUNTS) {
    const runs: number[] = [];
    for (let r = 0; r < RUNS; r++) runs.push(await throughput(target, workers));
    row.push(`${Math.round(median(runs))} (${runs.map((x) => Math.round(x)).join('/')})`);
  }
  const lat = await latency(target, dir);
  row.push(`${pct(lat, 0.5)} / ${pct(lat, 0.99)} (n=${lat.length})`);
  rows.push(row);
  console.log(JSON.stringify({ driver: target.label, row }));
}
rmSync(dir, { recursive: true, force: true });

const header = ['driver', 'keys', '1 worker keys/s', '2 workers keys/s', '4 workers keys/s', 'add→get ms p50 / p99'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ');
console.log(`\nqueue throughput, no-op reconcile, median of ${RUNS} runs (each run in parentheses)\n`);
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
for (const row of rows) console.log(line(row));
await redis.quit();
sqs.destroy();
await emulator.stop();
