// A Lambda function's secrets, read from AWS Secrets Manager at cold start and cached for a TTL: the function's
// environment names the secret (FLEETQ_SECRET_ID: an ARN or name), never holds its value. The secret is JSON:
//   { "env":   { "REDIS_URL": "rediss://:…@…:6379", "FLEETQ_SIGNING_SECRET": "…" },
//     "files": { "fleet.yaml": "<registry>", "kubeconfigs/eu-1.yaml": "<kubeconfig>", "tokens/us-1": "…" } }
// `files` are written (mode 0600) under a directory of their own per secret version, so the registry's relative
// paths (kubeconfig, tokenFile, caFile) resolve there; FLEETQ_REGISTRY defaults to its fleet.yaml. Only the
// variables below may come from the secret. A read after the TTL that fails keeps the last value (logged by the
// caller) and is tried again on the next invocation; a cold start without it fails.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from './config.js';

/** Variables a secret may set: credentials and where they are used. */
export const SECRET_ENV_NAMES = [
  'REDIS_URL',
  'FLEETQ_EVENT_LOG_REDIS_URL',
  'FLEETQ_SIGNING_SECRET',
  'FLEETQ_SIGNING_SECRET_PREVIOUS',
  'FLEETQ_REGISTRY',
] as const;

const relativePath = z
  .string()
  .min(1)
  .refine((p) => !isAbsolute(p) && !normalize(p).startsWith('..'), 'a relative path inside the secret');

const secretSchema = z
  .object({
    env: z.partialRecord(z.enum(SECRET_ENV_NAMES), z.string().min(1)).default({}),
    files: z.record(relativePath, z.string()).default({}),
  })
  .strict();

export type SecretEnv = {
  /** Variables to lay over process.env. */
  readonly env: Readonly<Record<string, string>>;
  /** Changes whenever the secret's value does (a hash of it): dependencies built from another one are stale. */
  readonly version: string;
};

export type SecretEnvLoaderOptions = {
  readonly secretId: string;
  readonly client: Pick<SecretsManagerClient, 'send'>;
  /** How long a read value is used before the secret is read again; default 300 000 (5 min). */
  readonly ttlMs?: number;
  /** Where `files` are written; default <tmpdir>/fleetq-secrets. */
  readonly dir?: string;
  readonly now?: () => number;
  /** Told when a refresh failed and the last value is kept. */
  readonly onStale?: (err: unknown) => void;
};

export class SecretEnvLoader {
  private cached: { value: SecretEnv; readAt: number } | undefined;
  private reading: Promise<SecretEnv> | undefined;
  /** Reads of the secret made so far (tests and logs). */
  reads = 0;

  constructor(private readonly o: SecretEnvLoaderOptions) {}

  /** The secret's variables: the cached ones within the TTL, else read again. */
  async get(): Promise<SecretEnv> {
    const now = (this.o.now ?? Date.now)();
    const ttl = this.o.ttlMs ?? 300_000;
    if (this.cached && now - this.cached.readAt < ttl) return this.cached.value;
    this.reading ??= this.read(now).finally(() => (this.reading = undefined));
    try {
      return await this.reading;
    } catch (err) {
      if (!this.cached) throw err;
      this.o.onStale?.(err);
      return this.cached.value;
    }
  }

  private async read(now: number): Promise<SecretEnv> {
    this.reads++;
    const out = await this.o.client.send(new GetSecretValueCommand({ SecretId: this.o.secretId }));
    if (out.SecretString === undefined) throw new ConfigError(`secret ${this.o.secretId} has no SecretString`);
    let raw: unknown;
    try {
      raw = JSON.parse(out.SecretString);
    } catch {
      throw new ConfigError(`secret ${this.o.secretId} is not JSON`);
    }
    const parsed = secretSchema.safeParse(raw);
    if (!parsed.success) {
      const fields = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new ConfigError(`secret ${this.o.secretId}: ${fields}`);
    }
    const version = createHash('sha256').update(out.SecretString).digest('hex').slice(0, 16);
    const env: Record<string, string> = { ...parsed.data.env };
    const files = Object.entries(parsed.data.files);
    if (files.length > 0) {
      const base = this.o.dir ?? join(tmpdir(), 'fleetq-secrets');
      const dir = join(base, version);
      await rm(base, { recursive: true, force: true });
      for (const [path, content] of files) {
        const file = join(dir, path);
        await mkdir(dirname(file), { recursive: true, mode: 0o700 });
        await writeFile(file, content, { mode: 0o600 });
      }
      const registry =
        env.FLEETQ_REGISTRY ?? (parsed.data.files['fleet.yaml'] === undefined ? undefined : 'fleet.yaml');
      if (registry !== undefined) env.FLEETQ_REGISTRY = resolve(dir, registry);
    }
    const value = { env, version };
    this.cached = { value, readAt: now };
    return value;
  }
}

/** The loader FLEETQ_SECRET_ID names (SECRETS_ENDPOINT: another endpoint, e.g. a test server); none without it. */
export function secretEnvLoader(
  env: NodeJS.ProcessEnv,
  o: Pick<SecretEnvLoaderOptions, 'onStale' | 'dir'> = {},
): SecretEnvLoader | undefined {
  const secretId = env.FLEETQ_SECRET_ID;
  if (secretId === undefined || secretId === '') return undefined;
  const ttl = Number(env.FLEETQ_SECRET_TTL_MS ?? 300_000);
  if (!Number.isInteger(ttl) || ttl < 0) throw new ConfigError(`FLEETQ_SECRET_TTL_MS=${env.FLEETQ_SECRET_TTL_MS}`);
  const client = new SecretsManagerClient({
    region: env.AWS_REGION ?? 'us-east-1',
    // Another endpoint (a test server) takes the keys of `env`; on AWS the default chain (the role's credentials).
    ...(env.SECRETS_ENDPOINT
      ? {
          endpoint: env.SECRETS_ENDPOINT,
          credentials: {
            accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'local',
            secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'local',
          },
        }
      : {}),
  });
  return new SecretEnvLoader({ secretId, client, ttlMs: ttl, ...o });
}
