// `fleetq worker` (and functions/worker.ts): takes keys from the queue (redis or sqs) and reconciles them with the
// same reconcile-one as every handler. SIGTERM/SIGINT: stop taking keys, finish the ones in flight, release the
// queue, return (the command exits 0).
import { configFromFlags } from './common.js';
import { PROCESS_FLAGS, type ProcessFlags } from './process-flags.js';

export async function worker(flags: ProcessFlags): Promise<void> {
  const config = await configFromFlags(flags, PROCESS_FLAGS);
  const { closeDeps, makeDeps } = await import('../../shared/runtime/deps.js');
  const { WorkerLoop } = await import('../../shared/runtime/loop.js');
  const { serveMetrics } = await import('../../shared/runtime/metrics.js');
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
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  deps.logger.info('Worker stopping', { signal, inFlight: loop.busy });
  await loop.stop();
  await closeDeps(deps);
  server?.close();
  deps.logger.info('Worker stopped', { signal });
}
