// createQueue(config): the one place a WorkQueue driver is chosen by name. Metrics are added here when a
// registry is given, so every driver gets them identically.
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Registry } from 'prom-client';
import { MemoryQueue } from './memory/memory-queue.js';
import { RedisQueue } from './redis/redis-queue.js';
import { SqsQueue } from './sqs/sqs-queue.js';
import { ensureSqsQueues, sqsQueueNames, type SqsQueueNames, type SqsQueueUrls } from './sqs/sqs-setup.js';
import { instrument } from './metrics.js';
import { connectRedis, redisOptionsFor } from './redis/redis-connection.js';
import { shardQueueNames } from './queue-shards.js';
import { ShardedQueue } from './sharded-queue.js';
import type { QueueOptions, WorkQueue } from './work-queue.js';

export type QueueConfig = {
  /** Queue name: Redis hash tag, SQS base name, metrics label. Default `fleetq`. */
  readonly name?: string;
  readonly options?: QueueOptions;
  readonly metrics?: { readonly registry: Registry };
} & (
  | { readonly driver: 'memory' }
  | {
      readonly driver: 'redis';
      /** Default redis://127.0.0.1:6379. */
      readonly redisUrl?: string;
      /** Key prefix before `{name}`; default `fleetq`. */
      readonly prefix?: string;
      /** Keys fetched per round trip (default 1). */
      readonly prefetch?: number;
      /** CA file for a rediss:// URL (FLEETQ_REDIS_TLS_CA). */
      readonly redisTlsCaFile?: string;
      /**
       * Queue shards (FLEETQ_QUEUE_SHARDS, queue-shards.ts): N queues `name`, `name-s2`..`name-sN`, a cluster's keys
       * in one of them by a hash of its name. Default 1: the one queue `name`, as without shards.
       */
      readonly shards?: number;
    }
  | {
      readonly driver: 'sqs';
      /** e.g. the emulator's http://127.0.0.1:PORT; default: the AWS endpoint for the region. */
      readonly endpoint?: string;
      readonly region?: string;
      /** Existing queues; when absent they are created from `queueNames` (default: derived from name). */
      readonly queueUrls?: SqsQueueUrls;
      readonly queueNames?: Partial<SqsQueueNames>;
    }
);

export async function createQueue(config: QueueConfig): Promise<WorkQueue> {
  const name = config.name ?? 'fleetq';
  const queue = await createDriver(config, name);
  return config.metrics ? instrument(queue, config.metrics.registry, name) : queue;
}

async function createDriver(config: QueueConfig, name: string): Promise<WorkQueue> {
  const options = config.options ?? {};
  switch (config.driver) {
    case 'memory':
      return new MemoryQueue(options);
    case 'redis': {
      const shards = config.shards ?? 1;
      const redisOptions =
        config.redisUrl === undefined
          ? {}
          : { redisOptions: redisOptionsFor(config.redisUrl, { tlsCaFile: config.redisTlsCaFile }) };
      const common = {
        ...options,
        ...redisOptions,
        ...(config.prefix === undefined ? {} : { prefix: config.prefix }),
        ...(config.prefetch === undefined ? {} : { prefetch: config.prefetch }),
      };
      if (shards === 1)
        return new RedisQueue({
          ...common,
          name,
          ...(config.redisUrl === undefined ? {} : { redis: config.redisUrl }),
        });
      // One connection for every shard (each shard's blocked waits still take connections of their own).
      const client = connectRedis(
        config.redisUrl ?? 'redis://127.0.0.1:6379',
        { tlsCaFile: config.redisTlsCaFile },
        { enableAutoPipelining: true },
      );
      const queues = shardQueueNames(name, shards).map((n) => new RedisQueue({ ...common, name: n, redis: client }));
      return new ShardedQueue(queues, { onClose: () => client.quit().then(() => undefined) });
    }
    case 'sqs': {
      const client = new SQSClient({
        region: config.region ?? process.env.AWS_REGION ?? 'us-east-1',
        ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
        // An emulator accepts any credentials; real AWS uses the default provider chain.
        ...(config.endpoint !== undefined && !process.env.AWS_ACCESS_KEY_ID
          ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
          : {}),
      });
      const urls =
        config.queueUrls ?? (await ensureSqsQueues(client, { ...sqsQueueNames(name), ...config.queueNames }));
      return new SqsQueue({ ...options, client, urls, ownsClient: true });
    }
    default: {
      const unknown: never = config;
      throw new Error(`unknown queue driver ${JSON.stringify((unknown as { driver: string }).driver)}`);
    }
  }
}

export { MemoryQueue } from './memory/memory-queue.js';
export { RedisQueue } from './redis/redis-queue.js';
export { SqsQueue } from './sqs/sqs-queue.js';
export { leaseFromSqsRecord, type SqsRecordLike } from './sqs/sqs-record-lease.js';
export { instrument } from './metrics.js';
export { ShardedQueue } from './sharded-queue.js';
export type { DeadLetter, Lease, QueueOptions, RedriveOptions, RetryOutcome, WorkQueue } from './work-queue.js';
