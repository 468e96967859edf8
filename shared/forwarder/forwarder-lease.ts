// The lease a forwarder holds on one cluster's watch (forwarder-pool.ts), in the queue's Redis.
//
// One key per cluster, `<queue prefix>fwd:lease:<cluster>` (the queue's `{name}` hash tag, so the queue driver's
// fenced add touches one slot; every `fwd:` key is named in forwarder-keys.ts), holding `<token>|<holder>` with a server-side expiry (PX leaseMs). The token
// comes from a per-cluster counter (INCR `fwd:seq:<cluster>`): it only grows, so a later holder always has a
// larger token. The holder renews before leaseMs runs out; a holder that dies, is partitioned or paused
// (SIGSTOP) loses the key when it expires, and another forwarder takes it with a new token.
//
// The fence (the same two ideas as shared/runtime/lease-fence.ts for a reconcile's writes):
// - locally, a monotonic deadline: leaseMs from just before the request that granted or last renewed the lease,
//   minus a safety margin; past it no write is even sent (a process resumed after SIGSTOP finds it passed);
// - in Redis, every enqueue (the queue driver's addFenced) and every checkpoint write (lua/fenced-save.lua) is one
//   Lua script that first compares the lease key with `<token>|<holder>` (shared/lua/includes/lease-fence.lua)
//   and refuses (writes nothing) when it differs. No WATCH: the compare and the write
//   are one atomic script, so a forwarder that lost its lease cannot enqueue or checkpoint for that cluster.
// On a Redis Cluster (or with queue shards) the writes of a cluster are in slots other than its lease's: the
// cluster's queue shard, its cache `{cache:<cluster>}`, its checkpoints hash; a script cannot reach the lease from
// there. Then the fence is the lease's token itself (FenceSlots): each of those slots keeps the largest token of
// the cluster seen there (`fwd:fence:<cluster>`, forwarder-keys.ts), a fenced script refuses a smaller token and
// raises a smaller one to its own (set-if-greater, in the same script as the write), and a new holder installs
// its token in every one of those slots right after acquiring, before its first write (installFences): from then
// on the previous holder's writes are refused in every slot, the fencing-token guarantee per slot. A lease that
// merely expired with no new holder is then held back by the local deadline alone.
// Each accepted write also records its token in `fwd:writers:<cluster>` (a short list, appended only when the
// writer changes): fencing means that list never goes down. Tests and `fleetq status` read it.
// The scripts are lua/*.lua, run through the shared runner. The quarantine (cluster-quarantine.ts) rides on them: ACQUIRE marks the cluster as syncing under the
// new token, counts a mark a previous holder left behind as a death while syncing (or, when that holder is still a
// live pool member, records a suspicion the membership's heartbeat settles; its own mark is a lapse), and refuses a
// quarantined cluster; RENEW refreshes the mark with the largest object seen; RELEASE and SYNCED remove it.
import { scanAllNodes, type RedisClient } from '../queue/redis/redis-connection.js';
import { loadLuaScripts } from '../lua/lua-loader.js';
import { ScriptRunner } from '../lua/script-runner.js';
import type { WriteFence } from '../queue/work-queue.js';
import { safetyMarginMs } from '../runtime/lease-fence.js';
import {
  DEFAULT_QUARANTINE_DEATHS,
  DEFAULT_QUARANTINE_MS,
  parseDeathRecord,
  reportJson,
  syncingMark,
  type DeathRecord,
  type LargestObject,
} from './cluster-quarantine.js';
import {
  forwarderDeathsKey,
  forwarderFenceKey,
  forwarderLastSeenKey,
  forwarderLeaseKey,
  forwarderLeaseSeqKey,
  forwarderMembersKey,
  forwarderSuspectsKey,
  forwarderSyncingKey,
  forwarderWritersKey,
  queuePrefixOf,
} from './forwarder-keys.js';

// Tests and tools that read a pool's leases take the prefix from here.
export { queuePrefixOf };

