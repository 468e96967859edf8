// One harness per WorkQueue driver for the contract suite: create a fresh queue per test, inject a raw
// (malformed) message into the driver's own store, and state the driver's documented limits so the
// scenarios can scale their timings instead of skipping them.
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { MemoryQueue } from '../../../shared/queue/memory/memory-queue.js';
import { RedisQueue } from '../../../shared/queue/redis/redis-queue.js';
import { deleteQueueKeys, redisKeys } from '../../../shared/queue/redis/redis-keys.js';
import { SqsQueue } from '../../../shared/queue/sqs/sqs-queue.js';
import { SIGNATURE_ATTRIBUTE } from '../../../shared/queue/sqs/sqs-message.js';
import { deleteSqsQueues, ensureSqsQueues, sqsQueueNames } from '../../../shared/queue/sqs/sqs-setup.js';
import type { QueueOptions, WorkQueue } from '../../../shared/queue/work-queue.js';
import type { RedisClient } from '../../../shared/queue/redis/redis-connection.js';
import { startRedisCluster, type RedisCluster } from '../redis-cluster.js';
import { redisClient, REDIS_URL, testQueueName } from './redis.js';
import { sqsClient, startSqsEmulator, type SqsEmulator } from './sqs.js';

export type TestQueue = {
  readonly queue: WorkQueue;
  /**
   * Puts a message straight into the driver's store, bypassing add(): a body that is not a key, or a key
   * with no signature (or the given, forged one) when the queue signs messages.
   */
  injectRaw(raw: string, signature?: string): Promise<void>;
  dispose(): Promise<void>;
};

export type DriverHarness = {
  readonly name: 'memory' | 'redis' | 'redis-cluster' | 'sqs';
  /** Smallest lease and backoff base worth testing with (SQS works in whole seconds). */
  readonly leaseMs: number;
  readonly baseDelayMs: number;
  /** How a requested delay is rounded by the driver. */
  readonly roundDelay: (ms: number) => number;
  /** depth() counts messages (SQS), so duplicates waiting to be coalesced count. */
  readonly depthCountsMessages: boolean;
  /** Fairness holds across this many ready keys of a busy cluster (Infinity: any backlog). */
  readonly fairnessWindow: number;
  /** Whether a superseded later addAfter is dropped (one pending ready time per key). */
  readonly dropsLaterAddAfter: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  create(options: QueueOptions): Promise<TestQueue>;
};

const identity = (ms: number): number => ms;

const memory: DriverHarness = {
  name: 'memory',
  leaseMs: 300,
  baseDelayMs: 20,
  roundDelay: identity,
  depthCountsMessages: false,
  fairnessWindow: Number.POSITIVE_INFINITY,
  dropsLaterAddAfter: true,
  start: async () => {},
  stop: async () => {},
  async create(options) {
    const queue = new MemoryQueue(options);
    return { queue, injectRaw: async (raw, signature) => queue.addRaw(raw, signature), dispose: () => queue.close() };
  },
};

/** The redis driver on `url` (one node or a Cluster's seeds), the test's raw writes through `client()`. */
function redisOn(url: () => string, client: () => RedisClient): DriverHarness['create'] {
  return async (options) => {
    const queue = new RedisQueue({ ...options, name: testQueueName(), redis: url() });
    const redis = client();
    const keys = redisKeys(queue.prefix);
    return {
      queue,
      async injectRaw(raw, signature) {
        // What a corrupt or forging writer would leave: a pending entry, a ready-list entry and its cluster in
        // rotation (the cluster as the scripts derive it: the text before the first '/'), and maybe a signature.
        const cluster = /^([^/]*)\//.exec(raw)?.[1] ?? raw;
        await redis.hset(keys.pending, raw, Date.now());
        await redis.rpush(keys.ready(cluster), raw);
        await redis.rpush(keys.rotation, cluster);
        if (signature !== undefined) await redis.hset(keys.signatures, raw, signature);
      },
      async dispose() {
        await queue.close();
        await deleteQueueKeys(redis, queue.prefix);
        await redis.quit();
      },
    };
  };
}

const redis: DriverHarness = {
  ...memory,
  name: 'redis',
  create: redisOn(() => REDIS_URL, redisClient),
};

/**
 * The redis driver on a six-node Redis Cluster of its own (test/helpers/redis-cluster.ts) with a password, started
 * in start().
 */
function redisClusterHarness(): DriverHarness {
  let cluster: RedisCluster | undefined;
  const started = (): RedisCluster => {
    if (!cluster) throw new Error('redis-cluster harness not started');
    return cluster;
  };
  return {
    ...memory,
    name: 'redis-cluster',
    async start() {
      // With AUTH: the seeds' password must reach every node the client finds (Cluster's redisOptions).
      cluster = await startRedisCluster({ password: 'contract pass' });
    },
    async stop() {
      await cluster?.stop();
    },
    create: redisOn(
      () => started().url,
      () => started().client(),
    ),
  };
}

function sqsHarness(): DriverHarness {
  let emulator: SqsEmulator | undefined;
  return {
    name: 'sqs',
    leaseMs: 1000,
    baseDelayMs: 1000,
    roundDelay: (ms) => Math.max(1000, Math.ceil(ms / 1000) * 1000),
    depthCountsMessages: true,
    fairnessWindow: 10,
    dropsLaterAddAfter: false,
    async start() {
      emulator = await startSqsEmulator();
    },
    async stop() {
      await emulator?.stop();
    },
    async create(options) {
      if (!emulator) throw new Error('sqs harness not started');
      const client = sqsClient(emulator.endpoint);
      const urls = await ensureSqsQueues(client, sqsQueueNames(testQueueName()));
      const queue = new SqsQueue({ ...options, client, urls });
      return {
        queue,
        async injectRaw(raw, signature) {
          const QueueUrl = urls.work;
          await client.send(
            new SendMessageCommand({
              QueueUrl,
              MessageBody: raw,
              MessageGroupId: 'raw',
              MessageDeduplicationId: randomUUID(),
              ...(signature !== undefined && {
                MessageAttributes: { [SIGNATURE_ATTRIBUTE]: { DataType: 'String', StringValue: signature } },
              }),
            }),
          );
        },
        async dispose() {
          await queue.close();
          await deleteSqsQueues(client, urls);
          client.destroy();
        },
      };
    },
  };
}

export function allDrivers(): DriverHarness[] {
  return [memory, redis, redisClusterHarness(), sqsHarness()];
}
