// The event log store a command reads or writes: `redis` (the stream the forwarder writes, under the queue's
// prefix, in FLEETQ_EVENT_LOG_REDIS_URL or REDIS_URL) or `jsonl:<dir>` (JSON-lines segments). Default: the
// forwarder's own setting, FLEETQ_EVENT_LOG. Opened with no retention: a command never trims a log.
import type { EventLog, LoggedEvent } from '../queue/history/event-log.js';
import { JsonlEventLog } from '../queue/history/jsonl-event-log.js';
import { RedisStreamEventLog } from '../queue/history/redis-stream-event-log.js';
import { connectRedis } from '../queue/redis/redis-connection.js';
import type { FleetqConfig } from '../runtime/config.js';

export type LogStore = EventLog & {
  readonly spec: string;
  /** Appends records kept elsewhere (import), by their observedAt. */
  importRecords(cluster: string, records: readonly LoggedEvent[]): Promise<number>;
};

export function openLogStore(spec: string, config: FleetqConfig, env: NodeJS.ProcessEnv = process.env): LogStore {
  if (spec === 'redis') {
    const url = env.FLEETQ_EVENT_LOG_REDIS_URL || config.REDIS_URL;
    const log = new RedisStreamEventLog({
      redis: connectRedis(url, { tlsCaFile: config.FLEETQ_REDIS_TLS_CA }, { maxRetriesPerRequest: 3 }),
      prefix: `${config.FLEETQ_REDIS_PREFIX}:${config.FLEETQ_QUEUE}`,
      maxLen: 0,
      maxEntryBytes: 0,
      ownsClient: true,
    });
    return Object.assign(log, { spec });
  }
  if (spec.startsWith('jsonl:') && spec.length > 'jsonl:'.length) {
    const log = new JsonlEventLog({ dir: spec.slice('jsonl:'.length), maxSegments: 0, maxEntryBytes: 0 });
    return Object.assign(log, {
      spec,
      importRecords: async (cluster: string, records: readonly LoggedEvent[]) => {
        await log.append(cluster, records);
        return records.length;
      },
    });
  }
  throw new Error(`event log store ${JSON.stringify(spec)}: redis or jsonl:<dir>`);
}
