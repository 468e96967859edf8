// A worker process for the queue property test and the throughput bench:
//   FLEETQ_QUEUE_WORKER='{"queue": <QueueConfig>, "out": "/tmp/x.jsonl", "maxWorkMs": 5}' node --import tsx <this file>
// `concurrency` runs that many loops in the process (a worker's MaxConcurrentReconciles).
// With waitForGo it starts looping only when a line arrives on stdin.
// Loops get → record start → random short work (up to maxWorkMs; exactly workMs when given) → record end →
// done (thenGet while running, as loop.ts does), appending {id, token, start, end} JSON lines to `out` (when given). Prints "ready" once connected,
// {"progress": n} lines as keys are done (at most every 20 ms); on SIGTERM it finishes the current key,
// prints {"handled": n} and exits.
import { appendFileSync } from 'node:fs';
import { createQueue } from '../../../shared/queue/index.js';
import type { WorkerOptions } from './workers.js';

const config = JSON.parse(process.env.FLEETQ_QUEUE_WORKER ?? '') as WorkerOptions;
const queue = await createQueue(config.queue);
let stopping = false;
let handled = 0;
process.on('SIGTERM', () => {
  stopping = true;
});
process.stdout.write('ready\n');
if (config.waitForGo) {
  // The parent writes one line to start every worker at once (bench timing).
  await new Promise((resolve) => process.stdin.once('data', resolve));
}

let reported = -1;
const progress = setInterval(() => {
  if (handled === reported) return;
  reported = handled;
  process.stdout.write(JSON.stringify({ progress: handled }) + '\n');
}, 20);

async function loop(): Promise<void> {
  while (!stopping) {
    const lease = await queue.get(200);
    if (!lease) continue;
    const start = Date.now();
    const workMs = config.workMs ?? (config.maxWorkMs ? Math.random() * config.maxWorkMs : 0);
    if (workMs >= 1) await new Promise((resolve) => setTimeout(resolve, workMs));
    const end = Date.now();
    // The record is written before done(): once done returns, another process may start this key.
    if (config.out) appendFileSync(config.out, JSON.stringify({ id: lease.id, token: lease.token, start, end }) + '\n');
    // As a worker slot does (loop.ts): the next key may come back with the release.
    await queue.done(lease, undefined, { thenGet: !stopping });
    handled++;
  }
}
await Promise.all(Array.from({ length: config.concurrency ?? 1 }, loop));
clearInterval(progress);
await queue.close();
process.stdout.write(JSON.stringify({ handled }) + '\n');
process.exit(0);
