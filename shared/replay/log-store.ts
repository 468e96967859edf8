// The event log store a command reads or writes: `redis` (the live streams the forwarder writes, under the queue's
// prefix, in FLEETQ_EVENT_LOG_REDIS_URL or REDIS_URL), `redis:<name>` (a named log that `fleetq log import --into
// <name>` wrote, under `<prefix>:import:<name>`: never read by the forwarder, `fleetq status` or live requeues) or
// `jsonl:<dir>` (JSON-lines segments; an import into <name> goes to `<dir>/_imports/<name>`, a directory no
// cluster can be named). Default: the forwarder's own setting, FLEETQ_EVENT_LOG. Opened with no retention: a
// command never trims a log.
import { join } from 'node:path';
import type { EventLog, LoggedEvent } from '../queue/history/event-log.js';
import { JsonlEventLog } from '../queue/history/jsonl-event-log.js';
import { RedisStreamEventLog } from '../queue/history/redis-stream-event-log.js';
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { connectRedis } from '../queue/redis/redis-connection.js';
import type { FleetqConfig } from '../runtime/config.js';
import {
  JsonlImportTransaction,
  jsonlClusters,
  RedisImportTransaction,
  redisClusters,
  type ImportTransaction,
} from './import-transaction.js';

export type LogStore = EventLog & {
  readonly spec: string;
  /** Appends records kept elsewhere, by their observedAt, as they come (no transaction: see beginImport). */
  importRecords(cluster: string, records: readonly LoggedEvent[]): Promise<number>;
  /** An import that puts all its records in place at commit, or none (import-transaction.ts). */
  beginImport(o: { readonly replace: boolean }): ImportTransaction;
  /** The clusters this store holds records of, sorted. */
  clusters(): Promise<string[]>;
};

/** The name of the live log in `--into`: an import goes there only when asked for by this name. */
export const LIVE_LOG = 'live';
const LOG_NAME = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;

/** `name` when it may name an imported log (lowercase letters, digits and '-', at most 40); else throws. */
export function checkLogName(name: string): string {
  if (!LOG_NAME.test(name)) {
    throw new Error(
      `log name ${JSON.stringify(name.slice(0, 80))}: lowercase letters, digits and '-', at most 40 (e.g. incident-42)`,
    );
  }
  return name;
}

/**
 * The store an import into `into` writes: the named log of `spec`'s kind, or with `into` = live the store itself
 * (the live streams when spec is `redis` or the forwarder's directory).
 */
export function importStoreSpec(spec: string, into: string): string {
  if (into === LIVE_LOG) return spec;
  checkLogName(into);
  if (spec === 'redis') return `redis:${into}`;
  if (spec.startsWith('jsonl:') && spec.length > 'jsonl:'.length) {
    return `jsonl:${join(spec.slice('jsonl:'.length), '_imports', into)}`;
  }
  throw new Error(
    `event log store ${JSON.stringify(spec)}: an import takes --store redis or jsonl:<dir>, and --into <name>`,
  );
}

/** The Redis URL a `redis` or `redis:NAME` store reads: FLEETQ_EVENT_LOG_REDIS_URL, else the queue's REDIS_URL. */
export function logStoreRedisUrl(config: FleetqConfig, env: NodeJS.ProcessEnv = process.env): string {
  return env.FLEETQ_EVENT_LOG_REDIS_URL || config.REDIS_URL;
}

/** Whether `spec` names a store in Redis (`redis`, `redis:NAME`). */
export const isRedisLogStore = (spec: string): boolean => spec === 'redis' || spec.startsWith('redis:');

/**
 * The store `spec` names. A Redis store uses `connected` when given (the command line passes a client that failed
 * fast if Redis did not answer: functions/cli/replay-common.ts), and owns it either way.
 */
export function openLogStore(
  spec: string,
  config: FleetqConfig,
  env: NodeJS.ProcessEnv = process.env,
  connected?: RedisClient,
): LogStore {
  if (isRedisLogStore(spec)) {
    const name = spec === 'redis' ? undefined : checkLogName(spec.slice('redis:'.length));
    const live = `${config.FLEETQ_REDIS_PREFIX}:${config.FLEETQ_QUEUE}`;
    const prefix = name === undefined ? live : `${live}:import:${name}`;
    const redis =
      connected ??
      connectRedis(
        logStoreRedisUrl(config, env),
        { tlsCaFile: config.FLEETQ_REDIS_TLS_CA },
        { maxRetriesPerRequest: 3 },
      );
    const log = new RedisStreamEventLog({ redis, prefix, maxLen: 0, maxEntryBytes: 0, ownsClient: true });
    return Object.assign(log, {
      spec,
      beginImport: (o: { readonly replace: boolean }) => new RedisImportTransaction(redis, prefix, spec, o.replace),
      clusters: () => redisClusters(redis, prefix),
    });
  }
  if (spec.startsWith('jsonl:') && spec.length > 'jsonl:'.length) {
    const dir = spec.slice('jsonl:'.length);
    const log = new JsonlEventLog({ dir, maxSegments: 0, maxEntryBytes: 0 });
    return Object.assign(log, {
      spec,
      importRecords: async (cluster: string, records: readonly LoggedEvent[]) => {
        await log.append(cluster, records);
        return records.length;
      },
      beginImport: (o: { readonly replace: boolean }) => new JsonlImportTransaction(dir, spec, o.replace),
      clusters: () => jsonlClusters(dir),
    });
  }
  throw new Error(`event log store ${JSON.stringify(spec)}: redis, redis:<imported log name> or jsonl:<dir>`);
}
