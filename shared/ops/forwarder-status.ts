// Which forwarder holds each cluster's watch, for `fleetq status`: the pool's leases (shared/forwarder/
// forwarder-lease.ts owns the key layout; readLeaseHolders reads it). A forwarder outside a pool (FleetForwarder:
// one process watching every cluster, `fleetq run`, the scheduled Lambda) takes no lease, so it shows as none.
import type { Redis } from 'ioredis';
import { readLeaseHolders } from '../forwarder/forwarder-lease.js';
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
  redis: Redis,
  config: Pick<FleetqConfig, 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX'>,
): Promise<Map<string, ForwarderHolder>> {
  const leases = await readLeaseHolders(redis, redisKeyPrefix(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX));
  return new Map([...leases].map(([cluster, l]) => [cluster, { holder: l.holder, token: l.token, ttlMs: l.ttlMs }]));
}
