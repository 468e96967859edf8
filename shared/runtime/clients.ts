// Per-cluster API clients, built on first use and cached: a REST client limited by the cluster's API budget,
// with its circuit (one probe at a time while the cluster does not answer), and a live view.
//
// The API budget is per controller, as kube-controller-manager's: each controller's requests to a cluster take
// from a bucket of their own (registry limits.qps/burst), and with limits.clusterQps also from the cluster's cap
// (kube/controller-budgets.ts). With Redis the buckets are fleet-wide: in the queue's Redis, shared by every
// worker and Lambda of the queue (kube/redis-token-bucket.ts). The memory driver runs in one process, so its
// buckets are in process (kube/token-bucket.ts).
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../queue/redis/redis-connection.js';
import type { CachedClusterView } from '../cache/cached-cluster-view.js';
import { ClusterCircuit } from '../kube/circuit.js';
import { LiveClusterView } from '../kube/cluster-view.js';
import { ControllerBudgets } from '../kube/controller-budgets.js';
import { IdleExpiry } from '../kube/idle-expiry.js';
import type { BudgetRate, ClusterRegistry } from '../kube/registry.js';
import { RedisTokenBucket } from '../kube/redis-token-bucket.js';
import { KubeRest, type RateLimiter, type RequestObserver } from '../kube/rest.js';
import { TokenBucket } from '../kube/token-bucket.js';
import { connectRedis, redactedUrl, unrefSockets } from '../queue/redis/redis-connection.js';
import { redisKeyPrefix, redisKeys } from '../queue/redis/redis-keys.js';
import { shardQueueNameOf } from '../queue/queue-shards.js';
import type { FleetqConfig } from './config.js';
import { errorFields, type Logger } from './logger.js';
import type { ClusterClients } from './reconcile-one.js';
import { currentPhaseClock, timedPhase } from './reconcile-phases.js';

export type ApiBudgetMode = 'redis' | 'process';

/** Makes the token buckets of each cluster's API budget; one per process. */
export type ApiBudget = {
  readonly mode: ApiBudgetMode;
  /** A bucket of `rate`: the cluster's cap (controller undefined), or one controller's bucket in the cluster. */
  limiter(cluster: string, rate: BudgetRate, controller?: string): RateLimiter;
  /** Ends what the budget holds open (the Redis connection). */
  close(): Promise<void>;
};

/** FLEETQ_API_BUDGET, else `process` for the memory driver (one process) and `redis` for the redis and sqs drivers. */
export function apiBudgetMode(config: Pick<FleetqConfig, 'FLEETQ_API_BUDGET' | 'FLEETQ_DRIVER'>): ApiBudgetMode {
  return config.FLEETQ_API_BUDGET ?? (config.FLEETQ_DRIVER === 'memory' ? 'process' : 'redis');
}

/** Token buckets in this process: the budget holds per process. */
export function processApiBudget(): ApiBudget {
  return {
    mode: 'process',
    limiter: (_cluster, rate) => new TokenBucket(rate.qps, rate.burst),
    close: async () => undefined,
  };
}

export type RedisApiBudgetOptions = {
  readonly config: Pick<
    FleetqConfig,
    'REDIS_URL' | 'FLEETQ_REDIS_TLS_CA' | 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX' | 'FLEETQ_API_BUDGET_FALLBACK_TAKERS'
  > &
    Partial<Pick<FleetqConfig, 'FLEETQ_QUEUE_SHARDS'>>;
  readonly logger: Logger;
  /** A connection to use instead of one of its own (tests); the caller closes it. */
  readonly redis?: RedisClient;
  /** Passed to each bucket (tests); see RedisTokenBucketOptions. */
  readonly timeoutMs?: number;
  readonly retryMs?: number;
};

/**
 * Token buckets in Redis, under the queue's prefix and hash tag (redis-keys.ts `apiBucket`), so every process of
 * the queue shares them: `apibucket:<cluster>/<controller>` for a controller's (cluster names hold no `/`), and
 * `apibucket:<cluster>` for the cluster's cap. One connection per process, opened on the first API request; it does
 * not hold the process open by itself (a Lambda container or a test that never calls close() still exits).
 */
export function redisApiBudget(o: RedisApiBudgetOptions): ApiBudget {
  const { config, logger } = o;
  // A cluster's buckets sit under its shard's queue (queue-shards.ts), in the slot of the queue its keys are in.
  const keysOf = (cluster: string) =>
    redisKeys(
      redisKeyPrefix(
        shardQueueNameOf(config.FLEETQ_QUEUE, config.FLEETQ_QUEUE_SHARDS ?? 1, cluster),
        config.FLEETQ_REDIS_PREFIX,
      ),
    );
  const takerId = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  let own: RedisClient | undefined;
  const redis = (): RedisClient => {
    if (o.redis) return o.redis;
    if (own) return own;
    // No retries of a command over reconnects: a take that cannot be answered now falls back at once. A socket
    // that does not close when asked (Redis down) is destroyed after 200 ms, not ioredis's 2 s.
    const r = connectRedis(
      config.REDIS_URL,
      { tlsCaFile: config.FLEETQ_REDIS_TLS_CA },
      { lazyConnect: true, maxRetriesPerRequest: 0, disconnectTimeout: 200 },
    );
    unrefSockets(r);
    // Errors reach the takes (and are logged there, once per outage); ioredis reconnects by itself.
    r.on('error', () => undefined);
    own = r;
    return r;
  };
  return {
    mode: 'redis',
    limiter: (cluster, rate, controller) => {
      const log = logger.child({ cluster, ...(controller !== undefined && { controller }) });
      const name = controller === undefined ? cluster : `${cluster}/${controller}`;
      const keys = keysOf(cluster);
      return new RedisTokenBucket({
        redis: redis(),
        keys: { bucket: keys.apiBucket(name), takers: keys.apiBucketTakers(name) },
        qps: rate.qps,
        burst: rate.burst,
        takerId,
        fallbackTakers: config.FLEETQ_API_BUDGET_FALLBACK_TAKERS,
        ...(o.timeoutMs !== undefined && { timeoutMs: o.timeoutMs }),
        ...(o.retryMs !== undefined && { retryMs: o.retryMs }),
        onFallback: ({ error, takers, known, qps, burst }) =>
          log.warn('API budget in Redis unavailable; using this process share', {
            redis: redactedUrl(config.REDIS_URL),
            takers,
            takersKnown: known,
            qps,
            burst,
            error: errorFields(error),
          }),
        onRestored: ({ fallbackMs }) => log.info('API budget in Redis restored', { fallbackMs }),
      });
    },
    close: async () => {
      const r = own;
      own = undefined;
      if (!r) return;
      if (r.status === 'ready') await r.quit().catch(() => r.disconnect());
      else r.disconnect();
    },
  };
}

