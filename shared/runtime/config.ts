// Process configuration from the environment, validated once; a bad value names its variable.
import { z } from 'zod';
import { redactText } from '../kube/redact-secrets.js';
import { insecureRedisUrl } from './redis-url-policy.js';

const intVar = (min: number) => z.coerce.number().int().min(min);
/** A queue URL as SQS (or an emulator: `http://sqs.us-east-1.127.0.0.1:4566/…`, not a valid host name) gives it. */
const queueUrl = z
  .string()
  .regex(/^https?:\/\/[^/\s]+\/\S+$/, 'an SQS queue URL (http(s)://host/account/name)')
  .optional();

const schema = z.object({
  FLEETQ_REGISTRY: z.string().min(1).optional(),
  FLEETQ_DRIVER: z
    .enum(['memory', 'redis', 'sqs'], {
      // The Redis driver was once configured as `bullmq`, a library it never used: say so rather than only refuse.
      error: (issue) =>
        issue.input === 'bullmq' ? "'bullmq' is now 'redis' (the same driver, renamed)" : 'memory, redis or sqs',
    })
    .default('memory'),
  FLEETQ_QUEUE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,60}$/, 'letters, digits, - and _ only (at most 60)')
    .default('fleetq'),
  /**
   * Queue shards on the redis driver (shared/queue/queue-shards.ts): the queue is N queues, `FLEETQ_QUEUE` and
   * `FLEETQ_QUEUE-s2`..`-sN`, each its own hash tag (so its own Redis Cluster slot), a cluster's keys in one of them
   * by a hash of its name; workers take from all N. 1 (default): the one queue of before. The memory and sqs
   * drivers keep one queue.
   */
  FLEETQ_QUEUE_SHARDS: intVar(1).max(64).default(1),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  FLEETQ_REDIS_PREFIX: z.string().min(1).default('fleetq'),
  SQS_ENDPOINT: z.url().optional(),
  /**
   * The stack's queues (serverless.yml sets them): the FIFO work queue, the delay queue and the dead-letter
   * queue, used as given and never created. Without them a process on the sqs driver creates `<queue>.fifo`,
   * `<queue>-delay` and `<queue>-dlq`; in Lambda they are required.
   */
  SQS_WORK_URL: queueUrl,
  SQS_DELAY_URL: queueUrl,
  SQS_DEAD_URL: queueUrl,
  AWS_REGION: z.string().min(1).default('us-east-1'),
  FLEETQ_CONCURRENCY: intVar(1).default(8),
  /** How often a worker re-reads the registry file (ms); a key of an unknown cluster also triggers a re-read. */
  FLEETQ_REGISTRY_CHECK_MS: intVar(0).default(5_000),
  /**
   * How long a key of a cluster the registry does not know waits (retried with its backoff) for a registry
   * reload before it is dead-lettered (ms). 0: dead-lettered at once.
   */
  FLEETQ_UNKNOWN_CLUSTER_WAIT_MS: intVar(0).default(300_000),
  FLEETQ_LEASE_MS: intVar(1_000).default(30_000),
  /**
   * A worker forgets what it keeps per cluster (clients and their connection pool, API budget buckets, event
   * recorder, cache store) once no key of that cluster ran for this long (ms), and builds it again at the next
   * one (kube/idle-expiry.ts). 0: kept for the life of the process.
   */
  FLEETQ_CLUSTER_IDLE_MS: intVar(0).default(600_000),
  /** HMAC-SHA256 secret for queue messages (every driver signs on add and checks on get); unset: unsigned. */
  FLEETQ_SIGNING_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /**
   * The previous signing secret during a rotation window: messages it signed still verify, nothing new is signed
   * with it (docs/operations/signing-key-rotation.md). Needs FLEETQ_SIGNING_SECRET.
   */
  FLEETQ_SIGNING_SECRET_PREVIOUS: z.string().min(16, 'at least 16 characters').optional(),
  /** CA file (PEM) for rediss:// connections to a server whose certificate is not publicly trusted. */
  FLEETQ_REDIS_TLS_CA: z.string().min(1).optional(),
  /** How often the Redis data-loss marker is checked (ms). */
  FLEETQ_REDIS_LOSS_CHECK_MS: intVar(100).default(2_000),
  /**
   * Where the API budget (registry limits: qps/burst per controller and cluster, clusterQps/clusterBurst) is kept:
   * `redis` (token buckets shared by every process of the queue) or `process` (buckets per process). Default: `process` for the
   * memory driver, `redis` for the redis and sqs drivers (see apiBudgetMode in clients.ts).
   */
  FLEETQ_API_BUDGET: z.enum(['redis', 'process']).optional(),
  /**
   * While the Redis API budget does not answer, each process takes qps/N and burst/N of a cluster's budget: N
   * the processes Redis last counted taking from it, or this many when the process does not know (it never
   * reached Redis, or its count is older than a minute). See kube/redis-token-bucket.ts.
   */
  FLEETQ_API_BUDGET_FALLBACK_TAKERS: intVar(1).default(10),
  /**
   * Where handlers read cluster state: `cache` (the forwarder's materialized objects, with read-your-writes;
   * in-process for `fleetq run`, in the queue's Redis otherwise) or `live` (every read from the apiserver).
   * A standalone forwarder fills the Redis cache when this is `cache`. A standalone worker on the memory driver
   * has no forwarder to share a cache with, and reads live. Default: see readsMode().
   */
  FLEETQ_READS: z.enum(['live', 'cache']).optional(),
  /**
   * Forwarder pool: a cluster whose holders die this many times in a row while syncing it is quarantined (taken
   * by no member) for FLEETQ_FORWARDER_QUARANTINE_MS (at most 7 days); `fleetq forwarder unquarantine` lifts it.
   */
  FLEETQ_FORWARDER_QUARANTINE_DEATHS: intVar(1).default(3),
  FLEETQ_FORWARDER_QUARANTINE_MS: intVar(1_000).max(604_800_000).default(3_600_000),
  FLEETQ_METRICS_PORT: intVar(0).optional(),
  /** The address the metrics server binds: 127.0.0.1 by default; 0.0.0.0 (or the Pod IP) to be scraped in a Pod. */
  FLEETQ_METRICS_HOST: z.union([z.ipv4(), z.ipv6(), z.literal('localhost')]).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});

