// Which forwarder holds each cluster's watch, for `fleetq status`: the pool's leases (shared/forwarder/
// forwarder-keys.ts names the keys; readLeaseHolders reads them). A forwarder outside a pool (FleetForwarder:
// one process watching every cluster, `fleetq run`, the scheduled Lambda) takes no lease, so it shows as none.
// The pool's members, each with the digest of the registry it runs on (forwarder-pool.ts): members on different
// registries hold still until they agree, and status marks the one on an old registry.
// The quarantined clusters (cluster-quarantine.ts): those whose holders kept dying while syncing them, with their
// deaths, since and until when, and the largest object the dead holders reported.
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { isQuarantined, readDeathRecords } from '../forwarder/cluster-quarantine.js';
import { forwarderDigestsKey, forwarderMembersKey } from '../forwarder/forwarder-keys.js';
import { readLeaseHolders, readWriterTokens } from '../forwarder/forwarder-lease.js';
import { shardQueueNameOf } from '../queue/queue-shards.js';
import { redisKeyPrefix } from '../queue/redis/redis-keys.js';
import type { FleetqConfig } from '../runtime/config.js';

export type ForwarderHolder = {
  /** The forwarder process: `<hostname>/<pid>/<random>`. */
  readonly holder: string;
  /** The lease's fencing token (grows with every new holder: a takeover shows as a larger token). */
  readonly token: number;
  /** Time before the lease expires unless renewed. */
  readonly ttlMs: number;
};

/** cluster → the forwarder holding its lease; clusters whose lease is free are absent. */
export async function forwarderHolders(
  redis: RedisClient,
  config: Pick<FleetqConfig, 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX'>,
): Promise<Map<string, ForwarderHolder>> {
  const leases = await readLeaseHolders(redis, redisKeyPrefix(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX));
  return new Map([...leases].map(([cluster, l]) => [cluster, { holder: l.holder, token: l.token, ttlMs: l.ttlMs }]));
}

/**
 * cluster → the lease tokens that wrote for it (enqueued or checkpointed), oldest first; clusters with none are
 * absent. Each cluster's list is read where its writes record it: beside its keys in its own queue shard
 * (FLEETQ_QUEUE_SHARDS; the first shard's slot holds only the leases), one LRANGE per cluster, no cross-slot command.
 */
export async function forwarderWriters(
  redis: RedisClient,
  config: Pick<FleetqConfig, 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX'> & { readonly FLEETQ_QUEUE_SHARDS?: number },
  clusters: readonly string[],
): Promise<Map<string, number[]>> {
  const shards = config.FLEETQ_QUEUE_SHARDS ?? 1;
  const lists = await Promise.all(
    clusters.map((c) =>
      readWriterTokens(
        redis,
        c,
        redisKeyPrefix(shardQueueNameOf(config.FLEETQ_QUEUE, shards, c), config.FLEETQ_REDIS_PREFIX),
      ),
    ),
  );
  return new Map(clusters.flatMap((c, i) => ((lists[i] ?? []).length > 0 ? [[c, lists[i] ?? []]] : [])));
}

export type ForwarderMember = {
  /** The pool member: `<hostname>/<pid>/<random>` (control characters removed). */
  readonly holder: string;
  /** The digest of the registry it last reported with its heartbeat (registryDigest), null when none. */
  readonly digest: string | null;
  /** Time before its membership expires unless it heartbeats again. */
  readonly ttlMs: number;
  /**
   * Whether its digest is the current one: the registry given to status when there is one, else the digest most
   * members report. false marks a member on an old (or another) registry; null when it cannot be told.
   */
  readonly current: boolean | null;
};

const DIGEST = /^[0-9a-f]{64}$/;

/** Control characters (a terminal's escapes) replaced by '?'. */
function printable(text: string): string {
  return [...text].map((ch) => (ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127 ? '?' : ch)).join('');
}

/** The live members of the forwarder pool with their registry digests (read from Redis: untrusted, checked). */
export async function forwarderMembers(
  redis: RedisClient,
  config: Pick<FleetqConfig, 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX'>,
  registryDigest?: string,
): Promise<ForwarderMember[]> {
  const prefix = redisKeyPrefix(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX);
  const [sec, usec] = (await redis.time()) as [number | string, number | string];
  const now = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
  const scored = await redis.zrange(forwarderMembersKey(prefix), '0', '-1', 'WITHSCORES');
  const live: Array<{ holder: string; ttlMs: number }> = [];
  for (let i = 0; i + 1 < scored.length; i += 2) {
    const ttlMs = Number(scored[i + 1]) - now;
    if (ttlMs > 0) live.push({ holder: scored[i] as string, ttlMs });
  }
  if (live.length === 0) return [];
  const digests = (await redis.hmget(forwarderDigestsKey(prefix), ...live.map((m) => m.holder))).map((d) =>
    d !== null && DIGEST.test(d) ? d : null,
  );
  const counts = new Map<string, number>();
  for (const d of digests) if (d !== null) counts.set(d, (counts.get(d) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1]);
  // With no registry given, the digest most members report is taken for the current one (none on a tie).
  const reference = registryDigest ?? (top.length > 0 && top[0]?.[1] !== top[1]?.[1] ? top[0]?.[0] : undefined);
  return live.map((m, i) => {
    const digest = digests[i] ?? null;
    return {
      holder: printable(m.holder),
      digest,
      ttlMs: m.ttlMs,
      current: reference === undefined ? null : digest === reference,
    };
  });
}

export type QuarantinedCluster = {
  readonly cluster: string;
  /** Holders in a row that died while syncing it. */
  readonly deaths: number;
  /** Server ms when it was quarantined, and until when (ISO in `since` and `until`). */
  readonly sinceMs: number;
  readonly untilMs: number;
  readonly since: string;
  readonly until: string;
  /** The largest object the dead holders reported; null when none was reported (or it did not parse). */
  readonly largestObject: {
    readonly resource: string | null;
    readonly object: string | null;
    readonly bytes: number;
    readonly holder: string;
  } | null;
};

/** The clusters quarantined now (server time), and those whose record does not parse (ignored). */
export async function quarantinedClusters(
  redis: RedisClient,
  config: Pick<FleetqConfig, 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX'>,
): Promise<{ quarantined: QuarantinedCluster[]; unreadable: string[] }> {
  const prefix = redisKeyPrefix(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX);
  const [sec, usec] = (await redis.time()) as [number | string, number | string];
  const now = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
  const { records, unreadable } = await readDeathRecords(redis, prefix);
  const quarantined = [...records]
    .filter(([, r]) => isQuarantined(r, now))
    .map(([cluster, r]) => ({
      cluster: printable(cluster),
      deaths: r.deaths,
      sinceMs: r.sinceMs,
      untilMs: r.untilMs,
      since: new Date(r.sinceMs).toISOString(),
      until: new Date(r.untilMs).toISOString(),
      largestObject: r.largest
        ? {
            resource: r.largest.resource === undefined ? null : printable(r.largest.resource),
            object: r.largest.object === undefined ? null : printable(r.largest.object),
            bytes: r.largest.bytes,
            holder: printable(r.largest.holder),
          }
        : null,
    }))
    .sort((a, b) => a.cluster.localeCompare(b.cluster));
  return { quarantined, unreadable: unreadable.map(printable) };
}
