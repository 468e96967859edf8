// Per-cluster API clients, built on first use and cached: a REST client limited by the cluster's API budget,
// with its circuit (one probe at a time while the cluster does not answer), and a live view.
//
// The API budget (registry limits.qps/burst) is fleet-wide with Redis: one token bucket per cluster in the
// queue's Redis, shared by every worker and Lambda of the queue (kube/redis-token-bucket.ts). The memory
// driver runs in one process, so its budget is an in-process bucket (kube/token-bucket.ts).
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CachedClusterView } from '../cache/cached-cluster-view.js';
import { ClusterCircuit } from '../kube/circuit.js';
import { LiveClusterView } from '../kube/cluster-view.js';
import type { ClusterLimits, ClusterRegistry } from '../kube/registry.js';
import { RedisTokenBucket } from '../kube/redis-token-bucket.js';
import { KubeRest, type RateLimiter, type RequestObserver } from '../kube/rest.js';
import { TokenBucket } from '../kube/token-bucket.js';
import { connectRedis, redactedUrl } from '../queue/redis/redis-connection.js';
import { redisKeyPrefix, redisKeys } from '../queue/redis/redis-keys.js';
import type { FleetqConfig } from './config.js';
import { errorFields, type Logger } from './logger.js';
import type { ClusterClients } from './reconcile-one.js';
import { currentPhaseClock, timedPhase } from './reconcile-phases.js';

export type ApiBudgetMode = 'redis' | 'process';

/** Makes each cluster's rate limiter; one per process. */
export type ApiBudget = {
  readonly mode: ApiBudgetMode;
  limiter(cluster: string, limits: ClusterLimits): RateLimiter;
  /** Ends what the budget holds open (the Redis connection). */
  close(): Promise<void>;
};

/** FLEETQ_API_BUDGET, else `process` for the memory driver (one process) and `redis` for the redis and sqs drivers. */
export function apiBudgetMode(config: Pick<FleetqConfig, 'FLEETQ_API_BUDGET' | 'FLEETQ_DRIVER'>): ApiBudgetMode {
  return config.FLEETQ_API_BUDGET ?? (config.FLEETQ_DRIVER === 'memory' ? 'process' : 'redis');
}

/** A token bucket per cluster in this process: the budget holds per process. */
export function processApiBudget(): ApiBudget {
  return {
    mode: 'process',
    limiter: (_cluster, limits) => new TokenBucket(limits.qps, limits.burst),
    close: async () => undefined,
  };
}

export type RedisApiBudgetOptions = {
  readonly config: Pick<
    FleetqConfig,
    'REDIS_URL' | 'FLEETQ_REDIS_TLS_CA' | 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX' | 'FLEETQ_API_BUDGET_FALLBACK_TAKERS'
  >;
  readonly logger: Logger;
  /** A connection to use instead of one of its own (tests); the caller closes it. */
  readonly redis?: Redis;
  /** Passed to each bucket (tests); see RedisTokenBucketOptions. */
  readonly timeoutMs?: number;
  readonly retryMs?: number;
};

/**
 * A token bucket per cluster in Redis, under the queue's prefix and hash tag (redis-keys.ts `apiBucket`), so
 * every process of the queue shares it. One connection per process, opened on the first API request; it does
 * not hold the process open by itself (a Lambda container or a test that never calls close() still exits).
 */
export function redisApiBudget(o: RedisApiBudgetOptions): ApiBudget {
  const { config, logger } = o;
  const keys = redisKeys(redisKeyPrefix(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX));
  const takerId = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  let own: Redis | undefined;
  const redis = (): Redis => {
    if (o.redis) return o.redis;
    if (own) return own;
    // No retries of a command over reconnects: a take that cannot be answered now falls back at once. A socket
    // that does not close when asked (Redis down) is destroyed after 200 ms, not ioredis's 2 s.
    const r = connectRedis(
      config.REDIS_URL,
      { tlsCaFile: config.FLEETQ_REDIS_TLS_CA },
      { lazyConnect: true, maxRetriesPerRequest: 0, disconnectTimeout: 200 },
    );
    r.on('connect', () => r.stream.unref());
    // Errors reach the takes (and are logged there, once per outage); ioredis reconnects by itself.
    r.on('error', () => undefined);
    own = r;
    return r;
  };
  return {
    mode: 'redis',
    limiter: (cluster, limits) => {
      const log = logger.child({ cluster });
      return new RedisTokenBucket({
        redis: redis(),
        keys: { bucket: keys.apiBucket(cluster), takers: keys.apiBucketTakers(cluster) },
        qps: limits.qps,
        burst: limits.burst,
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

export function clusterClients(
  registry: ClusterRegistry,
  observe?: RequestObserver,
  budget: ApiBudget = processApiBudget(),
  /** With reads from the cache (cluster-caches.ts): the cached view of a cluster over its live view. */
  cachedView?: (cluster: string, live: LiveClusterView) => CachedClusterView | undefined,
): (cluster: string) => ClusterClients {
  const cache = new Map<string, ClusterClients>();
  return (cluster) => {
    const hit = cache.get(cluster);
    if (hit) return hit;
    const config = registry.get(cluster);
    if (!config) throw new Error(`unknown cluster ${cluster}`);
    const rest = new KubeRest(
      cluster,
      // The current one: a kubeconfig file that changed is loaded again (registry.ts), its TLS material used.
      () => registry.kubeConfig(cluster),
      timedLimiter(budget.limiter(cluster, config.limits)),
      timedObserver(observe),
      new ClusterCircuit(cluster),
    );
    const live = new LiveClusterView(rest);
    const cached = cachedView?.(cluster, live);
    const clients = { rest, view: cached ?? live, ...(cached && { cached }) };
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
