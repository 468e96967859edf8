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
  // The Redis sockets are unref'd (shared/runtime/deps.ts): once the loop stops, nothing else holds the process
  // open while closing waits for their replies (the last rates flush, QUIT), and Node would end with the command's
  // promise unsettled (exit 13). A timer holds it open, for STOP_DEADLINE_MS at most.
  let deadline: NodeJS.Timeout | undefined;
  const stopped = (async () => {
    await loop.stop();
    await closeDeps(deps);
    server?.close();
    return true;
  })();
  const finished = await Promise.race([
    stopped,
    new Promise<false>((resolve) => (deadline = setTimeout(() => resolve(false), STOP_DEADLINE_MS))),
  ]);
  clearTimeout(deadline);
  if (!finished) throw new Error(`the worker did not stop within ${STOP_DEADLINE_MS / 1000} s of ${signal}`);
  deps.logger.info('Worker stopped', { signal });
}

/** How long a stopping worker may take to finish its keys in flight and close its connections. */
const STOP_DEADLINE_MS = 60_000;
