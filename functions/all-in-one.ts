// The composition root of the all-in-one mode (`fleetq run`, cli.ts; the conformance suites run it in-process):
// a forwarder for every registered cluster and N workers in one process, on the memory driver by default or
// redis/sqs. Checkpoints and the event log go to Redis with the redis driver and to files under dataDir
// otherwise, unless FLEETQ_CHECKPOINTS / FLEETQ_EVENT_LOG say else. It sits above shared/forwarder and
// shared/runtime, which it puts together.
import { join } from 'node:path';
import { FleetForwarder } from '../shared/forwarder/fleet-forwarder.js';
import { forwarderStores, loadForwarderConfig } from '../shared/forwarder/forwarder-deps.js';
import type { ClusterRegistry } from '../shared/kube/registry.js';
import { readsMode, type FleetqConfig } from '../shared/runtime/config.js';
import { ClusterCaches } from '../shared/runtime/cluster-caches.js';
import { closeDeps, makeDeps, type Deps } from '../shared/runtime/deps.js';
import { WorkerLoop } from '../shared/runtime/loop.js';
import { resyncOnRedisLoss } from '../shared/runtime/redis-loss-resync.js';

export type AllInOneOptions = {
  readonly config: FleetqConfig;
  readonly registry: ClusterRegistry;
  /**
   * The forwarder's own credentials for the same clusters (same names and kinds owned), as a split deployment
   * mounts each component's ServiceAccount token: the forwarder's role can only get, list and watch, the
   * handlers' only what they write (infra/k8s/). Default: `registry` for both.
   */
  readonly forwarderRegistry?: ClusterRegistry;
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
  const forwarderRegistry = forwarderRegistryOf(o);
  const withRedis = o.config.FLEETQ_DRIVER === 'redis';
  const fwd = loadForwarderConfig({
    FLEETQ_CHECKPOINTS: withRedis ? 'redis' : `file:${join(o.dataDir, 'checkpoints.json')}`,
    FLEETQ_EVENT_LOG: withRedis ? 'redis' : `jsonl:${join(o.dataDir, 'events')}`,
    ...env,
  });
  // Reads from the cache: one in-process store per cluster, filled by the forwarder, read by the workers.
  const caches = readsMode(o.config) === 'cache' ? new ClusterCaches({ registry: o.registry }) : undefined;
  const deps = await makeDeps(o.config, { service: 'fleetq', registry: o.registry, ...(caches && { caches }) });
  if (caches) caches.attachMetrics(deps.metrics.registry);
  const stores = forwarderStores(o.config, fwd);
  const fleet = new FleetForwarder(forwarderRegistry, {
    queue: deps.queue,
    checkpoints: stores.checkpoints,
    ...(stores.eventLog && { eventLog: stores.eventLog }),
    logger: deps.logger.child({ component: 'forwarder' }),
    registry: deps.metrics.registry,
    resyncMs: fwd.FLEETQ_RESYNC_MS,
    // The memory queue's keys die with the process; its checkpoints (files) do not: a restart resyncs.
    resyncOnResume: o.config.FLEETQ_DRIVER === 'memory',
    ...(caches && { cacheFor: (cluster: string) => caches.storeFor(cluster) }),
  });
  const loop = new WorkerLoop(deps, {
    concurrency: o.config.FLEETQ_CONCURRENCY,
    renewEveryMs: Math.floor(o.config.FLEETQ_LEASE_MS / 3),
  });
  loop.start();
  await fleet.start();
  // Redis is a cache that can vanish: on a data loss every forwarder resyncs (README "Configuration").
  const lossWatch = withRedis
    ? await resyncOnRedisLoss(fleet, o.config, deps.logger, { queue: deps.queue, registry: deps.metrics.registry })
    : undefined;
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
      deps.logger.debug('Writing buffered events; closing queue, API budget, caches and stores');
      await closeDeps(deps);
      await stores.close();
    },
  };
}

function forwarderRegistryOf(o: AllInOneOptions): ClusterRegistry {
  const forwarder = o.forwarderRegistry;
  if (forwarder === undefined) return o.registry;
  const describe = (r: ClusterRegistry): string =>
    JSON.stringify(r.clusters.map((c) => [c.name, [...c.owns].sort(), [...(c.handOver ?? [])].sort()]).sort());
  // The forwarder watches for the kinds the handlers reconcile: a cluster or kind one side lacks is lost work.
  if (describe(forwarder) !== describe(o.registry)) {
    throw new Error(
      `forwarderRegistry must name the clusters and owned kinds of registry: ${describe(forwarder)} vs ${describe(o.registry)}`,
    );
  }
  return forwarder;
}
