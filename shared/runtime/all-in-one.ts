// The all-in-one mode (`fleetq run`): a forwarder for every registered cluster and N workers in one
// process, on the memory driver by default or bullmq/sqs. Checkpoints and the event log go to Redis
// with bullmq, to files under dataDir otherwise.
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { FleetForwarder } from '../forwarder/fleet-forwarder.js';
import type { ClusterRegistry } from '../kube/registry.js';
import { FileCheckpointStore, RedisCheckpointStore, type CheckpointStore } from '../queue/history/checkpoint-store.js';
import type { EventLog } from '../queue/history/event-log.js';
import { JsonlEventLog } from '../queue/history/jsonl-event-log.js';
import { RedisStreamEventLog } from '../queue/history/redis-stream-event-log.js';
import type { FleetqConfig } from './config.js';
import { makeDeps, type Deps } from './deps.js';
import { WorkerLoop } from './loop.js';

export type AllInOneOptions = {
  readonly config: FleetqConfig;
  readonly registry: ClusterRegistry;
  /** Where checkpoints and the event log live without Redis. */
  readonly dataDir: string;
  /** Periodic resync of every owned workload; default 5 min. */
  readonly resyncMs?: number;
};

export type AllInOne = {
  readonly deps: Deps;
  readonly fleet: FleetForwarder;
  readonly loop: WorkerLoop;
  stop(): Promise<void>;
};

export async function startAllInOne(o: AllInOneOptions): Promise<AllInOne> {
  const deps = await makeDeps(o.config, { service: 'fleetq', registry: o.registry });
  const redis =
    o.config.FLEETQ_DRIVER === 'bullmq' ? new Redis(o.config.REDIS_URL, { maxRetriesPerRequest: null }) : undefined;
  const prefix = `${o.config.FLEETQ_REDIS_PREFIX}:${o.config.FLEETQ_QUEUE}`;
  const checkpoints: CheckpointStore = redis
    ? new RedisCheckpointStore(redis, prefix)
    : new FileCheckpointStore(join(o.dataDir, 'checkpoints.json'));
  const eventLog: EventLog = redis
    ? new RedisStreamEventLog({ redis, prefix })
    : new JsonlEventLog({ dir: join(o.dataDir, 'events') });
  const fleet = new FleetForwarder(o.registry, {
    queue: deps.queue,
    checkpoints,
    eventLog,
    logger: deps.logger.child({ component: 'forwarder' }),
    registry: deps.metrics.registry,
    ...(o.resyncMs !== undefined && { resyncMs: o.resyncMs }),
  });
  const loop = new WorkerLoop(deps, {
    concurrency: o.config.FLEETQ_CONCURRENCY,
    renewEveryMs: Math.floor(o.config.FLEETQ_LEASE_MS / 3),
  });
  loop.start();
  await fleet.start();
  deps.logger.info('fleetq running', {
    clusters: o.registry.clusters.map((c) => c.name),
    driver: o.config.FLEETQ_DRIVER,
    concurrency: o.config.FLEETQ_CONCURRENCY,
  });
  return {
    deps,
    fleet,
    loop,
    stop: async () => {
      deps.logger.debug('Stopping forwarders');
      await fleet.stop();
      deps.logger.debug('Stopping workers');
      await loop.stop();
      deps.logger.debug('Closing queue and stores');
      await deps.queue.close();
      await checkpoints.close?.();
      await eventLog.close?.();
      redis?.disconnect();
    },
  };
}
