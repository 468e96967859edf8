// Where each cluster's object cache lives, and the cached views handlers read through (FLEETQ_READS=cache).
// `fleetq run` shares one in-process store per cluster between its forwarder and its workers (the informer);
// split workers, Lambdas and standalone forwarders share a Redis store per cluster (the queue's Redis).
// The kinds a cluster's cache holds are what its forwarder watches for the kinds it owns. A shared store
// authenticates what it reads back with the queue's signing secrets (cache-mac.ts); a value that does not verify
// is counted (fleetq_cache_entries_rejected_total) and logged once per id, without its contents.
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { Counter, Histogram, type Registry } from 'prom-client';
import { CachedClusterView } from '../cache/cached-cluster-view.js';
import type { CacheStore } from '../cache/cache-store.js';
import { MemoryCacheStore } from '../cache/memory-cache-store.js';
import { RedisCacheStore, type CacheRejection } from '../cache/redis-cache-store.js';
import { DESCRIPTORS } from '../controllers/index.js';
import type { LiveClusterView } from '../kube/cluster-view.js';
import { servedKinds, type ClusterRegistry } from '../kube/registry.js';
import { IdleExpiry } from '../kube/idle-expiry.js';
import { Logger } from './logger.js';
import { currentPhaseClock } from './reconcile-phases.js';

export type ReadsMode = 'live' | 'cache';

export type ClusterCachesOptions = {
  readonly registry: Pick<ClusterRegistry, 'get'>;
  /** A Redis client for shared stores; absent: one in-process store per cluster. */
  readonly redis?: RedisClient;
  readonly redisPrefix?: string;
  /** Close the Redis client on close(); default false. */
  readonly ownsClient?: boolean;
  /** The queue's signing secrets, the one that signs first: shared stores MAC what they write (none: no MACs). */
  readonly signingSecrets?: readonly string[];
  /** Where rejected cache values are reported; default a logger of its own. */
  readonly logger?: Logger;
  /** Longest read-your-writes wait (cached-cluster-view.ts); default 5 000. */
  readonly waitMs?: number;
  readonly metrics?: Registry;
  /** FLEETQ_CLUSTER_IDLE_MS: a cluster's Redis store unused this long is forgotten (built again when asked for). */
  readonly idleMs?: number;
  readonly now?: () => number;
};

export class ClusterCaches {
  readonly where: 'memory' | 'redis';
  /** Shared stores (Redis) hold no state of their own: forgotten when idle. In-process stores are the cache: kept. */
  private readonly stores: IdleExpiry<CacheStore>;
  private metrics: ReturnType<typeof cacheMetrics> | undefined;
  private readonly logger: Logger;
  /** Ids already logged as rejected (bounded: cleared when full), so a forged value is logged once, not per read. */
  private readonly loggedRejections = new Set<string>();

  constructor(private readonly o: ClusterCachesOptions) {
    this.where = o.redis ? 'redis' : 'memory';
    this.stores = new IdleExpiry<CacheStore>({
      idleMs: o.redis ? (o.idleMs ?? 0) : 0,
      ...(o.now && { now: o.now }),
    });
    this.metrics = o.metrics ? cacheMetrics(o.metrics) : undefined;
    this.logger = (o.logger ?? new Logger('fleetq-cache')).child({ component: 'cache' });
  }

  /** Registers the read metrics (for caches made before the metrics registry). */
  attachMetrics(registry: Registry): void {
    this.metrics ??= cacheMetrics(registry);
  }

  storeFor(cluster: string): CacheStore {
    let store = this.stores.get(cluster);
    if (!store) {
      store = this.o.redis
        ? new RedisCacheStore({
            redis: this.o.redis,
            cluster,
            ...(this.o.redisPrefix && { prefix: this.o.redisPrefix }),
            ...(this.o.signingSecrets && { signingSecrets: this.o.signingSecrets }),
            onRejected: (e) => this.rejected(e),
          })
        : new MemoryCacheStore();
      this.stores.set(cluster, store);
    }
    return store;
  }

  /** The kinds the cluster's forwarder materializes. */
  cachedKinds(cluster: string): Set<string> {
    const config = this.o.registry.get(cluster);
    const served = config ? servedKinds(config) : [];
    return new Set(DESCRIPTORS.watchedResources(served).map((r) => DESCRIPTORS.kindOf(r)));
  }

  viewFor(cluster: string, live: LiveClusterView): CachedClusterView {
    const m = this.metrics;
    return new CachedClusterView({
      store: this.storeFor(cluster),
      live,
      cachedKinds: this.cachedKinds(cluster),
      ...(this.o.waitMs !== undefined && { waitMs: this.o.waitMs }),
      ...(m && {
        onRead: (e) => m.reads.inc({ cluster: e.cluster, kind: e.kind, source: e.source, reason: e.reason ?? '' }),
      }),
      // Called inside the run that waited: its phase clock (reconcile-phases.ts) gets the wait too.
      onWait: (e) => {
        m?.waits.observe({ cluster: e.cluster, outcome: e.outcome }, e.seconds);
        currentPhaseClock()?.add('ownWrites', e.seconds * 1000);
      },
    });
  }

  /** A value read back from Redis that did not verify: counted every time, logged once per id. */
  private rejected(e: CacheRejection): void {
    this.metrics?.rejected.inc({ cluster: e.cluster, what: e.what, reason: e.reason });
    const key = `${e.cluster}\u0000${e.what}\u0000${e.id}`;
    if (this.loggedRejections.has(key)) return;
    if (this.loggedRejections.size >= 10_000) this.loggedRejections.clear();
    this.loggedRejections.add(key);
    this.logger.warn('Cache value rejected: not authentic or not readable; treated as absent', {
      cluster: e.cluster,
      what: e.what,
      id: e.id,
      reason: e.reason,
      hint: "something other than this deployment's forwarder wrote into the cache in Redis: check who can reach it",
    });
  }

  async close(): Promise<void> {
    const r = this.o.ownsClient ? this.o.redis : undefined;
    if (!r) return;
    // A lazy client never used has nothing to QUIT (and one that cannot reach Redis would wait to send it).
    if (r.status === 'ready') await r.quit().catch(() => r.disconnect());
    else r.disconnect();
  }
}

function cacheMetrics(registry: Registry) {
  const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
  return {
    reads:
      existing<Counter>('fleetq_cache_reads_total') ??
      new Counter({
        name: 'fleetq_cache_reads_total',
        help: 'Reads of handlers by source: cache, or live with the reason (not-cached, not-synced, query, stale)',
        labelNames: ['cluster', 'kind', 'source', 'reason'],
        registers: [registry],
      }),
    waits:
      existing<Histogram>('fleetq_cache_own_writes_wait_seconds') ??
      new Histogram({
        name: 'fleetq_cache_own_writes_wait_seconds',
        help: "Time a key's run waited for the cache to pass its previous run's writes (timed-out: it read live)",
        labelNames: ['cluster', 'outcome'],
        buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [registry],
      }),
    rejected:
      existing<Counter>('fleetq_cache_entries_rejected_total') ??
      new Counter({
        name: 'fleetq_cache_entries_rejected_total',
        help: 'Values read back from the shared cache that were not used (what: entry, watermark, record, alive; reason: missing-mac, bad-mac, malformed, index)',
        labelNames: ['cluster', 'what', 'reason'],
        registers: [registry],
      }),
  };
}
