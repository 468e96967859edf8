// Every Redis connection fleetq opens (queue, checkpoints, event log, loss watcher) is built here, so TLS,
// AUTH and Redis Cluster work the same for all of them:
// - AUTH: the URL's password (redis://:secret@host:6379) or ACL user (redis://user:secret@host:6379).
// - TLS: a rediss:// URL; tlsCaFile (FLEETQ_REDIS_TLS_CA) adds a CA for a server whose certificate is not
//   publicly trusted. Explicit options win over what ioredis parses from the URL, so `tls.ca` is kept.
// - Redis Cluster (ElastiCache cluster mode, Valkey, Redis Enterprise's cluster API): the client is an ioredis
//   Cluster when the URL names several seed nodes, comma-separated in the host part
//   (`redis://:secret@h1:7000,h2:7001,h3:7002`, each `host:port`, the port defaulting to 6379), or when
//   FLEETQ_REDIS_CLUSTER=true (or the `cluster` option) says so for a one-seed URL (an ElastiCache configuration
//   endpoint). The seeds' user, password and TLS go to every node through Cluster's `redisOptions`. A Cluster has
//   one database, so a URL naming another (`/2`) is refused. Callers that need a node (SCAN, INFO) use
//   masterNodes and isCluster below; every multi-key command and script keeps its keys in one hash slot.
import { readFileSync } from 'node:fs';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { redactUrl } from '../../kube/redact-secrets.js';

/** A fleetq Redis client: one node, or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

export type RedisConnectionOptions = {
  /** PEM file of the CA that signed the server's certificate (rediss:// only). */
  readonly tlsCaFile?: string | undefined;
  /**
   * Connect as a Redis Cluster client even when the URL names one seed. Default: FLEETQ_REDIS_CLUSTER=true, or
   * a URL naming several seeds.
   */
  readonly cluster?: boolean | undefined;
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

/** Whether FLEETQ_REDIS_CLUSTER asks for a Cluster client (`true`/`1`; anything else, or unset, does not). */
export function clusterFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env['FLEETQ_REDIS_CLUSTER']?.trim().toLowerCase();
  return v === 'true' || v === '1';
}

/** What a Redis URL names: its seed nodes (one or more) and the user, password and database. */
export type ParsedRedisUrl = {
  readonly tls: boolean;
  readonly seeds: readonly { readonly host: string; readonly port: number }[];
  readonly username?: string;
  readonly password?: string;
  readonly db: number;
};

/**
 * Parses `redis[s]://[user[:password]@]host[:port][,host[:port]...][/db]`. IPv6 hosts go in brackets
 * (`[::1]:7000`). Throws on anything else, the password never in the message.
 */