export type FleetqConfig = z.infer<typeof schema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(
  env: NodeJS.ProcessEnv,
  overrides: Partial<Record<keyof FleetqConfig, string>> = {},
): FleetqConfig {
  const input: Record<string, string | undefined> = {};
  for (const k of Object.keys(schema.shape))
    input[k] = overrides[k as keyof FleetqConfig] ?? (env[k] === '' ? undefined : env[k]);
  const parsed = schema
    .superRefine((c, ctx) => {
      const urls = [c.SQS_WORK_URL, c.SQS_DELAY_URL, c.SQS_DEAD_URL].filter((u) => u !== undefined);
      if (urls.length !== 0 && urls.length !== 3) {
        ctx.addIssue({
          code: 'custom',
          path: ['SQS_WORK_URL'],
          message: 'SQS_WORK_URL, SQS_DELAY_URL and SQS_DEAD_URL go together (the stack gives all three)',
        });
      }
      if (c.FLEETQ_SIGNING_SECRET_PREVIOUS !== undefined && c.FLEETQ_SIGNING_SECRET === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['FLEETQ_SIGNING_SECRET_PREVIOUS'],
          message: 'needs FLEETQ_SIGNING_SECRET (the new secret that signs); the previous one only verifies',
        });
      }
      if (c.FLEETQ_QUEUE_SHARDS > 1 && c.FLEETQ_DRIVER !== 'redis') {
        ctx.addIssue({
          code: 'custom',
          path: ['FLEETQ_QUEUE_SHARDS'],
          message: `only the redis driver shards its queue; the ${c.FLEETQ_DRIVER} driver keeps one (set 1 or unset)`,
        });
      }
      // A Redis off this machine only with AUTH and TLS, unless FLEETQ_ALLOW_INSECURE_REDIS=1 (redis-url-policy.ts).
      const insecure = insecureRedisUrl(c.REDIS_URL, env);
      if (insecure !== undefined) ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: insecure });
      if (!isLambda(env)) return;
      // In Lambda the stack creates or is given everything: no queue is created at run time, and no state
      // falls back to a Redis on 127.0.0.1 that is not there.
      if (c.FLEETQ_DRIVER === 'sqs' && urls.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['SQS_WORK_URL'],
          message: "required in Lambda: the URL of the stack's work queue (queues are never created at run time)",
        });
      }
      if (input.REDIS_URL === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['REDIS_URL'],
          message:
            "required in Lambda (from the function's secret, FLEETQ_SECRET_ID): checkpoints, event log, API budget",
        });
      }
    })
    .safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (i) =>
        `  ${i.path.join('.')}=${JSON.stringify(redact(String(i.path[0]), input[String(i.path[0])]))}: ${i.message}`,
    );
    throw new ConfigError(`invalid configuration\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Running as an AWS Lambda function (set by Lambda, and by `osls invoke local`). */
export function isLambda(env: NodeJS.ProcessEnv): boolean {
  return (env.AWS_LAMBDA_FUNCTION_NAME ?? '') !== '';
}

/** A value fit for an error message: a secret is not repeated, credentials in a URL are hidden. */
function redact(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return value;
  if (name === 'FLEETQ_SIGNING_SECRET' || name === 'FLEETQ_SIGNING_SECRET_PREVIOUS') return '***';
  return redactText(value);
}

/**
 * Where handlers read: FLEETQ_READS, else `cache` for the memory and redis drivers and `live` for sqs. The SQS
 * deployment (the Lambda stack) has no shared store for a cache yet: SQS stays on live reads until the Lambda
 * stack decides where its state lives. Split workers on SQS with a Redis can set FLEETQ_READS=cache.
 */
export function readsMode(config: Pick<FleetqConfig, 'FLEETQ_READS' | 'FLEETQ_DRIVER'>): 'live' | 'cache' {
  return config.FLEETQ_READS ?? (config.FLEETQ_DRIVER === 'sqs' ? 'live' : 'cache');
}

/** The queue's signing options from the config: the secret that signs and, in a rotation window, the previous one. */
export function signingOptions(config: FleetqConfig): { signingSecret?: string; signingSecretPrevious?: string } {
  if (config.FLEETQ_SIGNING_SECRET === undefined) return {};
  return {
    signingSecret: config.FLEETQ_SIGNING_SECRET,
    ...(config.FLEETQ_SIGNING_SECRET_PREVIOUS !== undefined && {
      signingSecretPrevious: config.FLEETQ_SIGNING_SECRET_PREVIOUS,
    }),
  };
}
