// Every Redis connection fleetq opens (queue, checkpoints, event log, loss watcher) is built here, so TLS
// and AUTH work the same for all of them:
// - AUTH: the URL's password (redis://:secret@host:6379) or ACL user (redis://user:secret@host:6379).
// - TLS: a rediss:// URL; tlsCaFile (FLEETQ_REDIS_TLS_CA) adds a CA for a server whose certificate is not
//   publicly trusted. Explicit options win over what ioredis parses from the URL, so `tls.ca` is kept.
import { readFileSync } from 'node:fs';
import { Redis, type RedisOptions } from 'ioredis';
import { redactUrl } from '../../kube/redact-secrets.js';

export type RedisConnectionOptions = {
  /** PEM file of the CA that signed the server's certificate (rediss:// only). */
  readonly tlsCaFile?: string | undefined;
};

/** ioredis options for `url`: TLS with the given CA when the URL is rediss://. */
export function redisOptionsFor(url: string, o: RedisConnectionOptions = {}): RedisOptions {
  const tls = url.startsWith('rediss://');
  if (!tls && o.tlsCaFile !== undefined) {
    throw new Error(`a Redis TLS CA file is set but ${redactedUrl(url)} is not a rediss:// URL`);
  }
  if (!tls) return {};
  return { tls: o.tlsCaFile === undefined ? {} : { ca: readFileSync(o.tlsCaFile) } };
}

/** A client for `url` (with `extra` options, e.g. maxRetriesPerRequest) honouring TLS and AUTH. */
export function connectRedis(url: string, o: RedisConnectionOptions = {}, extra: RedisOptions = {}): Redis {
  return new Redis(url, { ...extra, ...redisOptionsFor(url, o) });
}

/** Where a command-line tool's Redis is: the URL and its CA (FleetqConfig has both). */
export type RedisTarget = {
  readonly REDIS_URL: string;
  readonly FLEETQ_REDIS_TLS_CA?: string | undefined;
};

/** Thrown by connectFailFast: the Redis at the (redacted) URL did not answer; the message says what to do. */
export class RedisUnreachableError extends Error {
  override name = 'RedisUnreachableError';
}

/**
 * A connected client for a command-line tool (`fleetq status`, `fleetq dlq`, `fleetq describe`, `fleetq forwarder
 * unquarantine`): one connection attempt within `connectTimeoutMs` (default 5 000), no reconnecting, commands not
 * retried, so a tool never waits forever on a Redis that is down. Long-running processes (workers, forwarders)
 * connect with connectRedis instead: they must outlive a Redis restart. Throws RedisUnreachableError:
 * `cannot reach Redis at redis://127.0.0.1:6399 (ECONNREFUSED): start it or set REDIS_URL`, the password redacted.
 */
export async function connectFailFast(target: RedisTarget, connectTimeoutMs = 5_000): Promise<Redis> {
  const redis = connectRedis(
    target.REDIS_URL,
    { tlsCaFile: target.FLEETQ_REDIS_TLS_CA },
    { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: connectTimeoutMs, retryStrategy: () => null },
  );
  // ioredis rejects connect() with "Connection is closed." once it gives up; the first error event says why.
  let firstError: unknown;
  redis.on('error', (err: unknown) => void (firstError ??= err));
  try {
    await redis.connect();
    return redis;
  } catch (err) {
    redis.disconnect();
    throw new RedisUnreachableError(unreachableMessage(target.REDIS_URL, firstError ?? err), { cause: err });
  }
}

/** What a tool says when Redis does not answer: where (no password), why in one word, and what to do. */
export function unreachableMessage(url: string, err: unknown): string {
  return `cannot reach Redis at ${redactedUrl(url)} (${reasonOf(err)}): start it or set REDIS_URL`;
}

/** ECONNREFUSED, ENOTFOUND, ETIMEDOUT, ...; the first line of the message when the error has no code. */
function reasonOf(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code !== '') return code;
  const message = err instanceof Error ? err.message : String(err);
  return /timeout/i.test(message) ? 'ETIMEDOUT' : (message.split('\n')[0] ?? '').slice(0, 200);
}

/** The URL without its password (or a password query parameter), for messages and logs. */
export function redactedUrl(url: string): string {
  return redactUrl(url);
}