export function parseRedisUrl(url: string): ParsedRedisUrl {
  const m = /^(rediss?):\/\/(?:([^@/]*)@)?([^/?#]+)(?:\/(\d*))?(?:[?#].*)?$/.exec(url);
  if (!m) throw new Error(`not a Redis URL: ${redactedUrl(url)}`);
  const [, scheme, auth, hostPart, dbText] = m as unknown as [string, string, string | undefined, string, string?];
  const seeds = hostPart.split(',').map((seed) => {
    const s = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(seed.trim());
    const port = s?.[2] === undefined ? 6379 : Number(s[2]);
    if (!s || port < 1 || port > 65535)
      throw new Error(`bad Redis seed ${JSON.stringify(seed)} in ${redactedUrl(url)}`);
    return { host: (s[1] as string).replace(/^\[(.*)\]$/, '$1'), port };
  });
  let username: string | undefined;
  let password: string | undefined;
  if (auth !== undefined) {
    const colon = auth.indexOf(':');
    const user = decodeURIComponent(colon < 0 ? auth : auth.slice(0, colon));
    if (colon >= 0) password = decodeURIComponent(auth.slice(colon + 1));
    else if (user !== '') password = user; // ioredis reads redis://secret@host as a password
    if (colon >= 0 && user !== '') username = user;
  }
  return {
    tls: scheme === 'rediss',
    seeds,
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
    db: dbText === undefined || dbText === '' ? 0 : Number(dbText),
  };
}

/** Whether `url` and `o` call for a Cluster client: several seeds, the option, or FLEETQ_REDIS_CLUSTER. */
export function wantsCluster(url: string, o: RedisConnectionOptions = {}): boolean {
  if (o.cluster !== undefined) return o.cluster || url.includes(',');
  return url.includes(',') || clusterFromEnv();
}

/** Cluster-level options among `extra`; the rest are each node connection's (Cluster's redisOptions). */
const CLUSTER_LEVEL = ['lazyConnect', 'enableOfflineQueue', 'enableAutoPipelining', 'enableReadyCheck'] as const;

/** A Redis Cluster client for the seeds in `url`, each node connection with `extra`, TLS and AUTH. */
export function connectCluster(url: string, o: RedisConnectionOptions = {}, extra: RedisOptions = {}): Cluster {
  const parsed = parseRedisUrl(url);
  if (parsed.db !== 0)
    throw new Error(`a Redis Cluster has only database 0, but ${redactedUrl(url)} names ${parsed.db}`);
  const { retryStrategy, ...rest } = extra;
  const clusterLevel: ClusterOptions = {};
  const nodeOptions: Record<string, unknown> = { ...rest };
  for (const k of CLUSTER_LEVEL) {
    if (k in nodeOptions) {
      (clusterLevel as Record<string, unknown>)[k] = nodeOptions[k];
      delete nodeOptions[k];
    }
  }
  return new Cluster(
    parsed.seeds.map((s) => ({ host: s.host, port: s.port })),
    {
      ...clusterLevel,
      // No reconnecting wanted (connectFailFast): give up on the seeds at once as well.
      ...(typeof retryStrategy === 'function' && {
        clusterRetryStrategy: (times: number) => retryStrategy(times) ?? null,
      }),
      // With TLS, connect to the names the cluster announces as they are, so certificates for them verify
      // (ElastiCache announces host names; a resolved IP would not match the certificate).
      ...(parsed.tls && {
        dnsLookup: (address: string, done: (err: null, address: string) => void) => done(null, address),
      }),
      redisOptions: {
        ...(nodeOptions as ClusterOptions['redisOptions']),
        ...(parsed.username !== undefined && { username: parsed.username }),
        ...(parsed.password !== undefined && { password: parsed.password }),
        ...connectionTls(url, o, extra),
      },
    },
  );
}

/** redisOptionsFor, but a `tls` the caller gave in `extra` (RedisQueue's redisOptions) wins over the URL's. */
function connectionTls(url: string, o: RedisConnectionOptions, extra: RedisOptions): RedisOptions {
  const fromUrl = redisOptionsFor(url, o);
  return extra.tls !== undefined && fromUrl.tls !== undefined ? { ...fromUrl, tls: extra.tls } : fromUrl;
}

/**
 * A client for `url` (with `extra` options, e.g. maxRetriesPerRequest) honouring TLS and AUTH: a Cluster client
 * when wantsCluster says so, else one node's.
 */
export function connectRedis(url: string, o: RedisConnectionOptions = {}, extra: RedisOptions = {}): RedisClient {
  if (wantsCluster(url, o)) return connectCluster(url, o, extra);
  return new Redis(url, { ...extra, ...connectionTls(url, o, extra) });
}

/**
 * Lets the process exit while `client` is connected (its sockets, each node's for a Cluster, are unref'd as they
 * connect): for a client that must never be what keeps a process alive.
 */
export function unrefSockets(client: RedisClient): void {
  const unref = (node: Redis): void => {
    node.on('connect', () => node.stream.unref());
  };
  if (isCluster(client)) client.on('+node', unref);
  else unref(client);
}

/** Whether `client` is a Cluster client. */
export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}

/** A RedisClient (a Redis or a Cluster): `value instanceof` either. */
export function isRedisClient(value: unknown): value is RedisClient {
  return value instanceof Redis || value instanceof Cluster;
}

/**
 * The nodes that hold the data: the client itself, or each master of a Cluster (as the client last saw the
 * cluster: call after the client is ready). Node-local commands (SCAN, INFO) run on each of these.
 */
export function masterNodes(client: RedisClient): Redis[] {
  return isCluster(client) ? client.nodes('master') : [client];
}

/**
 * A new connection like `client`'s (same nodes, options and AUTH) with `override` options, for a connection of
 * its own (a blocking BLPOP must not hold up the shared one).
 */
export function duplicateClient(client: RedisClient, override: Partial<RedisOptions> = {}): RedisClient {
  if (!isCluster(client)) return client.duplicate(override);
  const clusterLevel: ClusterOptions = {};
  const nodeOptions: Record<string, unknown> = { ...override };
  for (const k of CLUSTER_LEVEL) {
    if (k in nodeOptions) {
      (clusterLevel as Record<string, unknown>)[k] = nodeOptions[k];
      delete nodeOptions[k];
    }
  }
  return client.duplicate(undefined, {
    ...client.options,
    ...clusterLevel,
    redisOptions: { ...client.options.redisOptions, ...(nodeOptions as ClusterOptions['redisOptions']) },
  });
}

/**
 * SCAN for `pattern` on every node that holds data (each master of a Cluster), calling `onKeys` with each batch
 * (keys of one node). Keys added or removed during the scan may or may not be seen, as with one node's SCAN.
 */
export async function scanAllNodes(
  client: RedisClient,
  pattern: string,
  onKeys: (keys: string[], node: Redis) => Promise<void> | void,
  count = 500,
): Promise<void> {
  for (const node of await readyMasterNodes(client)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) await onKeys(keys, node);
    } while (cursor !== '0');
  }
}

