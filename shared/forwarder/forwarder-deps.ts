// Forwarder settings from the environment (beside shared/runtime/config.ts, which holds what every process
// shares), and the stores they name: where checkpoints and the event log live.
//   FORWARDER_RUN_MS        scheduled mode: how long one tick watches (default 50 000)
//   FLEETQ_RESYNC_MS        least period of the periodic resync, a safety net (default 43 200 000, 12 h; each cluster's
//                           is 1-2 × it, resync-period.ts; 0 disables): losses are met by detection
//   FLEETQ_CHECKPOINTS      redis (default) | file:<path> | memory
//   FLEETQ_EVENT_LOG        redis (default) | jsonl:<dir> | none
//   FLEETQ_EVENT_LOG_MAXLEN Redis stream entries kept per cluster (default 100 000)
//   FLEETQ_EVENT_LOG_SEGMENTS JSON-lines segments (hours) kept per cluster (default 168)
//   FLEETQ_EVENT_LOG_REDIS_URL a separate Redis for the event log (default: REDIS_URL)
//   FLEETQ_EVENT_LOG_MAX_ENTRY_BYTES larger objects are logged as a truncated stub (default 16384; 0 = no cap)
//   FLEETQ_FORWARDER_POOL   true: this forwarder is one of a pool sharing the registry's clusters under leases
//                           (forwarder-pool.ts; needs the redis driver and redis checkpoints); default false
//   FLEETQ_FORWARDER_LEASE_MS the pool's lease length (default 15 000; clusters move within about 4/3 of it)
//   FLEETQ_ADD_FOLD_MS      sqs driver: a key's adds within this window are sent as one message (default 200;
//                           0 sends each add at once). An add resolves once its folded message is sent, so the
//                           checkpoint never passes an unsent key (shared/queue/sqs/sqs-add-fold.ts)
//   FLEETQ_ADD_FOLD_MAX_KEYS  the most keys the fold holds; the add that would pass it sends them all early
//                           (default 10 000)
import { createHmac } from 'node:crypto';
import { connectRedis, type RedisClient } from '../queue/redis/redis-connection.js';
import { z } from 'zod';
import {
  FileCheckpointStore,
  MemoryCheckpointStore,
  RedisCheckpointStore,
  type CheckpointStore,
} from '../queue/history/checkpoint-store.js';
import type { EventLog } from '../queue/history/event-log.js';
import { JsonlEventLog } from '../queue/history/jsonl-event-log.js';
import { RedisStreamEventLog } from '../queue/history/redis-stream-event-log.js';
import type { RedactionPolicy } from '../queue/history/log-record.js';
import { loadRegistry } from '../kube/registry.js';
import { ConfigError, type FleetqConfig } from '../runtime/config.js';
import { redactText } from '../kube/redact-secrets.js';
import { insecureRedisUrl } from '../runtime/redis-url-policy.js';
import { ADD_FOLD_DEFAULTS, AddFoldQueue } from '../queue/sqs/sqs-add-fold.js';
import type { WorkQueue } from '../queue/work-queue.js';

const store = (name: string, kinds: readonly string[], pathKind: string) =>
  z
    .string()
    .refine((v) => kinds.includes(v) || (v.startsWith(`${pathKind}:`) && v.length > pathKind.length + 1), {
      message: `one of ${kinds.join(', ')} or ${pathKind}:<path>`,
    })
    .default(name);

const schema = z.object({
  FORWARDER_RUN_MS: z.coerce.number().int().min(1_000).default(50_000),
  FLEETQ_RESYNC_MS: z.coerce.number().int().min(0).default(43_200_000),
  FLEETQ_CHECKPOINTS: store('redis', ['redis', 'memory'], 'file'),
  FLEETQ_EVENT_LOG: store('redis', ['redis', 'none'], 'jsonl'),
  FLEETQ_EVENT_LOG_MAXLEN: z.coerce.number().int().min(0).default(100_000),
  FLEETQ_EVENT_LOG_SEGMENTS: z.coerce.number().int().min(0).default(168),
  FLEETQ_EVENT_LOG_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL')
    .optional(),
  FLEETQ_EVENT_LOG_MAX_ENTRY_BYTES: z.coerce.number().int().min(0).default(16_384),
  FLEETQ_FORWARDER_POOL: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  FLEETQ_FORWARDER_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(15_000),
  FLEETQ_ADD_FOLD_MS: z.coerce.number().int().min(0).max(5_000).default(ADD_FOLD_DEFAULTS.windowMs),
  FLEETQ_ADD_FOLD_MAX_KEYS: z.coerce.number().int().min(1).max(1_000_000).default(ADD_FOLD_DEFAULTS.maxKeys),
});

export type ForwarderConfig = z.infer<typeof schema>;

