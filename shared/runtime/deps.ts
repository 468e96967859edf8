// Builds what a handler needs from its configuration: registry, queue, per-cluster clients and their API
// budget (fleet-wide in Redis, or per process: clients.ts), metrics.
// A registry read from FLEETQ_REGISTRY is re-read while the process runs (registry-watch.ts): an added cluster is
// served without a restart, a changed entry gets new clients, and a key of a cluster not yet known waits for the
// reload (FLEETQ_UNKNOWN_CLUSTER_WAIT_MS, reconcile-one.ts).
import { controllersFor } from '../controllers/index.js';
import { EventRecorders } from '../kube/events/recorders.js';
import { RegistryReload } from './registry-reload.js';
import { ClusterRegistry, loadRegistry, type ClusterConfig } from '../kube/registry.js';
import { createQueue, type QueueConfig } from '../queue/index.js';
import type { WorkQueue } from '../queue/work-queue.js';
import { connectRedis, unrefSockets } from '../queue/redis/redis-connection.js';
import { reconcileRateCounter, type ReconcileRateCounter } from './reconcile-rates.js';
import { ClusterCaches } from './cluster-caches.js';
import {
  apiBudgetMode,
  clientsExpiryMap,
  clusterClients,
  processApiBudget,
  redisApiBudget,
  type ApiBudget,
  type ClientsExpiry,
} from './clients.js';
import { verifyingSecrets } from '../queue/message-signing.js';
import { readsMode, signingOptions, type FleetqConfig } from './config.js';
import { errorFields, Logger } from './logger.js';
import { forgetClusterSeries, runtimeMetrics, type RuntimeMetrics } from './metrics.js';
import type { ClusterClients, ReconcileDeps } from './reconcile-one.js';
import { RegistryWatch } from './registry-watch.js';

export type Deps = ReconcileDeps & {
  /** The caches handlers read (FLEETQ_READS=cache); closed by whoever closes the deps. */
  readonly caches?: ClusterCaches;
  readonly metrics: RuntimeMetrics;
  /** The clusters' API budget; close it on shutdown (after the queue). */
  readonly apiBudget: ApiBudget;
  /** Fleet-wide reconcile counts in Redis, for `fleetq status` (reconcile-rates.ts); not on memory. */
  readonly rates?: ReconcileRateCounter;
  /** The registry file re-read while the process runs (absent when the registry was given); stopped on close. */
  readonly registryWatch?: RegistryWatch;
};

export function queueConfig(
  config: FleetqConfig,
  metrics?: RuntimeMetrics,
  logger?: Logger,
  registry?: ClusterRegistry,
): QueueConfig {
  // Per-cluster `limits.concurrency` of the registry: keys of that cluster held at once, fleet-wide.
  const caps = Object.fromEntries(
    (registry?.clusters ?? []).flatMap((c) =>
      c.limits.concurrency === undefined ? [] : [[c.name, c.limits.concurrency]],
    ),
  );
  const common = {
    name: config.FLEETQ_QUEUE,
    options: {
      leaseMs: config.FLEETQ_LEASE_MS,
      ...signingOptions(config),
      ...(Object.keys(caps).length > 0 && { clusterConcurrencyOverrides: caps }),
      ...(logger && {
        onMalformed: (raw: string, reason: string) =>
          logger.error('Malformed message dead-lettered', { body: raw.slice(0, 200), reason }),
      }),
    },
    ...(metrics && { metrics: { registry: metrics.registry } }),
  };
  switch (config.FLEETQ_DRIVER) {
    case 'memory':
      return { ...common, driver: 'memory' };
    case 'redis':
      return {
        ...common,
        driver: 'redis',
        redisUrl: config.REDIS_URL,
        prefix: config.FLEETQ_REDIS_PREFIX,
        ...(config.FLEETQ_REDIS_TLS_CA !== undefined && { redisTlsCaFile: config.FLEETQ_REDIS_TLS_CA }),
        shards: config.FLEETQ_QUEUE_SHARDS,
      };
    case 'sqs':
      return {
        ...common,
        driver: 'sqs',
        endpoint: config.SQS_ENDPOINT,
        region: config.AWS_REGION,
        // The stack's queues, used as given (Lambda); without them the driver creates its own.
        ...(config.SQS_WORK_URL !== undefined &&
          config.SQS_DELAY_URL !== undefined &&
          config.SQS_DEAD_URL !== undefined && {
            queueUrls: { work: config.SQS_WORK_URL, delay: config.SQS_DELAY_URL, dead: config.SQS_DEAD_URL },
          }),
      };
  }
}

export function registryFrom(config: FleetqConfig, clusters?: readonly ClusterConfig[]): ClusterRegistry {
  if (clusters) return new ClusterRegistry(clusters);
  if (!config.FLEETQ_REGISTRY) throw new Error('FLEETQ_REGISTRY (the cluster registry file) is not set');
  return new ClusterRegistry(loadRegistry(config.FLEETQ_REGISTRY));
}