/** masterNodes once a Cluster client knows its slots (a lazy one connects here); a node client as it is. */
export async function readyMasterNodes(client: RedisClient): Promise<Redis[]> {
  if (isCluster(client) && client.status !== 'ready') {
    if (client.status === 'wait') await client.connect();
    else
      await new Promise<void>((resolve, reject) => {
        const done = (err?: Error): void => {
          client.off('ready', ok);
          client.off('end', end);
          if (err) reject(err);
          else resolve();
        };
        const ok = (): void => done();
        const end = (): void => done(new Error('the Redis Cluster connection closed'));
        client.once('ready', ok);
        client.once('end', end);
      });
  }
  return masterNodes(client);
}

/** Where a command-line tool's Redis is: the URL and its CA (FleetqConfig has both). */
export type RedisTarget = {
  readonly REDIS_URL: string;
  readonly FLEETQ_REDIS_TLS_CA?: string | undefined;
};

/**
 * Thrown by connectFailFast: the Redis at the (redacted) URL did not answer, or no seed of the Redis Cluster did;
 * the message names the URL (every seed) and says what to do.
 */
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
export async function connectFailFast(target: RedisTarget, connectTimeoutMs = 5_000): Promise<RedisClient> {
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
    const message = isCluster(redis)
      ? clusterUnreachableMessage(target.REDIS_URL, firstError ?? err)
      : unreachableMessage(target.REDIS_URL, firstError ?? err);
    throw new RedisUnreachableError(message, { cause: err });
  }
}

/** What a tool says when Redis does not answer: where (no password), why in one word, and what to do. */
export function unreachableMessage(url: string, err: unknown): string {
  return `cannot reach Redis at ${redactedUrl(url)} (${reasonOf(err)}): start it or set REDIS_URL`;
}

/**
 * What a tool says when no seed of a Redis Cluster answered: the seeds (the URL, no password), why, and what to do.
 * ioredis reports `Failed to refresh slots cache.` with the last seed's error (`lastNodeError`): `Connection is
 * closed.` when none could be reached, or what a seed that answered said (a Redis without cluster mode, a refused
 * AUTH).
 */
export function clusterUnreachableMessage(url: string, err: unknown): string {
  const last = (err as { lastNodeError?: unknown } | undefined)?.lastNodeError;
  const text = last instanceof Error ? last.message : '';
  if (/cluster support disabled/i.test(text))
    return (
      `the Redis at ${redactedUrl(url)} is not a Redis Cluster (${reasonOf(last)}): for one node, name one seed ` +
      `in REDIS_URL and unset FLEETQ_REDIS_CLUSTER; for a cluster, set REDIS_URL to its nodes`
    );
  const reason = last instanceof Error && !/^Connection is closed/.test(text) ? reasonOf(last) : 'no seed answered';
  return (
    `cannot reach the Redis Cluster at ${redactedUrl(url)} (${reason}): start it or set REDIS_URL to its nodes ` +
    `(host:port, comma-separated)`
  );
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

/** The Redis Cluster hash slot of `key` (CRC16-XMODEM of its hash tag, or of the whole key, mod 16384). */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key);
  const open = bytes.indexOf(0x7b); // {
  let from = 0;
  let to = bytes.length;
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1); // }
    if (close > open + 1) {
      from = open + 1;
      to = close;
    }
  }
  let crc = 0;
  for (let i = from; i < to; i++) {
    crc ^= (bytes[i] as number) << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/**
 * The node that serves `key`: the client itself, or the primary a Cluster client last saw owning the key's slot
 * (undefined while it knows no slots yet). For node-local commands about a key's data (INFO of its server).
 */
export function nodeForKey(client: RedisClient, key: string): Redis | undefined {
  if (!isCluster(client)) return client;
  const owner = client.slots[keySlot(key)]?.[0];
  if (owner === undefined) return undefined;
  return client.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner);
}