export function loadForwarderConfig(env: NodeJS.ProcessEnv): ForwarderConfig {
  const input = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (i) => `  ${i.path.join('.')}=${JSON.stringify(redactText(input[String(i.path[0])] ?? ''))}: ${i.message}`,
    );
    throw new ConfigError(`invalid forwarder configuration\n${lines.join('\n')}`);
  }
  // The event log's own Redis, under the same rule as REDIS_URL (AUTH and TLS off this machine).
  const logUrl = parsed.data.FLEETQ_EVENT_LOG_REDIS_URL;
  const insecure = logUrl === undefined ? undefined : insecureRedisUrl(logUrl, env);
  if (insecure !== undefined) {
    throw new ConfigError(`invalid forwarder configuration\n  FLEETQ_EVENT_LOG_REDIS_URL: ${insecure}`);
  }
  return parsed.data;
}

export type ForwarderStores = {
  readonly checkpoints: CheckpointStore;
  readonly eventLog?: EventLog;
  close(): Promise<void>;
};

/**
 * The event log's redaction: ConfigMap data is kept only for clusters whose registry entry opts in; env values
 * are digested with a key derived from FLEETQ_SIGNING_SECRET when it is set (log-record.ts).
 */
export function redactionPolicy(config: FleetqConfig): RedactionPolicy {
  const secret = config.FLEETQ_SIGNING_SECRET;
  const digest =
    secret === undefined
      ? {}
      : { envDigestKey: createHmac('sha256', secret).update('fleetq event-log env digest').digest('hex') };
  if (!config.FLEETQ_REGISTRY) return digest;
  const keep = new Set(
    loadRegistry(config.FLEETQ_REGISTRY)
      .filter((c) => c.eventLog?.configMapData === true)
      .map((c) => c.name),
  );
  return { ...digest, keepConfigMapData: (cluster) => keep.has(cluster) };
}

/** Builds the stores; one Redis connection serves both when both are in Redis. */
export function forwarderStores(config: FleetqConfig, fwd: ForwarderConfig): ForwarderStores {
  const prefix = `${config.FLEETQ_REDIS_PREFIX}:${config.FLEETQ_QUEUE}`;
  let redis: RedisClient | undefined;
  const tls = { tlsCaFile: config.FLEETQ_REDIS_TLS_CA };
  const client = (): RedisClient => (redis ??= connectRedis(config.REDIS_URL, tls, { maxRetriesPerRequest: 3 }));
  const logUrl = fwd.FLEETQ_EVENT_LOG_REDIS_URL;
  const logRedis =
    fwd.FLEETQ_EVENT_LOG === 'redis' && logUrl ? connectRedis(logUrl, tls, { maxRetriesPerRequest: 3 }) : undefined;
  const maxEntryBytes = fwd.FLEETQ_EVENT_LOG_MAX_ENTRY_BYTES;
  const redaction = fwd.FLEETQ_EVENT_LOG === 'none' ? {} : redactionPolicy(config);
  const checkpoints: CheckpointStore =
    fwd.FLEETQ_CHECKPOINTS === 'redis'
      ? new RedisCheckpointStore(client(), prefix)
      : fwd.FLEETQ_CHECKPOINTS === 'memory'
        ? new MemoryCheckpointStore()
        : new FileCheckpointStore(fwd.FLEETQ_CHECKPOINTS.slice('file:'.length));
  const eventLog: EventLog | undefined =
    fwd.FLEETQ_EVENT_LOG === 'none'
      ? undefined
      : fwd.FLEETQ_EVENT_LOG === 'redis'
        ? new RedisStreamEventLog({
            redis: logRedis ?? client(),
            prefix,
            maxLen: fwd.FLEETQ_EVENT_LOG_MAXLEN,
            maxEntryBytes,
            redaction,
          })
        : new JsonlEventLog({
            dir: fwd.FLEETQ_EVENT_LOG.slice('jsonl:'.length),
            maxSegments: fwd.FLEETQ_EVENT_LOG_SEGMENTS,
            maxEntryBytes,
            redaction,
          });
  return {
    checkpoints,
    ...(eventLog === undefined ? {} : { eventLog }),
    close: async () => {
      await checkpoints.close();
      await eventLog?.close();
      await redis?.quit();
      await logRedis?.quit();
    },
  };
}

/** The forwarder's queue: on the sqs driver, its adds folded per key (FLEETQ_ADD_FOLD_MS); else as it is. */
export function forwarderQueue(queue: WorkQueue, fwd: ForwarderConfig): WorkQueue {
  if (queue.driver !== 'sqs' || fwd.FLEETQ_ADD_FOLD_MS === 0) return queue;
  return new AddFoldQueue(queue, { windowMs: fwd.FLEETQ_ADD_FOLD_MS, maxKeys: fwd.FLEETQ_ADD_FOLD_MAX_KEYS });
}
