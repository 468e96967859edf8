// Long-running worker: takes keys from the queue (redis or sqs) and reconciles them.
//   FLEETQ_REGISTRY=fleet.yaml FLEETQ_DRIVER=redis FLEETQ_CONCURRENCY=8 npx tsx functions/worker.ts
// SIGTERM/SIGINT: stop taking keys, finish the ones in flight, release the queue, exit 0.
import { loadConfig } from '../shared/runtime/config.js';
import { closeDeps, makeDeps } from '../shared/runtime/deps.js';
import { WorkerLoop } from '../shared/runtime/loop.js';
import { serveMetrics } from '../shared/runtime/metrics.js';

const config = loadConfig(process.env);
const deps = await makeDeps(config, { service: 'fleetq-worker' });
const loop = new WorkerLoop(deps, {
  concurrency: config.FLEETQ_CONCURRENCY,
  renewEveryMs: Math.floor(config.FLEETQ_LEASE_MS / 3),
});
const server =
  config.FLEETQ_METRICS_PORT === undefined
    ? undefined
    : await serveMetrics(deps.metrics.registry, config.FLEETQ_METRICS_PORT, config.FLEETQ_METRICS_HOST);
loop.start();
deps.logger.info('Worker started', {
  driver: config.FLEETQ_DRIVER,
  queue: config.FLEETQ_QUEUE,
  concurrency: config.FLEETQ_CONCURRENCY,
  pid: process.pid,
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  deps.logger.info('Worker stopping', { signal, inFlight: loop.busy });
  await loop.stop();
  await closeDeps(deps);
  server?.close();
  deps.logger.info('Worker stopped', { signal });
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
