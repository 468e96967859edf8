// Redis is a cache that can vanish: FLUSHALL, a restart without persistence, a failover to an empty replica,
// eviction. The queue's state (waiting keys, backoffs, dead letters) is then gone, and no event will bring the
// lost keys back until the next periodic resync. This watcher notices the loss within one check interval so
// the forwarders can resync at once (every owned object re-enqueued; the controllers are level-triggered, so
// a re-enqueue costs a reconcile, never correctness).
//
// How: a marker key (`<prefix>{name}:epoch`, in the queue's hash slot) holds a random id, written on start
// if absent. Every intervalMs one GET: a missing marker means the dataset was lost; the watcher writes a new
// id (SET NX, so of several processes one id wins) and reports the loss. A marker holding another id than the
// one last seen means another process saw the loss first (and recreated it): that is a loss for this process
// too. Connection errors are not a loss; the next successful check decides.
//
// A failover to a replica that lagged keeps the marker (it was replicated long ago) but not the last writes. So
// the watcher also records which server and which data history it talks to: INFO's `run_id` (new at every start
// of a redis-server) and `master_replid` (new when a replica is promoted, and taken from the primary when a
// replica syncs). Either one changing is reported as a loss ('server-changed'). This also fires where nothing was
// lost: a restart that reloads the same data from disk, a failover to a replica that had caught up, or a primary
// that drops its replication backlog after its replicas have been gone for repl-backlog-ttl (a new replid). Then
// the resync costs one list of each cluster, never correctness. A server that refuses INFO (renamed or denied) leaves
// only the marker check; the first refusal is reported once through onError. The watcher checks at once whenever
// its connection comes back (ioredis 'ready'), so a failover is seen at the reconnect, not one interval later.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisKeyPrefix, redisKeys } from './redis-keys.js';

export type RedisLoss = {
  /** The epoch the watcher knew, and the one now current. */
  readonly previousEpoch: string;
  readonly epoch: string;
  /**
   * Whether the marker was missing (this process saw it first), replaced by another process, or still there on a
   * different server or data history (a failover, a restart: see the top of this file).
   */
  readonly how: 'missing' | 'replaced' | 'server-changed';
  /** The server identity before and now, when INFO gives one. */
  readonly previousServer?: ServerIdentity;
  readonly server?: ServerIdentity;
};

/** What INFO says about the server's process and data history: 40 hex digits each. */
export type ServerIdentity = { readonly runId: string; readonly replId: string };

export type RedisLossWatcher = {
  /** The current epoch id. */
  readonly epoch: string;
  /** Runs one check now (tests; the timer does the same); true when a loss was found. */
  check(): Promise<boolean>;
  stop(): void;
};

export type WatchRedisLossOptions = {
  /** Default 2 000. */
  readonly intervalMs?: number;
  /** Told of a failed check (connection errors); the watcher keeps going. */
  readonly onError?: (err: unknown) => void;
};

/** The marker key of one queue: `<prefix>:{<name>}:epoch`. */
export function epochKey(queueName: string, prefix = 'fleetq'): string {
  return redisKeys(redisKeyPrefix(queueName, prefix)).epoch;
}

/**
 * Writes (or adopts) the epoch marker at `key`, then checks it every intervalMs and calls onLoss when the
 * dataset behind it was lost. The caller owns `redis`.
 */
export async function watchRedisLoss(
  redis: Redis,
  key: string,
  onLoss: (loss: RedisLoss) => void,
  options: WatchRedisLossOptions = {},
): Promise<RedisLossWatcher> {
  let infoRefused = false;
  const identity = async (): Promise<ServerIdentity | undefined> => {
    if (infoRefused) return undefined;
    try {
      return await serverIdentity(redis);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      infoRefused = true;
      options.onError?.(
        new Error(
          "Redis refused INFO, so a failover to a replica that lagged goes unseen until the next periodic resync: allow INFO to fleetq's Redis user",
          { cause: err },
        ),
      );
      return undefined;
    }
  };
  let server = await identity();
  let epoch = await claim(redis, key);
  let checking: Promise<boolean> | undefined;
  const check = (): Promise<boolean> =>
    (checking ??= (async () => {
      try {
        // INFO before GET: a switch of server between the two is then seen at the next check.
        const now = await identity();
        const current = await redis.get(key);
        const previousServer = server;
        if (now !== undefined) server = now;
        const changed = previousServer !== undefined && now !== undefined && !sameServer(previousServer, now);
        if (current === epoch && !changed) return false;
        const previousEpoch = epoch;
        if (current !== epoch) epoch = current ?? (await claim(redis, key));
        const how = current === null ? 'missing' : current !== previousEpoch ? 'replaced' : 'server-changed';
        onLoss({
          previousEpoch,
          epoch,
          how,
          ...(previousServer && { previousServer }),
          ...(now && { server: now }),
        });
        return true;
      } finally {
        checking = undefined;
      }
    })());
  const checkLogged = (): void => {
    check().catch((err: unknown) => options.onError?.(err));
  };
  const timer = setInterval(checkLogged, options.intervalMs ?? 2_000);
  timer.unref();
  redis.on('ready', checkLogged);
  return {
    get epoch() {
      return epoch;
    },
    check,
    stop: () => {
      clearInterval(timer);
      redis.off('ready', checkLogged);
    },
  };
}

/** The server's run_id and master_replid (two INFO sections, each read once); undefined when INFO lacks them. */
export async function serverIdentity(redis: Redis): Promise<ServerIdentity | undefined> {
  const [info, replication] = await Promise.all([redis.info('server'), redis.info('replication')]);
  return parseServerIdentity(info, replication);
}

/**
 * Reads `run_id` from INFO server and `master_replid` from INFO replication. The text is the server's (untrusted):
 * only 40 lower-case hex digits are accepted, anything else gives undefined (the marker check goes on alone).
 */
export function parseServerIdentity(server: string, replication: string): ServerIdentity | undefined {
  const runId = /^run_id:([0-9a-f]{40})\r?$/m.exec(server)?.[1];
  const replId = /^master_replid:([0-9a-f]{40})\r?$/m.exec(replication)?.[1];
  return runId === undefined || replId === undefined ? undefined : { runId, replId };
}

function sameServer(a: ServerIdentity, b: ServerIdentity): boolean {
  return a.runId === b.runId && a.replId === b.replId;
}

/** INFO renamed away or denied by an ACL; not a closed connection or a server still loading (tried again). */
function isRefusal(err: unknown): boolean {
  return err instanceof Error && err.name === 'ReplyError' && /^(ERR unknown command|NOPERM)/.test(err.message);
}

/** SET NX a new id; if another process won the race, adopt its id. */
async function claim(redis: Redis, key: string): Promise<string> {
  const mine = randomUUID();
  if ((await redis.set(key, mine, 'NX')) === 'OK') return mine;
  const theirs = await redis.get(key);
  return theirs ?? (await claim(redis, key));
}
