// What the queue commands (status, dlq, describe) share: the configuration from their flags, and the queue opened
// the way a one-shot command needs it. The redis driver's queue runs on a connectFailFast client: one attempt,
// no reconnecting, so `fleetq dlq list` against a Redis that is down fails in seconds with
// `cannot reach Redis at redis://host:port (ECONNREFUSED): start it or set REDIS_URL` instead of waiting forever
// while ioredis logs its reconnects. (createQueue's redis queue reconnects without end: right for a worker,
// which must outlive a Redis restart.)
import { connectFailFast } from '../../shared/queue/redis/redis-connection.js';
import { RedisQueue } from '../../shared/queue/redis/redis-queue.js';
import { shardQueueNames } from '../../shared/queue/queue-shards.js';
import { ShardedQueue } from '../../shared/queue/sharded-queue.js';
import type { WorkQueue } from '../../shared/queue/work-queue.js';
import { signingOptions, type FleetqConfig } from '../../shared/runtime/config.js';
import { configFromFlags, UsageError } from './common.js';
/** -o yaml of text from Redis or a cluster (shared/ops/terminal-text.ts). */
export { inertYaml } from '../../shared/ops/terminal-text.js';

export type QueueFlags = {
  readonly driver?: string;
  readonly queue?: string;
  readonly registry?: string;
  /** The Lambda stack's CloudFormation outputs (JSON file): its queue URLs and region, on the sqs driver. */
  readonly stackOutputs?: string;
};

/**
 * The configuration with --driver, --queue and --registry over FLEETQ_DRIVER, FLEETQ_QUEUE, FLEETQ_REGISTRY; with
 * --stack-outputs, the stack's SQS_WORK_URL, SQS_DELAY_URL, SQS_DEAD_URL and AWS_REGION over the environment's.
 */
export async function queueCommandConfig(flags: QueueFlags): Promise<FleetqConfig> {
  const flagOf = { driver: 'FLEETQ_DRIVER', queue: 'FLEETQ_QUEUE', registry: 'FLEETQ_REGISTRY' };
  if (flags.stackOutputs === undefined) return configFromFlags(flags, flagOf);
  if (flags.driver !== undefined && flags.driver !== 'sqs')
    throw new UsageError(
      `--stack-outputs names the Lambda stack's SQS queues: it goes with --driver sqs, not ${flags.driver}`,
    );
  const [{ readFile }, { stackQueueEnv, StackOutputsError }] = await Promise.all([
    import('node:fs/promises'),
    import('../../shared/queue/sqs/sqs-stack-outputs.js'),
  ]);
  let env;
  try {
    env = stackQueueEnv(await readFile(flags.stackOutputs, 'utf8'));
  } catch (err) {
    if (!(err instanceof StackOutputsError) && (err as NodeJS.ErrnoException).code === undefined) throw err;
    throw new UsageError(`--stack-outputs ${flags.stackOutputs}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return configFromFlags(
    {
      ...flags,
      driver: 'sqs',
      work: env.SQS_WORK_URL,
      delay: env.SQS_DELAY_URL,
      dead: env.SQS_DEAD_URL,
      region: env.AWS_REGION,
    },
    { ...flagOf, work: 'SQS_WORK_URL', delay: 'SQS_DELAY_URL', dead: 'SQS_DEAD_URL', region: 'AWS_REGION' },
  );
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
  // With queue shards, every shard's queue (dead letters listed and redriven across them).
  const shards = shardQueueNames(config.FLEETQ_QUEUE, config.FLEETQ_QUEUE_SHARDS).map(
    (name) =>
      new RedisQueue({
        name,
        prefix: config.FLEETQ_REDIS_PREFIX,
        leaseMs: config.FLEETQ_LEASE_MS,
        ...signingOptions(config),
        redis,
      }),
  );
  const queue = shards.length === 1 ? shards[0]! : new ShardedQueue(shards);
  return {
    queue,
    close: async () => {
      await queue.close();
      redis.disconnect();
    },
  };
}
