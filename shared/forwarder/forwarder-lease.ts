// The lease a forwarder holds on one cluster's watch (forwarder-pool.ts), in the queue's Redis.
//
// One key per cluster, `<queue prefix>fwd:lease:<cluster>` (the queue's `{name}` hash tag, so the fenced enqueue
// script below touches one slot), holding `<token>|<holder>` with a server-side expiry (PX leaseMs). The token
// comes from a per-cluster counter (INCR `fwd:seq:<cluster>`): it only grows, so a later holder always has a
// larger token. The holder renews before leaseMs runs out; a holder that dies, is partitioned or paused
// (SIGSTOP) loses the key when it expires, and another forwarder takes it with a new token.
//
// The fence (the same two ideas as shared/runtime/lease-fence.ts for a reconcile's writes):
// - locally, a monotonic deadline: leaseMs from just before the request that granted or last renewed the lease,
//   minus a safety margin; past it no write is even sent (a process resumed after SIGSTOP finds it passed);
// - in Redis, every enqueue and every checkpoint write is one Lua script that first compares the lease key
//   with `<token>|<holder>` and refuses (writes nothing) when it differs. No WATCH: the compare and the write
//   are one atomic script, so a forwarder that lost its lease cannot enqueue or checkpoint for that cluster.
// Each accepted write also records its token in `fwd:writers:<cluster>` (a short list, appended only when the
// writer changes): fencing means that list never goes down. Tests and `fleetq status` read it.
// The quarantine (cluster-quarantine.ts) rides on the same scripts: ACQUIRE marks the cluster as syncing under the
// new token, counts a mark a previous holder left behind as a death while syncing, and refuses a quarantined
// cluster; RENEW refreshes the mark with the largest object seen; RELEASE and SYNCED remove it.
import type { Redis } from 'ioredis';
import { checkpointField } from '../queue/history/checkpoint-store.js';
import { LUA_PRELUDE } from '../queue/redis/lua-common.js';
import { ADD_BODY } from '../queue/redis/redis-scripts.js';
import { redisKeyPrefix } from '../queue/redis/redis-keys.js';
import { ScriptRunner } from '../queue/redis/script-runner.js';
import { safetyMarginMs } from '../runtime/lease-fence.js';
import {
  DEFAULT_QUARANTINE_DEATHS,
  DEFAULT_QUARANTINE_MS,
  forwarderDeathsKey,
  forwarderSyncingKey,
  parseDeathRecord,
  reportJson,
  syncingMark,
  type DeathRecord,
  type LargestObject,
} from './cluster-quarantine.js';

/** Default lease length: a dead holder's clusters are taken within about leaseMs + leaseMs / 3 (≤ 30 s). */
export const DEFAULT_FORWARDER_LEASE_MS = 15_000;

/** The queue prefix (`fleetq:{fleetq}:`) of a queue name, as the Redis driver builds it. */
export function queuePrefixOf(queueName = 'fleetq', redisPrefix = 'fleetq'): string {
  return redisKeyPrefix(queueName, redisPrefix);
}

/** The Redis key of a cluster's forwarder lease (value `<token>|<holder>`, expiring). */
export function forwarderLeaseKey(cluster: string, queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:lease:${cluster}`;
}

/** The per-cluster counter fencing tokens come from. */
export function forwarderLeaseSeqKey(cluster: string, queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:seq:${cluster}`;
}

/** LIST of the tokens that wrote (enqueued or checkpointed) for a cluster, appended when the writer changes. */
export function forwarderWritersKey(cluster: string, queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:writers:${cluster}`;
}

/** HASH cluster → server ms when its lease was last acquired, renewed or released (takeover latency). */
export function forwarderLastSeenKey(queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:seen`;
}

