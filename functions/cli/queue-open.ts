// What the queue commands (status, dlq, describe) share: the configuration from their flags, and the queue opened
// the way a one-shot command needs it. The redis driver's queue runs on a connectFailFast client: one attempt,
// no reconnecting, so `fleetq dlq list` against a Redis that is down fails in seconds with
// `cannot reach Redis at redis://host:port (ECONNREFUSED): start it or set REDIS_URL` instead of waiting forever
// while ioredis logs its reconnects. (createQueue's redis queue reconnects without end: right for a worker,
// which must outlive a Redis restart.)
import { connectFailFast } from '../../shared/queue/redis/redis-connection.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { signingOptions, type FleetqConfig } from '../../shared/runtime/config.js';
import { configFromFlags } from './common.js';
/** -o yaml of text from Redis or a cluster (shared/ops/terminal-text.ts). */
export { inertYaml } from '../../shared/ops/terminal-text.js';

export type QueueFlags = { readonly driver?: string; readonly queue?: string; readonly registry?: string };

/** The configuration with --driver, --queue and --registry over FLEETQ_DRIVER, FLEETQ_QUEUE, FLEETQ_REGISTRY. */
export function queueCommandConfig(flags: QueueFlags): Promise<FleetqConfig> {
  return configFromFlags(flags, { driver: 'FLEETQ_DRIVER', queue: 'FLEETQ_QUEUE', registry: 'FLEETQ_REGISTRY' });
}

export type OpenQueue = { readonly queue: WorkQueue; close(): Promise<void> };

/**
 * The configured queue; the redis driver's on a client that fails fast (see the header), built here with the
 * options runtime/deps.ts queueConfig gives a worker's (name, prefix, lease, signing; a command reads and
 * redrives, so no concurrency caps), without loading the runtime: a command starts in a fraction of the time.
 */
export async function openQueue(config: FleetqConfig): Promise<OpenQueue> {
  if (config.FLEETQ_DRIVER !== 'redis') {
    const [{ createQueue }, { queueConfig }] = await Promise.all([
      import('../../shared/queue/index.js'),
      import('../../shared/runtime/deps.js'),
    ]);
    const queue = await createQueue(queueConfig(config));
    return { queue, close: () => queue.close() };
  }
  const redis = await connectFailFast(config);
  const queue = new RedisQueue({
    name: config.FLEETQ_QUEUE,
    prefix: config.FLEETQ_REDIS_PREFIX,
    leaseMs: config.FLEETQ_LEASE_MS,
    ...signingOptions(config),
    redis,
  });
  return {
    queue,
    close: async () => {
      await queue.close();
      redis.disconnect();
    },
  };
}
