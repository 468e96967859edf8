// Which forwarder holds each cluster's watch, for `fleetq status`. The forwarder pool's lease module
// (shared/forwarder/forwarder-lease.ts) owns the key layout; until it lands, no holder is known ('-').
import type { Redis } from 'ioredis';
import type { FleetqConfig } from '../runtime/config.js';

/** cluster → the forwarder holding its lease; clusters whose lease is free are absent. */
export async function forwarderHolders(
  _redis: Redis,
  _config: Pick<FleetqConfig, 'FLEETQ_QUEUE' | 'FLEETQ_REDIS_PREFIX'>,
): Promise<Map<string, string>> {
  return new Map();
}