/** Default lease length: a dead holder's clusters are taken within about leaseMs + leaseMs / 3 (≤ 30 s). */
export const DEFAULT_FORWARDER_LEASE_MS = 15_000;

export type LeaseHolder = {
  readonly cluster: string;
  /** The forwarder holding it: `<hostname>/<pid>/<random>`. */
  readonly holder: string;
  readonly token: number;
  /** Time left before it expires unless renewed (ms). */
  readonly ttlMs: number;
};

/** Every cluster's current lease holder (clusters whose lease is free are absent). */
export async function readLeaseHolders(
  redis: RedisClient,
  queuePrefix: string = queuePrefixOf(),
): Promise<Map<string, LeaseHolder>> {
  const head = forwarderLeaseKey('', queuePrefix);
  const pattern = `${head.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const keys: string[] = [];
  // Every primary of a Redis Cluster; the leases share the queue's hash tag, so the pipeline below is one slot's.
  await scanAllNodes(redis, pattern, (batch) => void keys.push(...batch));
  const out = new Map<string, LeaseHolder>();
  if (keys.length === 0) return out;
  const pipeline = redis.pipeline();
  for (const k of keys) pipeline.get(k).pttl(k);
  const replies = (await pipeline.exec()) ?? [];
  keys.forEach((k, i) => {
    const value = replies[2 * i]?.[1];
    const ttl = replies[2 * i + 1]?.[1];
    if (typeof value !== 'string') return;
    const parsed = parseLeaseValue(value);
    if (!parsed) return;
    const cluster = k.slice(head.length);
    out.set(cluster, { cluster, ...parsed, ttlMs: typeof ttl === 'number' ? ttl : -1 });
  });
  return out;
}

/** The tokens that wrote for a cluster, oldest first (the last 50 changes of writer). */
export async function readWriterTokens(
  redis: RedisClient,
  cluster: string,
  queuePrefix: string = queuePrefixOf(),
): Promise<number[]> {
  return (await redis.lrange(forwarderWritersKey(cluster, queuePrefix), 0, -1)).map(Number);
}

export function parseLeaseValue(value: string): { token: number; holder: string } | undefined {
  const bar = value.indexOf('|');
  if (bar <= 0) return undefined;
  const token = Number(value.slice(0, bar));
  return Number.isFinite(token) ? { token, holder: value.slice(bar + 1) } : undefined;
}

/** Thrown by a fenced write when the lease is not (or no longer) this forwarder's. */
export class ForwarderLeaseLost extends Error {
  override name = 'ForwarderLeaseLost';
  constructor(
    readonly cluster: string,
    readonly reason: string,
  ) {
    super(`forwarder lease on ${cluster} lost: ${reason}`);
  }
}

/** The lease's scripts (lua/; KEYS[1] the lease key). The server's clock (TIME) is the only clock they use. */
const LEASE_SCRIPTS = loadLuaScripts('shared/forwarder/lua', [
  'acquire',
  'renew',
  'release',
  'synced',
  'fencedSave',
  'installFence',
]);

/**
 * Where a cluster's writes go when they cannot reach its lease (a Redis Cluster, or queue shards): each is fenced
 * by the cluster's token in its own slot instead of by the lease compare.
 */
export type FenceSlots = {
  /** The prefix of the queue the cluster's keys go to (its shard's). */
  readonly queuePrefix: string;
  /** The cluster's checkpoints hash (its fence key is `<key>:fwd:fence:<cluster>`, in the same slot). */
  readonly checkpointsKey: string;
  /** The cluster cache's key prefix, when the forwarder writes a Redis cache. */
  readonly cachePrefix?: string;
};

/** The fence key prefix of each slot in `slots`. */
function slotPrefixes(slots: FenceSlots): string[] {
  return [
    slots.queuePrefix,
    `${slots.checkpointsKey}:`,
    ...(slots.cachePrefix === undefined ? [] : [slots.cachePrefix]),
  ];
}

/**
 * Installs `token` as the cluster's fence in every slot of `slots` (set-if-greater); false when one of them holds a
 * larger token already (a newer holder, or a drain).
 */
export async function installFences(
  redis: RedisClient,
  cluster: string,
  token: number,
  slots: FenceSlots,
): Promise<boolean> {
  const replies = await Promise.all(
    slotPrefixes(slots).map((prefix) => {
      const key = forwarderFenceKey(cluster, prefix);
      return new ScriptRunner(redis, key, [], LEASE_SCRIPTS).run('installFence', String(token));
    }),
  );
  return replies.every((r) => Number(r) === 1);
}

export type ForwarderLeaseOptions = {
  readonly redis: RedisClient;
  readonly queuePrefix: string;
  readonly cluster: string;
  readonly holder: string;
  readonly leaseMs: number;
  /** Monotonic clock in ms; default performance.now. */
  readonly clock?: () => number;
  /** Holders in a row dying while syncing the cluster that quarantine it (cluster-quarantine.ts); default 3. */
  readonly quarantineDeaths?: number;
  /** How long a quarantine lasts (server time); default 1 h. */
  readonly quarantineMs?: number;
  /** Set on a Redis Cluster or with queue shards: writes are fenced by the token in their own slots. */
  readonly fenceSlots?: FenceSlots;
};

/** What acquire found: taken (perhaps after a holder that died while syncing), held by another, or quarantined. */
export type AcquireResult =
  | { readonly acquired: false; readonly quarantine?: undefined }
  | {
      readonly acquired: false;
      /** The cluster is quarantined; `now`: this call found the death that quarantined it. */
      readonly quarantine: { readonly now: boolean; readonly record: DeathRecord | undefined };
    }
  | {
      readonly acquired: true;
      readonly token: number;
      readonly gapMs: number;
      /** The previous holder died while syncing the cluster: the count so far (undefined: it did not). */
      readonly died?: DeathRecord | undefined;
      readonly diedUnreadable?: boolean;
      /** Deaths counted by this acquire (a previous holder's, and a pending suspicion it settled): 0, 1 or 2. */
      readonly deaths: number;
      /**
       * The previous holder's lease lapsed while it synced and it is still a live pool member: a suspicion, counted
       * as a death only if its membership expires without another heartbeat (cluster-quarantine.ts).
       */
      readonly suspected?: string;
      /** Lapses of this holder's own earlier lease on the cluster found (it took the cluster back: alive). */
      readonly lapses: number;
    };

/** One forwarder's lease on one cluster: acquire, renew, release, and the fence its writes check. */
export class ForwarderLease {
  readonly cluster: string;
  readonly key: string;
  private readonly scripts: ScriptRunner<keyof typeof LEASE_SCRIPTS>;
  /** fencedSave's runner per checkpoint hash (in its own slot): a script's first run is an EVAL, not every one. */
  private readonly saveRunners = new Map<string, ScriptRunner<keyof typeof LEASE_SCRIPTS>>();
  private readonly clock: () => number;
  private token: number | undefined;
  private deadline = -Infinity;
  private lost: string | undefined;

  constructor(private readonly o: ForwarderLeaseOptions) {
    this.cluster = o.cluster;
    this.key = forwarderLeaseKey(o.cluster, o.queuePrefix);
    this.clock = o.clock ?? (() => performance.now());
    this.scripts = new ScriptRunner(o.redis, this.key, [], LEASE_SCRIPTS);
  }

  get currentToken(): number | undefined {
    return this.token;
  }

  private get value(): string {
    return `${this.token ?? ''}|${this.o.holder}`;
  }

  /** Why the lease is not ours, or undefined while it is (never acquired counts as not ours). */
  get lostReason(): string | undefined {
    if (this.token === undefined) return this.lost ?? 'not acquired';
    if (this.lost === undefined && this.clock() >= this.deadline)
      this.lost = `local lease deadline passed (${this.o.leaseMs} ms lease not renewed in time)`;
    return this.lost;
  }

  held(): boolean {
    return this.lostReason === undefined;
  }

  /**
   * Takes the lease when it is free and the cluster is not quarantined, marking the cluster as syncing under the
   * new token; resolves to the takeover gap (ms since the last holder was seen; -1: none).
   */
  async acquire(): Promise<AcquireResult> {
    const sentAt = this.clock();
    const reply = (await this.scripts.run(
      'acquire',
      this.o.holder,
      this.o.leaseMs,
      forwarderLeaseSeqKey(this.cluster, this.o.queuePrefix),
      forwarderLastSeenKey(this.o.queuePrefix),
      this.cluster,
      forwarderSyncingKey(this.o.queuePrefix),
      forwarderDeathsKey(this.o.queuePrefix),
      this.o.quarantineDeaths ?? DEFAULT_QUARANTINE_DEATHS,
      this.o.quarantineMs ?? DEFAULT_QUARANTINE_MS,
      reportJson({ holder: this.o.holder }),
      forwarderMembersKey(this.o.queuePrefix),
      forwarderSuspectsKey(this.o.queuePrefix),
    )) as [number, number, number | string, string?, string?, number?] | null;
    if (reply === null) return { acquired: false };
    const record = (raw: unknown): DeathRecord | undefined =>
      typeof raw === 'string' ? parseDeathRecord(raw) : undefined;
    if (Number(reply[0]) === 0)
      return { acquired: false, quarantine: { now: Number(reply[1]) === 1, record: record(reply[2]) } };
    this.token = Number(reply[0]);
    this.lost = undefined;
    this.deadline = sentAt + this.o.leaseMs - safetyMarginMs(this.o.leaseMs);
    const deaths = Number(reply[2]);
    const dead = deaths > 0 ? record(reply[3]) : undefined;
    const suspected = typeof reply[4] === 'string' && reply[4] !== '' ? reply[4] : undefined;
    return {
      acquired: true,
      token: this.token,
      gapMs: Number(reply[1]),
      deaths,
      lapses: Number(reply[5] ?? 0),
      ...(deaths > 0 && { died: dead, diedUnreadable: dead === undefined }),
      ...(suspected !== undefined && { suspected }),
    };
  }

  /**
   * Renews; false when the lease was lost (refused, or the local deadline passed first). Errors propagate.
   * `syncing`: the holder has not finished syncing; its syncing mark is refreshed with the largest object so far.
   */
  async renew(syncing?: LargestObject): Promise<boolean> {
    if (!this.held()) return false;
    const sentAt = this.clock();
    const ok =
      Number(
        await this.scripts.run(
          'renew',
          this.value,
          this.o.leaseMs,
          forwarderLastSeenKey(this.o.queuePrefix),
          this.cluster,
          forwarderSyncingKey(this.o.queuePrefix),
          String(this.token ?? ''),
          syncing === undefined || this.token === undefined ? '' : syncingMark(this.token, syncing),
        ),
      ) === 1;
    if (!ok) this.markLost('renewal refused (the lease expired or another forwarder holds it)');
    else if (this.lost === undefined)
      this.deadline = Math.max(this.deadline, sentAt + this.o.leaseMs - safetyMarginMs(this.o.leaseMs));
    return ok && this.held();
  }

  /** Gives the lease up (only if still ours) so another forwarder can take it at once. */
  async release(): Promise<boolean> {
    if (this.token === undefined) return false;
    const value = this.value;
    this.markLost('released');
    return (
      Number(
        await this.scripts.run(
          'release',
          value,
          forwarderLastSeenKey(this.o.queuePrefix),
          this.cluster,
          forwarderSyncingKey(this.o.queuePrefix),
          String(this.token),
        ),
      ) === 1
    );
  }

  /**
   * The holder's first lists are done: removes its syncing mark and forgets the cluster's deaths (cluster-
   * quarantine.ts). → 'not-marked' (no mark of this token: already done, or another holder's), 'done', or
   * 'forgot-deaths' (a death record, or a pending suspicion, was removed).
   */
  async synced(): Promise<'not-marked' | 'done' | 'forgot-deaths'> {
    if (this.token === undefined) return 'not-marked';
    const reply = Number(
      await this.scripts.run(
        'synced',
        forwarderSyncingKey(this.o.queuePrefix),
        forwarderDeathsKey(this.o.queuePrefix),
        this.cluster,
        String(this.token),
        forwarderSuspectsKey(this.o.queuePrefix),
      ),
    );
    return reply === 2 ? 'forgot-deaths' : reply === 1 ? 'done' : 'not-marked';
  }

  markLost(reason: string): void {
    this.lost ??= reason;
  }

  /** Throws ForwarderLeaseLost when the lease is not ours by the local deadline. */
  assertHeld(): void {
    const reason = this.lostReason;
    if (reason !== undefined) throw new ForwarderLeaseLost(this.cluster, reason);
  }

  /**
   * With fence slots: installs this holder's token in each of them (installFences), before its first write there.
   * False (and the lease lost) when a newer token is already there. Without, nothing to do.
   */
  async installFences(): Promise<boolean> {
    const slots = this.o.fenceSlots;
    if (slots === undefined || this.token === undefined) return this.token !== undefined;
    if (await installFences(this.o.redis, this.cluster, this.token, slots)) return true;
    this.markLost('a newer token is installed as the fence');
    return false;
  }

  /**
   * The fence key and what it is compared with for a write under `slotPrefix` (lua/includes/lease-fence.lua):
   * this lease's key and value on one Redis, the cluster's fencing token in that slot with fence slots.
   */
  fenceArgs(slotPrefix: string): [key: string, value: string] {
    return this.o.fenceSlots
      ? [forwarderFenceKey(this.cluster, slotPrefix), String(this.token ?? '')]
      : [this.key, this.value];
  }

  /** What a fenced enqueue compares (and records when it is accepted): the fence of the queue's slot, and the token. */
  fence(): WriteFence {
    const queuePrefix = this.o.fenceSlots?.queuePrefix ?? this.o.queuePrefix;
    const [leaseKey, value] = this.fenceArgs(queuePrefix);
    return {
      leaseKey,
      value,
      writersKey: forwarderWritersKey(this.cluster, queuePrefix),
      token: String(this.token ?? ''),
    };
  }

  /**
   * Writes checkpoints into the cluster's hash `hashKey` (field `<resource>`, checkpoint-store.ts) only while the
   * lease is ours (one script: compare, then HSET).
   */
  async fencedSave(hashKey: string, checkpoints: ReadonlyMap<string, string>): Promise<void> {
    if (checkpoints.size === 0) return;
    this.assertHeld();
    const fields: string[] = [];
    for (const [resource, rv] of checkpoints) fields.push(resource, rv);
    // On one Redis the writers list beside the lease records the token; with fence slots the enqueues' list does.
    const f = this.o.fenceSlots
      ? { runner: this.saveRunner(hashKey), writersKey: '' }
      : { runner: this.scripts, writersKey: forwarderWritersKey(this.cluster, this.o.queuePrefix) };
    const [fenceKey, value] = this.fenceArgs(`${hashKey}:`);
    const reply = Number(
      await f.runner.run('fencedSave', fenceKey, value, f.writersKey, String(this.token ?? ''), hashKey, ...fields),
    );
    if (reply !== 1) {
      this.markLost('checkpoint write refused by the fence');
      throw new ForwarderLeaseLost(this.cluster, 'checkpoint write refused by the fence');
    }
  }

  private saveRunner(hashKey: string): ScriptRunner<keyof typeof LEASE_SCRIPTS> {
    let runner = this.saveRunners.get(hashKey);
    if (!runner) this.saveRunners.set(hashKey, (runner = new ScriptRunner(this.o.redis, hashKey, [], LEASE_SCRIPTS)));
    return runner;
  }
}