export async function makeDeps(
  config: FleetqConfig,
  o: {
    readonly service: string;
    readonly registry?: ClusterRegistry;
    readonly queue?: WorkQueue;
    readonly metrics?: RuntimeMetrics;
    /** The cluster caches to read (FLEETQ_READS=cache); default: stores in the queue's Redis. */
    readonly caches?: ClusterCaches;
  },
): Promise<Deps> {
  const metrics = o.metrics ?? runtimeMetrics();
  const registry = o.registry ?? registryFrom(config);
  const logger = new Logger(o.service, config.LOG_LEVEL);
  const watch =
    o.registry === undefined && config.FLEETQ_REGISTRY !== undefined
      ? new RegistryWatch(
          new RegistryReload(config.FLEETQ_REGISTRY, registry, logger.child({ component: 'registry' })),
          {
            everyMs: config.FLEETQ_REGISTRY_CHECK_MS,
          },
        ).start()
      : undefined;
  const lookup = watch ?? registry;
  // A cluster removed from the registry keeps no series on this process's /metrics.
  watch?.onChange((change) => {
    for (const cluster of change.removed) {
      forgetClusterSeries(metrics.registry, cluster).catch((err: unknown) =>
        logger.warn('Dropping a removed cluster’s metric series failed', { cluster, ...errorFields(err) }),
      );
    }
  });
  const queue = o.queue ?? (await createQueue(queueConfig(config, metrics, logger, registry)));
  const apiBudget =
    apiBudgetMode(config) === 'redis'
      ? redisApiBudget({ config, logger: logger.child({ component: 'api-budget' }) })
      : processApiBudget();
  logger.info('API budget', { mode: apiBudget.mode });
  // A worker on the memory driver outside `fleetq run` (which passes its caches) shares no cache: live.
  const caches =
    readsMode(config) !== 'cache'
      ? undefined
      : (o.caches ?? (config.FLEETQ_DRIVER === 'memory' ? undefined : redisCaches(config, lookup, metrics)));
  logger.info('Reads', { from: caches ? `cache (${caches.where})` : 'live' });
  const rates = reconcileRateCounter(config);
  // What the process keeps per cluster goes once the cluster is idle FLEETQ_CLUSTER_IDLE_MS (kube/idle-expiry.ts).
  const expiry = { idleMs: config.FLEETQ_CLUSTER_IDLE_MS };
  const clientsOf = (r: ClusterRegistry, e: ClientsExpiry = expiry) =>
    clusterClients(r, metrics.onRequest, apiBudget, caches && ((c, live) => caches.viewFor(c, live)), e);
  return {
    registry: lookup,
    queue,
    metrics,
    apiBudget,
    clients: watch
      ? reloadingClients(watch, (r) => clientsOf(r, { ...expiry, release: false }), expiry)
      : clientsOf(registry),
    ...(caches && { caches }),
    ...(watch && { registryWatch: watch }),
    unknownCluster: {
      waitMs: config.FLEETQ_UNKNOWN_CLUSTER_WAIT_MS,
      ...(watch && { refresh: () => watch.refresh() }),
      ...(config.FLEETQ_REGISTRY !== undefined && { source: config.FLEETQ_REGISTRY }),
    },
    controllers: controllersFor(lookup),
    events: new EventRecorders({ registry: metrics.registry, logger, idleMs: config.FLEETQ_CLUSTER_IDLE_MS }),
    logger,
    now: () => new Date(),
    leaseMs: config.FLEETQ_LEASE_MS,
    ...(rates && { rates }),
    onGauges: metrics.onGauges,
    onOutcome: rates
      ? (e) => {
          metrics.onOutcome(e);
          rates.record(e);
        }
      : metrics.onOutcome,
  };
}

/**
 * Closes what makeDeps opened, in order: the event buffers first (written out, bounded by eventsTimeoutMs, while
 * the clients still work), then the queue, the API budget and the caches. Call it after the worker loop stopped.
 */
export async function closeDeps(deps: Deps, o: { readonly eventsTimeoutMs?: number } = {}): Promise<void> {
  deps.registryWatch?.stop();
  await deps.events?.close(o.eventsTimeoutMs ?? 5_000);
  await deps.queue.close();
  await deps.apiBudget.close();
  await deps.caches?.close();
  await deps.rates?.close();
}

/**
 * Each cluster's clients, built from the registry in force when first asked for; a cluster whose entry changed
 * or was removed gets new ones (a new connection, credentials and budget) at its next use.
 */
function reloadingClients(
  watch: RegistryWatch,
  clientsOf: (registry: ClusterRegistry) => (cluster: string) => ClusterClients,
  expiry: ClientsExpiry,
): (cluster: string) => ClusterClients {
  let current = clientsOf(watch.registry);
  // Forgets idle clients as clientsOf's own map does (the same idle time and conditions), and closes their
  // connection pools (clientsOf's map only lets go of them): an entry dropped here while clientsOf still keeps it
  // is found there again (its next request opens a new pool), and the other way round.
  const built = clientsExpiryMap(expiry);
  watch.onChange((change) => {
    current = clientsOf(change.registry);
    for (const c of [...change.changed, ...change.removed]) built.delete(c);
  });
  return (cluster) => {
    let clients = built.get(cluster);
    if (!clients) built.set(cluster, (clients = current(cluster)));
    return clients;
  };
}

/** Cluster caches in the queue's Redis (split workers, Lambdas, standalone forwarders). */
export function redisCaches(
  config: FleetqConfig,
  registry: Pick<ClusterRegistry, 'get'>,
  metrics?: RuntimeMetrics,
): ClusterCaches {
  const redis = connectRedis(config.REDIS_URL, { tlsCaFile: config.FLEETQ_REDIS_TLS_CA }, { lazyConnect: true });
  // Never what keeps a process alive (a Lambda container, a test that does not close its deps); errors reach
  // the reads, which then go live.
  unrefSockets(redis);
  redis.on('error', () => undefined);
  return new ClusterCaches({
    registry,
    redis,
    ownsClient: true,
    redisPrefix: config.FLEETQ_REDIS_PREFIX,
    idleMs: config.FLEETQ_CLUSTER_IDLE_MS,
    // The queue's signing secrets also authenticate the cache (cache-mac.ts): with none, entries carry no MAC.
    signingSecrets: verifyingSecrets(signingOptions(config)),
    ...(metrics && { metrics: metrics.registry }),
  });
}
