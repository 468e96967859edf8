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
//
// On a Redis Cluster, INFO is one node's, and a keyless command goes to any node: the identity is read from the
// primary that serves the marker's slot (the queue's hash slot), as the client maps slots now. A failover of that
// primary to its replica is then a new identity (the promoted replica's run_id and a new master_replid), as on one
// node; a failover of another primary is not (the queue's keys were not there). Moving the slot to another
// primary (resharding) also reads as 'server-changed': one resync, never correctness.
//
// The other data of a queue live in other slots, maybe on other primaries: each member cluster's object cache
// (`{cache:<cluster>}`), the checkpoints and the event log. watchClusterPrimaries watches every primary of the slot
// map: at each check it reads the identity of the primary serving each slot (the slot map as the client has it,
// read again from the cluster when a slot's primary is not among its connections, as above) and reports the slot
// ranges whose primary is now another server or data history (a failover, a restart, a resharding). What it
// compares is the identity, not the node's address, so a slot map refresh or a reconnect to the same server is no
// change; a slot whose primary cannot be read this time (dead, not promoted yet) keeps its last identity and is
// compared again at the next check.
import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { isCluster, keySlot, nodeForKey, readyMasterNodes, type RedisClient } from './redis-connection.js';
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
  /**
   * Set when the loss was found by watchClusterPrimaries (a Redis Cluster primary other than the marker's changed):
   * which primaries, and the slots they serve now that a changed server serves. The epochs are then the marker's,
   * unchanged.
   */
  readonly primaries?: readonly PrimaryChange[];
};

/** A range of hash slots, both ends included. */
export type SlotRange = readonly [from: number, to: number];

/** The slots that `node` (host:port) now serves with another identity than the slots' primary at the last check. */
export type PrimaryChange = {
  readonly node: string;
  readonly slots: readonly SlotRange[];
  readonly previousServer: ServerIdentity;
  readonly server: ServerIdentity;
};

