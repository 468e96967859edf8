// Queue throughput and latency, per driver, with raw BullMQ measured in the same run as the reference for the
// Redis driver. Prints figures; asserts nothing.
//   npx tsx test/bench/queue-throughput.ts [--runs 3] [--drivers memory,redis,sqs,bullmq] [--work-ms 0,5]
// Throughput: N distinct keys preloaded, then 1/2/4 worker processes drain them, each with a handler that
// returns at once (work 0) or sleeps `work` ms; keys/s = N / time from "go" until every key is done, as the
// workers count them (their own progress lines). The worker processes are started and connected before
// the clock starts: process start-up is not queue time. Median of --runs runs.
// BullMQ: no-op jobs added with `deduplication: {id, keepLastIfActive}` (its closest model of a work queue
// key: one waiting and one active per id), `removeOnComplete`; a Worker with the same concurrency as
// fleetq's "8 loops/process" row. The closing table gives fleetq redis ÷ BullMQ at each worker count.
// Latency: 1 idle worker, keys added one every 5 ms (far from saturation); add call → handler started.
// The memory driver cannot be shared across processes, so its "workers" are async loops in this process.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue as BullQueue } from 'bullmq';
import { Redis } from 'ioredis';
import type { ReconcileKey } from '../../shared/kube/key.js';
import { createQueue, type QueueConfig } from '../../shared/queue/index.js';
import { MemoryQueue } from '../../shared/queue/memory/memory-queue.js';
import { deleteQueueKeys, redisKeyPrefix } from '../../shared/queue/redis/redis-keys.js';
import { ensureSqsQueues, sqsQueueNames, deleteSqsQueues } from '../../shared/queue/sqs/sqs-setup.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { redisClient, REDIS_URL, testQueueName } from '../helpers/queue/redis.js';
import { sqsClient, startSqsEmulator } from '../helpers/queue/sqs.js';
import { spawnBullmqWorkers, spawnWorkers, type Workers } from '../helpers/queue/workers.js';
import { median, percentile } from '../helpers/stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    drivers: { type: 'string', default: 'memory,redis,sqs,bullmq' },
    'work-ms': { type: 'string', default: '0,5' },
  },
});
const RUNS = Number(values.runs);
const WORK_MS = (values['work-ms'] ?? '0').split(',').map(Number);
const WORKER_COUNTS = [1, 2, 4];
const MATCHED_CONCURRENCY = 8;
const KEYS: Record<string, number> = { memory: 50_000, redis: 20_000, bullmq: 20_000, sqs: 1_000 };
const driverOf = (t: Target): string => t.label.split(' ')[0] as string;
/** With a sleeping handler fewer keys give the same precision: 8 loops × 4 processes at 5 ms are 6,400 keys/s. */
const keysFor = (t: Target, workMs: number): number =>
  workMs > 0 ? Math.min(KEYS[driverOf(t)] as number, 3_000) : (KEYS[driverOf(t)] as number);
