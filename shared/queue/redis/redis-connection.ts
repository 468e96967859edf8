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

/** Thrown by connectFailFast: the Redis at the (redacted) URL did not answer. */
export class RedisUnreachableError extends Error {
  override name = 'RedisUnreachableError';
}

/**
 * A connected client for a command-line tool (`fleetq status`, `fleetq forwarder unquarantine`): one connection
 * attempt within `connectTimeoutMs` (default 5 000), no reconnecting, commands not retried, so a tool never waits
 * forever on a Redis that is down. Throws RedisUnreachableError naming the URL (its password redacted) and why.
 */
export async function connectFailFast(target: RedisTarget, connectTimeoutMs = 5_000): Promise<Redis> {
  const redis = connectRedis(
    target.REDIS_URL,
    { tlsCaFile: target.FLEETQ_REDIS_TLS_CA },
    { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: connectTimeoutMs, retryStrategy: () => null },
  );
  // Errors after the connect (a dropped connection) fail the command in flight; the event itself is not news.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return redis;
  } catch (err) {
    redis.disconnect();
    const why = err instanceof Error ? err.message : String(err);
    throw new RedisUnreachableError(`Redis at ${redactedUrl(target.REDIS_URL)} is not reachable: ${why}`, {
      cause: err,
    });
  }
}

/** The URL without its password (or a password query parameter), for messages and logs. */
export function redactedUrl(url: string): string {
  return redactUrl(url);
}
