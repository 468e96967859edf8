// Process configuration from the environment, validated once; a bad value names its variable.
import { z } from 'zod';

const intVar = (min: number) => z.coerce.number().int().min(min);

const schema = z.object({
  FLEETQ_REGISTRY: z.string().min(1).optional(),
  FLEETQ_DRIVER: z.enum(['memory', 'bullmq', 'sqs']).default('memory'),
  FLEETQ_QUEUE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,60}$/, 'letters, digits, - and _ only (at most 60)')
    .default('fleetq'),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  FLEETQ_REDIS_PREFIX: z.string().min(1).default('fleetq'),
  SQS_ENDPOINT: z.url().optional(),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  FLEETQ_CONCURRENCY: intVar(1).default(8),
  FLEETQ_LEASE_MS: intVar(1_000).default(30_000),
  /** HMAC-SHA256 secret for queue messages (every driver signs on add and checks on get); unset: unsigned. */
  FLEETQ_SIGNING_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /** CA file (PEM) for rediss:// connections to a server whose certificate is not publicly trusted. */
  FLEETQ_REDIS_TLS_CA: z.string().min(1).optional(),
  /** How often the Redis data-loss marker is checked (ms). */
  FLEETQ_REDIS_LOSS_CHECK_MS: intVar(100).default(2_000),
  FLEETQ_METRICS_PORT: intVar(0).optional(),
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
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (i) => `  ${i.path.join('.')}=${JSON.stringify(input[String(i.path[0])])}: ${i.message}`,
    );
    throw new ConfigError(`invalid configuration\n${lines.join('\n')}`);
  }
  return parsed.data;
}
