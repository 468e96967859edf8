// A raw BullMQ worker process for the queue throughput bench, the reference fleetq's Redis driver is measured
// against: same protocol as queue/property-worker.ts (test/helpers/queue/workers.ts spawns both).
//   FLEETQ_BULLMQ_WORKER='{"queue": "<name>", "redisUrl": "redis://…", "concurrency": 8, "workMs": 5, "out": "/tmp/x.jsonl"}' node --import tsx <this file>
// Prints "ready" once connected; with waitForGo starts processing only when a line arrives on stdin. Jobs are
// no-ops, or sleep workMs; with `out`, each appends {id, start} (its data's id, when it started) as a JSON line.
// Prints {"progress": n} lines as jobs complete (at most every 20 ms) and, on SIGTERM, {"handled": n} after the
// jobs in hand finish. Its options are queue/workers.ts's BullmqWorkerOptions.
import { appendFileSync } from 'node:fs';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { BullmqWorkerOptions } from '../queue/workers.js';

const config = JSON.parse(process.env.FLEETQ_BULLMQ_WORKER ?? '') as BullmqWorkerOptions;
const workMs = config.workMs ?? 0;
// BullMQ's blocking reads need maxRetriesPerRequest: null on the connection it is given.
const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
let handled = 0;
const worker = new Worker(
  config.queue,
  async (job: Job<{ id: string }>) => {
    if (config.out) appendFileSync(config.out, JSON.stringify({ id: job.data.id, start: Date.now() }) + '\n');
    if (workMs > 0) await new Promise((resolve) => setTimeout(resolve, workMs));
  },
  { connection, concurrency: config.concurrency ?? 1, autorun: false },
);
worker.on('completed', () => {
  handled++;
});
await worker.waitUntilReady();
process.stdout.write('ready\n');
if (config.waitForGo) await new Promise((resolve) => process.stdin.once('data', resolve));

let reported = -1;
const progress = setInterval(() => {
  if (handled === reported) return;
  reported = handled;
  process.stdout.write(JSON.stringify({ progress: handled }) + '\n');
}, 20);
process.on('SIGTERM', () => {
  void (async () => {
    clearInterval(progress);
    await worker.close();
    await connection.quit();
    process.stdout.write(JSON.stringify({ handled }) + '\n');
    process.exit(0);
  })();
});
void worker.run();