/** Which per-cluster clients a process may forget (kube/idle-expiry.ts); none: kept for the life of the process. */
export type ClientsExpiry = {
  /** FLEETQ_CLUSTER_IDLE_MS: clients not used in this long are dropped, built again on the cluster's next key. */
  readonly idleMs: number;
  readonly now?: () => number;
  /**
   * Close a forgotten client's connection pool (KubeRest.releaseConnections); default true. false for a map whose
   * entries another map also holds (deps.ts reloadingClients): that one releases them.
   */
  readonly release?: boolean;
};

/**
 * How long a cluster's clients must stay unused before they may go: never less than the time its emptiest API
 * budget bucket takes to refill (burst / qps). A bucket unused that long is full, so a new one (which starts
 * full) behaves exactly as the one dropped: the budget holds across the eviction, with process buckets as with
 * Redis ones (whose tokens are in Redis anyway).
 */
export function clientsMinIdleMs(limits: {
  readonly qps: number;
  readonly burst: number;
  readonly cluster?: BudgetRate;
}): number {
  const refill = (r: BudgetRate): number => (r.qps > 0 ? Math.ceil((r.burst / r.qps) * 1000) : Infinity);
  return Math.max(refill(limits), limits.cluster ? refill(limits.cluster) : 0);
}

/** What decides when clients built here may be forgotten. */
const evictionOf = new WeakMap<ClusterClients, { readonly circuit: ClusterCircuit; readonly minIdleMs: number }>();

/**
 * A map of clients per cluster that forgets idle ones (kube/idle-expiry.ts): unused for expiry.idleMs, and no
 * less than clientsMinIdleMs; never while the cluster's circuit is open (a new circuit would send every request
 * to a cluster that does not answer, not one probe at a time). A forgotten client's connection pool is closed
 * (its sockets would otherwise keep it, and them, for the apiserver's keep-alive). Without expiry, nothing is
 * forgotten.
 */
export function clientsExpiryMap(expiry: ClientsExpiry | undefined): IdleExpiry<ClusterClients> {
  return new IdleExpiry<ClusterClients>({
    idleMs: expiry?.idleMs ?? 0,
    ...(expiry?.now && { now: expiry.now }),
    minIdleMs: (c) => evictionOf.get(c)?.minIdleMs ?? 0,
    canEvict: (c) => evictionOf.get(c)?.circuit.isOpen !== true,
    ...(expiry?.release !== false && { onEvict: (_cluster: string, c: ClusterClients) => c.rest.releaseConnections() }),
  });
}

export function clusterClients(
  registry: ClusterRegistry,
  observe?: RequestObserver,
  budget: ApiBudget = processApiBudget(),
  /** With reads from the cache (cluster-caches.ts): the cached view of a cluster over its live view. */
  cachedView?: (cluster: string, live: LiveClusterView) => CachedClusterView | undefined,
  /** FLEETQ_CLUSTER_IDLE_MS: forget a cluster's clients once idle; absent: keep them. */
  expiry?: ClientsExpiry,
): (cluster: string) => ClusterClients {
  const cache = clientsExpiryMap(expiry);
  return (cluster) => {
    const hit = cache.get(cluster);
    if (hit) return hit;
    const config = registry.get(cluster);
    if (!config) throw new Error(`unknown cluster ${cluster}`);
    const circuit = new ClusterCircuit(cluster);
    const rest = new KubeRest(
      cluster,
      // The current one: a kubeconfig file that changed is loaded again (registry.ts), its TLS material used.
      () => registry.kubeConfig(cluster),
      timedLimiter(
        new ControllerBudgets({
          perController: config.limits,
          ...(config.limits.cluster && { cluster: config.limits.cluster }),
          bucket: (controller, rate) => budget.limiter(cluster, rate, controller),
        }),
      ),
      timedObserver(observe),
      circuit,
    );
    const live = new LiveClusterView(rest);
    const cached = cachedView?.(cluster, live);
    const clients = { rest, view: cached ?? live, ...(cached && { cached }) };
    evictionOf.set(clients, { circuit, minIdleMs: clientsMinIdleMs(config.limits) });
    cache.set(cluster, clients);
    return clients;
  };
}

/** The budget's wait, added to the run's `budget` phase (reconcile-phases.ts). */
function timedLimiter(limiter: RateLimiter): RateLimiter {
  return { take: () => timedPhase('budget', () => limiter.take()) };
}

/** Each request's own time, added to the run's `request` phase, then the process's observer. */
function timedObserver(observe?: RequestObserver): RequestObserver {
  return (e) => {
    const clock = currentPhaseClock();
    if (clock) {
      clock.add('request', e.ms);
      clock.requests++;
    }
    observe?.(e);
  };
}
