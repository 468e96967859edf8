// `fleetq forwarder unquarantine CLUSTER`: removes the cluster's death record from the queue's Redis, so a pool
// member takes it again (docs/security.md "Quarantine"). The forwarder itself runs from ../forwarder.ts main().
import { configFromFlags } from './common.js';
import { PROCESS_FLAGS } from './process-flags.js';

export async function unquarantine(cluster: string, flags: { queue?: string }): Promise<void> {
  const config = await configFromFlags(flags, PROCESS_FLAGS);
  const { connectFailFast } = await import('../../shared/queue/redis/redis-connection.js');
  const { redisKeyPrefix } = await import('../../shared/queue/redis/redis-keys.js');
  const { describeRecord, liftQuarantine } = await import('../../shared/forwarder/cluster-quarantine.js');
  const { terminalSafeJson } = await import('../../shared/ops/terminal-text.js');
  const redis = await connectFailFast(config);
  try {
    const prefix = redisKeyPrefix(config.FLEETQ_QUEUE, config.FLEETQ_REDIS_PREFIX);
    const { removed, record } = await liftQuarantine(redis, prefix, cluster);
    if (!removed) return void console.log(`${cluster}: not quarantined (no deaths recorded); nothing to lift`);
    const was = record ? describeRecord(record) : { record: 'unreadable' };
    // The record's object name comes from a cluster: printed inert.
    console.log(`${cluster}: quarantine lifted, deaths forgotten (was ${terminalSafeJson(was)})`);
  } finally {
    redis.disconnect();
  }
}
