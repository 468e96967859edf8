// The all-in-one mode (`fleetq run`): a forwarder for every registered cluster and N workers in one
// process, on the memory driver by default or bullmq/sqs. Checkpoints and the event log go to Redis with
// bullmq and to files under dataDir otherwise, unless FLEETQ_CHECKPOINTS / FLEETQ_EVENT_LOG say else.
import { join } from 'node:path';
import { FleetForwarder } from '../forwarder/fleet-forwarder.js';
import { forwarderStores, loadForwarderConfig } from '../forwarder/forwarder-deps.js';
import type { ClusterRegistry } from '../kube/registry.js';
import type { FleetqConfig } from './config.js';
import { makeDeps, type Deps } from './deps.js';
import { WorkerLoop } from './loop.js';
import { resyncOnRedisLoss } from './redis-loss-resync.js';

export type AllInOneOptions = {
  readonly config: FleetqConfig;
  readonly registry: ClusterRegistry;
  /** Where checkpoints and the event log live without Redis. */
  readonly dataDir: string;
  readonly env?: NodeJS.ProcessEnv;
};

export type AllInOne = {
  readonly deps: Deps;
  readonly fleet: FleetForwarder;
  readonly loop: WorkerLoop;
  stop(): Promise<void>;
};

export async function startAllInOne(o: AllInOneOptions): Promise<AllInOne> {
  const env = o.env ?? process.env;
  const withRedis = o.config.FLEETQ_DRIVER === 'bullmq';
  const fwd = loadForwarderConfig({
    FLEETQ_CHECKPOINTS: withRedis ? 'redis' : `file:${join(o.dataDir, 'checkpoints.json')}`,
    FLEETQ_EVENT_LOG: withRedis ? 'redis' : `jsonl:${join(o.dataDir, 'events')}`,
    ...env,
  });
  const deps = await makeDeps(o.config, { service: 'fleetq', registry: o.registry });
  const stores = forwarderStores(o.config, fwd);
  const fleet = new FleetForwarder(o.registry, {
    queue: deps.queue,
    checkpoints: stores.checkpoints,
    ...(stores.eventLog && { eventLog: stores.eventLog }),
    logger: deps.logger.child({ component: 'forwarder' }),
    registry: deps.metrics.registry,
    resyncMs: fwd.FLEETQ_RESYNC_MS,
  });
  const loop = new WorkerLoop(deps, {
    concurrency: o.config.FLEETQ_CONCURRENCY,
    renewEveryMs: Math.floor(o.config.FLEETQ_LEASE_MS / 3),
  });
  loop.start();
  await fleet.start();
  // Redis is a cache that can vanish: on a data loss every forwarder resyncs (README "Configuration").
  const lossWatch = withRedis ? await resyncOnRedisLoss(fleet, o.config, deps.logger) : undefined;
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
      await lossWatch?.stop();
      deps.logger.debug('Stopping forwarders');
      await fleet.stop();
      deps.logger.debug('Stopping workers');
      await loop.stop();
      deps.logger.debug('Closing queue and stores');
      await deps.queue.close();
      await stores.close();
    },
  };
}