const key = (i: number): ReconcileKey => ({
  cluster: `c${i % 8}`,
  kind: 'Deployment',
  namespace: 'bench',
  name: `d${i}`,
});
const keyId = (k: ReconcileKey): string => `${k.cluster}/${k.kind}/${k.namespace}/${k.name}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One queue under test: fleetq's WorkQueue, or a raw BullMQ queue with the same operations the bench uses. */
type Subject = {
  add(k: ReconcileKey): Promise<void>;
  addMany(ks: ReconcileKey[]): Promise<void>;
  workers(count: number, o: { workMs: number; waitForGo: boolean; out?: string }): Promise<Workers>;
  close(): Promise<void>;
};

type Target = {
  label: string;
  /** Concurrent handlers per worker process. */
  concurrency: number;
  open(): Promise<Subject>;
};

function fleetqSubject(queue: WorkQueue, config: QueueConfig, concurrency: number, cleanup: () => Promise<void>) {
  return {
    add: async (k: ReconcileKey) => void (await queue.add(k)),
    addMany: async (ks: ReconcileKey[]) => void (await Promise.all(ks.map((k) => queue.add(k)))),
    workers: (count: number, o: { workMs: number; waitForGo: boolean; out?: string }) =>
      config.driver === 'memory'
        ? inProcessWorkers(queue, count * concurrency, o.workMs, o.out)
        : spawnWorkers(count, () => ({ queue: config, concurrency, ...o })),
    close: async () => {
      await queue.close();
      await cleanup();
    },
  } satisfies Subject;
}

/** The memory driver's "workers": loops in this process (it is not shared across processes). */
async function inProcessWorkers(queue: WorkQueue, loops: number, workMs: number, out?: string): Promise<Workers> {
  let stopping = false;
  let handled = 0;
  let go: () => void = () => {};
  const started = new Promise<void>((resolve) => (go = resolve));
  const running = Array.from({ length: loops }, async () => {
    await started;
    while (!stopping) {
      const lease = await queue.get(50);
      if (!lease) continue;
      if (out) startedAt.set(lease.id, Date.now());
      if (workMs > 0) await sleep(workMs);
      await queue.done(lease);
      handled++;
    }
  });
  return {
    go,
    handled: () => handled,
    async stop() {
      stopping = true;
      go();
      await Promise.all(running);
      return [handled];
    },
  };
}
const startedAt = new Map<string, number>();

async function bullmqSubject(concurrency: number): Promise<Subject> {
  const name = testQueueName();
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new BullQueue(name, { connection });
  const job = (k: ReconcileKey) => ({
    name: 'reconcile',
    data: { id: keyId(k) },
    opts: { deduplication: { id: keyId(k), keepLastIfActive: true }, removeOnComplete: true, removeOnFail: true },
  });
  return {
    add: async (k) => void (await queue.add(job(k).name, job(k).data, job(k).opts)),
    addMany: async (ks) => void (await queue.addBulk(ks.map(job))),
    workers: (count, o) => spawnBullmqWorkers(count, () => ({ queue: name, redisUrl: REDIS_URL, concurrency, ...o })),
    close: async () => {
      await queue.obliterate({ force: true });
      await queue.close();
      await connection.quit();
    },
  };
}

async function preload(subject: Subject, n: number): Promise<void> {
  for (let i = 0; i < n; i += 200) {
    await subject.addMany(Array.from({ length: Math.min(200, n - i) }, (_, j) => key(i + j)));
  }
}

async function throughput(target: Target, workers: number, workMs: number): Promise<number> {
  const subject = await target.open();
  const n = keysFor(target, workMs);
  try {
    await preload(subject, n);
    const procs = await subject.workers(workers, { workMs, waitForGo: true });
    const start = performance.now();
    procs.go();
    while (procs.handled() < n) await sleep(5);
    const ms = performance.now() - start;
    await procs.stop();
    return n / (ms / 1000);
  } finally {
    await subject.close();
  }
}

async function latency(target: Target, dir: string): Promise<number[]> {
  const subject = await target.open();
  const added = new Map<string, number>();
  const out = join(dir, `${target.label.replace(/\W/g, '-')}-latency.jsonl`);
  startedAt.clear();
  const procs = await subject.workers(1, { workMs: 0, waitForGo: false, out });
  procs.go();
  try {
    for (let i = 0; i < 300; i++) {
      const k = key(i);
      added.set(keyId(k), Date.now());
      await subject.add(k);
      await sleep(5);
    }
    const deadline = Date.now() + 30_000;
    while (procs.handled() < 300 && Date.now() < deadline) await sleep(5);
  } finally {
    await procs.stop();
    await subject.close();
  }
  if (existsSync(out)) {
    for (const line of readFileSync(out, 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as { id: string; start: number };
      startedAt.set(r.id, r.start);
    }
  }
  return [...added].flatMap(([id, at]) => (startedAt.has(id) ? [(startedAt.get(id) as number) - at] : []));
}

const emulator = await startSqsEmulator();
const sqs = sqsClient(emulator.endpoint);
const redis = redisClient();
const redisTarget = (label: string, concurrency: number, prefetch?: number): Target => ({
  label,
  concurrency,
  open: async () => {
    const config: QueueConfig = {
      driver: 'redis',
      name: testQueueName(),
      redisUrl: REDIS_URL,
      ...(prefetch ? { prefetch } : {}),
    };
    const cleanup = async () => void (await deleteQueueKeys(redis, redisKeyPrefix(config.name ?? '')));
    return fleetqSubject(await createQueue(config), config, concurrency, cleanup);
  },
});
const FLEETQ_MATCHED = `redis ${MATCHED_CONCURRENCY} loops/process`;
const BULLMQ_MATCHED = `bullmq concurrency ${MATCHED_CONCURRENCY}`;
const allTargets: Target[] = [
  {
    label: 'memory',
    concurrency: 1,
    open: async () => fleetqSubject(new MemoryQueue(), { driver: 'memory' }, 1, async () => {}),
  },
  redisTarget('redis', 1),
  redisTarget('redis prefetch 8', 1, 8),
  redisTarget(FLEETQ_MATCHED, MATCHED_CONCURRENCY),
  { label: BULLMQ_MATCHED, concurrency: MATCHED_CONCURRENCY, open: () => bullmqSubject(MATCHED_CONCURRENCY) },
  {
    label: 'sqs',
    concurrency: 1,
    open: async () => {
      const name = testQueueName();
      const config: QueueConfig = {
        driver: 'sqs',
        name,
        endpoint: emulator.endpoint,
        queueUrls: await ensureSqsQueues(sqs, sqsQueueNames(name)),
      };
      const urls = config.queueUrls;
      return fleetqSubject(await createQueue(config), config, 1, async () => {
        if (urls) await deleteSqsQueues(sqs, urls);
      });
    },
  },
];
const targets = allTargets.filter((t) => (values.drivers ?? '').split(',').includes(driverOf(t)));

const dir = mkdtempSync(join(tmpdir(), 'fleetq-queue-bench-'));
const tables: Array<{ workMs: number; rows: string[][]; medians: Map<string, number[]> }> = [];
for (const workMs of WORK_MS) {
  const rows: string[][] = [];
  const medians = new Map<string, number[]>();
  // A sleeping handler is there to show scaling when the handler, not Redis, is the bottleneck: the two
  // matched rows (fleetq's 8 loops per process and BullMQ's concurrency 8) are enough.
  for (const target of workMs > 0 ? targets.filter((t) => t.concurrency === MATCHED_CONCURRENCY) : targets) {
    const row = [target.label, String(keysFor(target, workMs))];
    const perCount: number[] = [];
    for (const workers of WORKER_COUNTS) {
      const runs: number[] = [];
      for (let r = 0; r < RUNS; r++) runs.push(await throughput(target, workers, workMs));
      const mid = median(runs) ?? NaN;
      perCount.push(mid);
      row.push(`${Math.round(mid)} (${runs.map((x) => Math.round(x)).join('/')})`);
    }
    medians.set(target.label, perCount);
    if (workMs === 0) {
      const lat = await latency(target, dir);
      row.push(`${percentile(lat, 0.5)} / ${percentile(lat, 0.99)} (n=${lat.length})`);
    }
    rows.push(row);
    console.log(JSON.stringify({ workMs, driver: target.label, row }));
  }
  tables.push({ workMs, rows, medians });
}
rmSync(dir, { recursive: true, force: true });

function print(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(line(row));
}
const counts = WORKER_COUNTS.map((w) => `${w} worker${w > 1 ? 's' : ''} keys/s`);
for (const { workMs, rows, medians } of tables) {
  const handler = workMs > 0 ? `a handler that sleeps ${workMs} ms` : 'no-op handler';
  console.log(`\nqueue throughput, ${handler}, median of ${RUNS} runs (each run in parentheses)\n`);
  print(['driver', 'keys', ...counts, ...(workMs === 0 ? ['add→start ms p50 / p99'] : [])], rows);
  const ours = medians.get(FLEETQ_MATCHED);
  const theirs = medians.get(BULLMQ_MATCHED);
  if (ours && theirs) {
    console.log(`\nfleetq redis ÷ raw BullMQ, ${MATCHED_CONCURRENCY} concurrent handlers per process, ${handler}:`);
    print(
      ['workers', 'fleetq keys/s', 'BullMQ keys/s', 'ratio'],
      WORKER_COUNTS.map((w, i) => [
        String(w),
        String(Math.round(ours[i] as number)),
        String(Math.round(theirs[i] as number)),
        ((ours[i] as number) / (theirs[i] as number)).toFixed(2),
      ]),
    );
  }
}
await redis.quit();
sqs.destroy();
await emulator.stop();