/** ZSET holder → membership expiry (server ms): the live forwarders of the pool. */
export function forwarderMembersKey(queuePrefix: string = queuePrefixOf()): string {
  return `${queuePrefix}fwd:members`;
}

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
  redis: Redis,
  queuePrefix: string = queuePrefixOf(),
): Promise<Map<string, LeaseHolder>> {
  const head = forwarderLeaseKey('', queuePrefix);
  const pattern = `${head.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
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
  redis: Redis,
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

// Lease scripts: KEYS[1] the lease key. The server's clock (TIME) is the only clock they use.
const NOW_LUA = `
local T = redis.call('TIME')
local NOW = tonumber(T[1]) * 1000 + math.floor(tonumber(T[2]) / 1000)
`;

// ---- Quarantine (cluster-quarantine.ts): the syncing mark and the death record, parsed; nil when garbage. ----
// A number of at most 15 digits (a safe integer; longer is garbage). Values are written with %d, never 1e+15.
const QUARANTINE_LUA = `
local function num(s) if s and #s <= 15 then return tonumber(s) end return nil end
local function syncingMark(v)
  if not v then return nil end
  local t, b, r = string.match(v, '^(%d+)|(%d+)|(.*)$')
  if not (num(t) and num(b)) then return nil end
  return { num(t), num(b), r }
end
local function deathRecord(v)
  if not v then return nil end
  local d, s, u, b, r = string.match(v, '^(%d+)|(%d+)|(%d+)|(%d+)|(.*)$')
  if not (num(d) and num(s) and num(u) and num(b)) then return nil end
  return { num(d), num(s), num(u), num(b), r }
end
local function markToken(v) return v and string.match(v, '^(%d+)|') end
`;

/**
 * ARGV 1 holder, 2 leaseMs, 3 seq key, 4 seen key, 5 cluster, 6 syncing HASH, 7 deaths HASH, 8 deaths that
 * quarantine, 9 quarantine ms, 10 this holder's report JSON.
 * A syncing mark left in place is a holder that died while syncing: one more death (the larger object kept);
 * at the threshold the cluster is quarantined. A quarantined cluster is refused.
 * → nil held | {0, quarantined now 1|0, death record} refused | {token, ms since the last holder (-1), died 1|0, record}
 */
const ACQUIRE = `${NOW_LUA}${QUARANTINE_LUA}
if redis.call('EXISTS', KEYS[1]) == 1 then return nil end
local raw = redis.call('HGET', ARGV[7], ARGV[5])
local rec = deathRecord(raw)
if rec and rec[3] > NOW then return { 0, 0, raw } end
local dead = syncingMark(redis.call('HGET', ARGV[6], ARGV[5]))
local record = ''
if dead then
  local deaths, bytes, report = 1, dead[2], dead[3]
  if rec then
    deaths = rec[1] + 1
    if rec[4] > bytes then bytes, report = rec[4], rec[5] end
  end
  local since, untilMs = 0, 0
  if deaths >= tonumber(ARGV[8]) then since, untilMs = NOW, NOW + tonumber(ARGV[9]) end
  record = string.format('%d|%d|%d|%d|', deaths, since, untilMs, bytes) .. report
  redis.call('HSET', ARGV[7], ARGV[5], record)
  if untilMs > 0 then
    redis.call('HDEL', ARGV[6], ARGV[5])
    return { 0, 1, record }
  end
end
local token = redis.call('INCR', ARGV[3])
redis.call('SET', KEYS[1], token .. '|' .. ARGV[1], 'PX', ARGV[2])
redis.call('HSET', ARGV[6], ARGV[5], token .. '|0|' .. ARGV[10])
local seen = redis.call('HGET', ARGV[4], ARGV[5])
redis.call('HSET', ARGV[4], ARGV[5], NOW)
local died = 0
if dead then died = 1 end
if seen then return { token, NOW - tonumber(seen), died, record } end
return { token, -1, died, record }`;

/**
 * ARGV 1 value, 2 leaseMs, 3 seen key, 4 cluster, 5 syncing HASH, 6 token, 7 new syncing mark ('' none).
 * While the holder syncs, its mark is refreshed (only a mark of its own token). → 1 renewed | 0 not ours
 */
const RENEW = `${NOW_LUA}${QUARANTINE_LUA}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', ARGV[3], ARGV[4], NOW)
if ARGV[7] ~= '' and markToken(redis.call('HGET', ARGV[5], ARGV[4])) == ARGV[6] then
  redis.call('HSET', ARGV[5], ARGV[4], ARGV[7])
end
return 1`;

/**
 * ARGV 1 value, 2 seen key, 3 cluster, 4 syncing HASH, 5 token. A holder that releases did not die: its syncing
 * mark goes, even when the lease itself had already expired. → 1 released | 0 not ours
 */
const RELEASE = `${NOW_LUA}${QUARANTINE_LUA}
if markToken(redis.call('HGET', ARGV[4], ARGV[3])) == ARGV[5] then redis.call('HDEL', ARGV[4], ARGV[3]) end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', ARGV[2], ARGV[3], NOW)
return 1`;

/**
 * ARGV 1 syncing HASH, 2 deaths HASH, 3 cluster, 4 token. The holder's first lists are done: its mark goes, and
 * the cluster's deaths are forgotten. → 0 not its mark | 1 done | 2 done, and a death record was removed
 */
const SYNCED = `${QUARANTINE_LUA}
if markToken(redis.call('HGET', ARGV[1], ARGV[3])) ~= ARGV[4] then return 0 end
redis.call('HDEL', ARGV[1], ARGV[3])
return 1 + redis.call('HDEL', ARGV[2], ARGV[3])`;

// The fence check every fenced write starts with: ARGV[FENCE] lease key, +1 expected value, +2 writers key,
// +3 token. Records the token when the writer changed.
const fenceLua = (at: number) => `
if redis.call('GET', ARGV[${at}]) ~= ARGV[${at + 1}] then return -1 end
local last = redis.call('LINDEX', ARGV[${at + 2}], -1)
if last ~= ARGV[${at + 3}] then
  redis.call('RPUSH', ARGV[${at + 2}], ARGV[${at + 3}])
  redis.call('LTRIM', ARGV[${at + 2}], -50, -1)
end
`;

/**
 * The queue's own add (lua-common.ts `schedule`, the Redis driver's add script body), behind the fence.
 * ARGV 1–6 the queue's header, 7 id, 8 delayMs, 9 signature, 10–13 fence. → 1 added | 2 added, and the queue's
 * data-loss marker (epoch, redis-loss.ts) is gone: this Redis lost its data | -1 fenced off
 */
const FENCED_ADD = `${LUA_PRELUDE}${fenceLua(10)}${ADD_BODY}
if redis.call('EXISTS', P .. 'epoch') == 1 then return 1 end
return 2`;

/** ARGV 1–4 fence, 5 checkpoints hash, 6.. field, value pairs. → 1 saved | -1 fenced off */
const FENCED_SAVE = `${fenceLua(1)}
redis.call('HSET', ARGV[5], unpack(ARGV, 6))
return 1`;

const LEASE_SCRIPTS = { acquire: ACQUIRE, renew: RENEW, release: RELEASE, synced: SYNCED, fencedSave: FENCED_SAVE };

export type ForwarderLeaseOptions = {
  readonly redis: Redis;
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
    };

/** One forwarder's lease on one cluster: acquire, renew, release, and the fence its writes check. */
export class ForwarderLease {
  readonly cluster: string;
  readonly key: string;
  private readonly scripts: ScriptRunner<keyof typeof LEASE_SCRIPTS>;
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
    )) as [number, number, number | string, string?] | null;
    if (reply === null) return { acquired: false };
    const record = (raw: unknown): DeathRecord | undefined =>
      typeof raw === 'string' ? parseDeathRecord(raw) : undefined;
    if (Number(reply[0]) === 0)
      return { acquired: false, quarantine: { now: Number(reply[1]) === 1, record: record(reply[2]) } };
    this.token = Number(reply[0]);
    this.lost = undefined;
    this.deadline = sentAt + this.o.leaseMs - safetyMarginMs(this.o.leaseMs);
    const died = Number(reply[2]) === 1;
    const dead = died ? record(reply[3]) : undefined;
    return {
      acquired: true,
      token: this.token,
      gapMs: Number(reply[1]),
      ...(died && { died: dead, diedUnreadable: dead === undefined }),
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
   * 'forgot-deaths' (a death record was removed).
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

  /** ARGV for fenceLua: lease key, expected value, writers key, token. */
  fenceArgs(): string[] {
    return [this.key, this.value, forwarderWritersKey(this.cluster, this.o.queuePrefix), String(this.token ?? '')];
  }

  /** Writes checkpoint fields into `hashKey` only while the lease is ours (one script: compare, then HSET). */
  async fencedSave(hashKey: string, checkpoints: ReadonlyMap<string, string>): Promise<void> {
    if (checkpoints.size === 0) return;
    this.assertHeld();
    const fields: string[] = [];
    for (const [resource, rv] of checkpoints) fields.push(checkpointField(this.cluster, resource), rv);
    const reply = Number(await this.scripts.run('fencedSave', ...this.fenceArgs(), hashKey, ...fields));
    if (reply !== 1) {
      this.markLost('checkpoint write refused by the fence');
      throw new ForwarderLeaseLost(this.cluster, 'checkpoint write refused by the fence');
    }
  }
}

/** The fenced add script (exported for fenced-queue.ts, which runs it with the queue's header). */
export const FENCED_ADD_SCRIPT = { fencedAdd: FENCED_ADD };