/** Which primary serves one slot: its address and identity. */
export type SlotServer = { readonly node: string; readonly server: ServerIdentity };

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
  redis: RedisClient,
  key: string,
  onLoss: (loss: RedisLoss) => void,
  options: WatchRedisLossOptions = {},
): Promise<RedisLossWatcher> {
  let infoRefused = false;
  const identity = async (): Promise<ServerIdentity | undefined> => {
    if (infoRefused) return undefined;
    try {
      return await serverIdentity(await nodeServing(redis, key));
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
  const stop = checkPeriodically(redis, check, options);
  return {
    get epoch() {
      return epoch;
    },
    check,
    stop,
  };
}

/**
 * Runs `check` every intervalMs (2 s by default) and each time `client` is ready again (a reconnect), its errors to
 * onError; returns what stops it. The timer does not hold the process.
 */
function checkPeriodically(
  client: RedisClient,
  check: () => Promise<unknown>,
  options: { intervalMs?: number | undefined; onError?: ((err: unknown) => void) | undefined },
): () => void {
  const checkLogged = (): void => {
    check().catch((err: unknown) => options.onError?.(err));
  };
  const timer = setInterval(checkLogged, options.intervalMs ?? 2_000);
  timer.unref();
  client.on('ready', checkLogged);
  return () => {
    clearInterval(timer);
    client.off('ready', checkLogged);
  };
}

/**
 * The node whose INFO tells the identity of `key`'s data: the client itself, or the primary a Cluster client maps
 * `key`'s slot to now. When the client has no connection to that primary (it died: the client drops a node whose
 * connection ended, but keeps the slot map it had), the map is read again from the cluster first. Throws (a failed
 * check, not a loss) while the cluster still names a primary that is gone (before its replica is promoted).
 */
export async function nodeServing(redis: RedisClient, key: string): Promise<Redis> {
  if (!isCluster(redis)) return redis;
  await readyMasterNodes(redis); // a client still connecting knows no slots yet
  let node = nodeForKey(redis, key);
  if (!node) {
    await new Promise<void>((resolve, reject) => redis.refreshSlotsCache((err) => (err ? reject(err) : resolve())));
    node = nodeForKey(redis, key);
  }
  if (!node) throw new Error(`the Redis Cluster primary serving slot ${keySlot(key)} is not reachable`);
  return node;
}

/** The server's run_id and master_replid (two INFO sections, each read once); undefined when INFO lacks them. */
export async function serverIdentity(redis: RedisClient): Promise<ServerIdentity | undefined> {
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
async function claim(redis: RedisClient, key: string): Promise<string> {
  const mine = randomUUID();
  if ((await redis.set(key, mine, 'NX')) === 'OK') return mine;
  const theirs = await redis.get(key);
  return theirs ?? (await claim(redis, key));
}

export type ClusterPrimariesWatcher = {
  /** Runs one check now (tests; the timer does the same); the changes found (also given to onChange). */
  check(): Promise<PrimaryChange[]>;
  stop(): void;
};

/** How long one primary's INFO may take before that primary counts as unread for this check. */
const INFO_TIMEOUT_MS = 5_000;

/**
 * Reads the identity of every primary of a Redis Cluster's slot map now, then again every intervalMs (and when the
 * client is ready again), and calls onChange with the primaries serving slots whose server changed (see the top of
 * this file). The caller owns `cluster`.
 */
export async function watchClusterPrimaries(
  cluster: Cluster,
  onChange: (changes: PrimaryChange[]) => void,
  options: WatchRedisLossOptions = {},
): Promise<ClusterPrimariesWatcher> {
  let infoRefused = false;
  const read = async (): Promise<(SlotServer | undefined)[]> => {
    const { servers, errors } = await readSlotServers(cluster);
    const refusal = errors.find(isRefusal);
    if (refusal !== undefined && !infoRefused) {
      infoRefused = true;
      options.onError?.(
        new Error(
          "A Redis Cluster primary refused INFO, so a failover of the cache's or checkpoints' slots to a replica that lagged goes unseen until the next periodic resync: allow INFO to fleetq's Redis user",
          { cause: refusal },
        ),
      );
    }
    const other = errors.find((err) => !isRefusal(err));
    if (other !== undefined) options.onError?.(other);
    return servers;
  };
  let known = await read();
  let checking: Promise<PrimaryChange[]> | undefined;
  const check = (): Promise<PrimaryChange[]> =>
    (checking ??= (async () => {
      try {
        if (infoRefused) return [];
        const now = await read();
        const changes = slotServerChanges(known, now);
        known = mergeSlotServers(known, now);
        if (changes.length > 0) onChange(changes);
        return changes;
      } finally {
        checking = undefined;
      }
    })());
  return {
    check,
    stop: checkPeriodically(cluster, check, options),
  };
}

/**
 * The primary serving each slot (index: slot) as the client's slot map says, with its identity; undefined where the
 * map names no primary or its INFO failed (the errors returned, one per primary).
 */
async function readSlotServers(cluster: Cluster): Promise<{ servers: (SlotServer | undefined)[]; errors: unknown[] }> {
  await readyMasterNodes(cluster);
  const connected = (): Map<string, Redis> =>
    new Map(cluster.nodes('master').map((n) => [`${n.options.host}:${n.options.port}`, n]));
  let nodes = connected();
  const owners = (): (string | undefined)[] =>
    Array.from({ length: SLOT_COUNT }, (_, slot) => cluster.slots[slot]?.[0]);
  let owner = owners();
  if (owner.some((node) => node !== undefined && !nodes.has(node))) {
    await new Promise<void>((resolve, reject) => cluster.refreshSlotsCache((err) => (err ? reject(err) : resolve())));
    nodes = connected();
    owner = owners();
  }
  const errors: unknown[] = [];
  const identities = new Map<string, ServerIdentity | undefined>();
  await Promise.all(
    [...new Set(owner)].map(async (address) => {
      if (address === undefined) return;
      const node = nodes.get(address);
      if (!node || node.status === 'end' || node.status === 'close' || node.status === 'reconnecting') return;
      try {
        identities.set(address, await withTimeout(serverIdentity(node), INFO_TIMEOUT_MS, address));
      } catch (err) {
        errors.push(err);
      }
    }),
  );
  const servers = owner.map((address) => {
    const server = address === undefined ? undefined : identities.get(address);
    return address === undefined || server === undefined ? undefined : { node: address, server };
  });
  return { servers, errors };
}

const SLOT_COUNT = 16384;

async function withTimeout<T>(work: Promise<T>, ms: number, node: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`INFO from Redis Cluster primary ${node} took over ${ms} ms`)), ms);
        timer.unref();
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The slots served (in both reads) by another identity now than before, grouped by the primary serving them now
 * and its identities before and now. A slot unknown in either read is not compared.
 */
export function slotServerChanges(
  previous: readonly (SlotServer | undefined)[],
  now: readonly (SlotServer | undefined)[],
): PrimaryChange[] {
  const byChange = new Map<
    string,
    { node: string; slots: [number, number][]; previousServer: ServerIdentity; server: ServerIdentity }
  >();
  const length = Math.max(previous.length, now.length);
  for (let slot = 0; slot < length; slot++) {
    const before = previous[slot];
    const after = now[slot];
    if (!before || !after || sameServer(before.server, after.server)) continue;
    const id = `${after.node} ${before.server.runId} ${before.server.replId} ${after.server.runId} ${after.server.replId}`;
    let change = byChange.get(id);
    if (!change) {
      change = { node: after.node, slots: [], previousServer: before.server, server: after.server };
      byChange.set(id, change);
    }
    const last = change.slots.at(-1);
    if (last && last[1] === slot - 1) last[1] = slot;
    else change.slots.push([slot, slot]);
  }
  return [...byChange.values()];
}

/** What is known after a read: each slot's server now, or the last one known where this read has none. */
export function mergeSlotServers(
  previous: readonly (SlotServer | undefined)[],
  now: readonly (SlotServer | undefined)[],
): (SlotServer | undefined)[] {
  return Array.from({ length: Math.max(previous.length, now.length) }, (_, slot) => now[slot] ?? previous[slot]);
}
