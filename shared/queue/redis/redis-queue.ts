// The Redis WorkQueue (config name `redis`): our own Lua scripts over ioredis, one per atomic state change.
//
// Why not BullMQ's Queue/Worker: BullMQ OSS cannot give the contract's guarantees.
// - Per-cluster fairness and per-cluster concurrency caps need groups, which are BullMQ Pro only.
// - `deduplication: { id, keepLastIfActive }` gives "1 active + 1 pending" per key, but the pending job can be
//   picked by another worker only after the active one completes *through BullMQ*; there is no fencing token
//   a handler can check before writing, and a stalled job is re-run by the stalled-job checker (one timer per
//   worker), not by whoever calls get() next.
// - The contract's per-key failure count survives across adds (reset only by done()); BullMQ counts
//   attempts per job, and a deduplicated re-add is a new job with attempts = 0.
// So we keep BullMQ's technique (atomic Lua scripts, keys under one prefix) and write the state machine
// ourselves; see lua/ for the transitions (a .lua file each) and redis-keys.ts for the layout. Expired leases are
// reclaimed by every get() (and by any done/retry/renew that meets one), so no process is special.
//
// Signing: with a signingSecret, add() sends HMAC-SHA256(id) and the scripts keep it in the `sig` hash while the
// key is pending or held; get() returns it with each lease and this client checks it (Lua has no HMAC) against the
// current secret and, in a rotation window, the previous one; a key the previous one signed is signed anew as it is
// handed out. A key without a valid one (a forged or corrupt entry) is dead-lettered as "bad signature" with the
// signature it carried, never handed out.
//
// Redis is treated as a cache that can vanish (FLUSHALL, a restart without persistence, eviction): the
// rotation heals itself in get(), and redis-loss.ts notices a lost dataset so the forwarders resync.
//
// Blocked get() calls wait on a BLPOP of a small wake list (one connection per concurrent waiter) with a
// timeout no longer than the next delayed/lease deadline the script reports, capped at 200 ms. As one shard of a
// sharded queue (FLEETQ_QUEUE_SHARDS, sharded-queue.ts) it is asked with poll() and waited on with waitForWork().
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisOptions } from 'ioredis';
import { keyString, MalformedKeyError, parseKey, type ReconcileKey } from '../../kube/key.js';
import {
  BAD_SIGNATURE,
  keyId,
  signatureKeyId,
  signKey,
  verifySignature,
  verifyingSecrets,
} from '../message-signing.js';
import type {
  DeadLetter,
  DoneOptions,
  DoneOutcome,
  FencedAddOutcome,
  WriteFence,
  Lease,
  QueueOptions,
  RedriveOptions,
  RetryOutcome,
} from '../work-queue.js';
import {
  checkedKeyString,
  clusterAndKind,
  errorReason,
  rawKeyId,
  resolveQueueOptions,
  type ResolvedQueueOptions,
} from '../queue-options.js';
import { redactText } from '../../kube/redact-secrets.js';
import { redisKeyPrefix, redisKeys } from './redis-keys.js';
import { connectRedis, duplicateClient, isRedisClient, type RedisClient } from './redis-connection.js';
import { ScriptRunner } from '../../lua/script-runner.js';
import { loadLuaScripts } from '../../lua/lua-loader.js';
import { PREFIX_SCRIPTS, QUEUE_LUA_DIR, REDIS_SCRIPTS, type ScriptName } from './redis-scripts.js';
import { mergeOldestReady, parseOldestReadyReply, READ_LIMITS, type OldestReadyBreakdown } from '../oldest-ready.js';
import { LeaseBuffer } from './lease-buffer.js';
import type { ShardMember, ShardPoll } from '../sharded-queue.js';

export type RedisQueueOptions = QueueOptions & {
  readonly name: string;
  /** An ioredis client to share, or a URL (default redis://127.0.0.1:6379). The queue closes only its own. */
  readonly redis?: RedisClient | string;
  /** Key prefix before the `{name}` hash tag; default `fleetq`. */
  readonly prefix?: string;
  /** Keys taken per round trip; extras wait in this process (their lease is running). Default 1. */
  readonly prefetch?: number;
  /** get() re-checks the rotation against the pending keys at most this often; default 5 000. */
  readonly healEveryMs?: number;
  /** ioredis options for a URL (e.g. `tls: { ca }` for rediss://); see redis-connection.ts. */
  readonly redisOptions?: RedisOptions;
};

const MAX_BLOCK_MS = 200;

/** Scripts that only read, with the prefix as their only header (no queue options). */
const READ_SCRIPTS = loadLuaScripts(QUEUE_LUA_DIR, ['oldestReady']);

/** Longest error text kept in a key's last-outcome record (`last:<id>`). */
export const LAST_ERROR_MAX = 500;

/**
 * The error of a key's last outcome as the scripts record it: `Name: message`, credentials taken out
 * (redactText) before the cap, so a cut never leaves part of a secret, and at most LAST_ERROR_MAX characters.
 */
export function lastErrorText(error: unknown): string {
  const text =
    error instanceof Error
      ? `${error.name}: ${error.message}`
      : typeof error === 'string'
        ? error
        : (JSON.stringify(error) ?? String(error));
  const capped = redactText(text).slice(0, LAST_ERROR_MAX);
  return /[\uD800-\uDBFF]$/.test(capped) ? capped.slice(0, -1) : capped; // no half of a surrogate pair
}

/**
 * The queue instance's id, the part of each fencing token that says who holds a lease (`fleetq describe` shows
 * it): `host/pid/random`, the random part telling apart two queues of one process or a reused pid. The host name
 * keeps only `[A-Za-z0-9._-]`, so the id never holds the held hash's `|` separator; its dots stay, and describe
 * finds the id by dropping the token's last two `.` fields (the call and lease numbers).
 */
export function queueInstanceId(host = hostname(), pid = process.pid): string {
  const h = host.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 63) || 'unknown-host';
  return `${h}/${pid}/${randomUUID().slice(0, 8)}`;
}

/**
 * The ARGV header every queue script starts with (lua/includes/prelude.lua: prefix, lease, signed, backoff,
 * caps).
 */
function queueScriptHeader(prefix: string, options: QueueOptions): (string | number)[] {
  const o = resolveQueueOptions(options);
  const hasCaps = Number.isFinite(o.clusterConcurrency) || Object.keys(o.clusterConcurrencyOverrides).length > 0;
  const signed = o.signingSecret === undefined ? '0' : '1';
  return [prefix, o.leaseMs, signed, o.baseDelayMs, o.maxDelayMs, hasCaps ? '1' : '0'];
}

export class RedisQueue implements ShardMember {
  readonly driver = 'redis' as const;
  private readonly onMalformed: ((raw: string, reason: string) => void) | undefined;
  readonly prefix: string;
  private readonly options: ResolvedQueueOptions;
  private readonly redis: RedisClient;
  private readonly ownsClient: boolean;
  private readonly scripts: ScriptRunner<ScriptName>;
  private readonly readScripts: ScriptRunner<keyof typeof READ_SCRIPTS>;
  private readonly keys: ReturnType<typeof redisKeys>;
  private readonly blockers: RedisClient[] = [];
  private readonly blockersInUse = new Set<RedisClient>();
  private readonly buffer: LeaseBuffer;
  private readonly capArgs: [number, string];
  private readonly healEveryMs: number;
  private closed = false;
  private readonly epochListeners = new Set<() => void>();
  /**
   * Fencing tokens are `${instance}.${call}.${n}`: unique without a Redis counter. The instance id names the
   * process (queueInstanceId: host/pid/random), so `fleetq describe` shows who holds a key.
   */
  private readonly instance = queueInstanceId();
  private calls = 0;

  constructor(options: RedisQueueOptions) {
    this.options = resolveQueueOptions(options);
    this.onMalformed = options.onMalformed;
    this.prefix = redisKeyPrefix(options.name, options.prefix);
    this.keys = redisKeys(this.prefix);
    this.ownsClient = !isRedisClient(options.redis);
    this.redis = isRedisClient(options.redis)
      ? options.redis
      : connectRedis(
          options.redis ?? 'redis://127.0.0.1:6379',
          {},
          {
            ...options.redisOptions,
            enableAutoPipelining: true,
          },
        );
    const o = this.options;
    const header = queueScriptHeader(this.prefix, o);
    this.healEveryMs = Math.max(1, Math.floor(options.healEveryMs ?? 5_000));
    this.scripts = new ScriptRunner(this.redis, this.keys.pending, header, REDIS_SCRIPTS);
    this.readScripts = new ScriptRunner(this.redis, this.keys.pending, [this.prefix], READ_SCRIPTS);
    const cap = Number.isFinite(o.clusterConcurrency) ? o.clusterConcurrency : -1;
    this.capArgs = [cap, JSON.stringify(o.clusterConcurrencyOverrides)];
    this.buffer = new LeaseBuffer(options.prefetch ?? 1, o.leaseMs, (lease) => this.renew(lease));
  }

  async add(key: ReconcileKey): Promise<void> {
    const id = checkedKeyString(key);
    this.noteEpoch(await this.scripts.run('add', id, 0, this.signature(id)));
  }

  async addAfter(key: ReconcileKey, delayMs: number): Promise<void> {
    const id = checkedKeyString(key);
    this.noteEpoch(await this.scripts.run('add', id, Math.max(0, Math.floor(delayMs)), this.signature(id)));
  }

  /** The ids held under a lease that has not expired at `nowMs` (`fleetq status`'s in-flight keys). */
  async liveLeaseIds(nowMs: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.leases, `(${nowMs}`, '+inf');
  }

  /**
   * add(), or addAfter(key, delayMs), behind a lease the caller holds (lua/fenced-add.lua): the lease compare and
   * the enqueue are one script, so a caller that lost its lease enqueues nothing. The fence's keys must be in this
   * queue's slot (its prefix). The data-loss marker is reported in the outcome, not to onEpochMissing's listeners
   * (the caller has its own).
   */
  async addFenced(key: ReconcileKey, fence: WriteFence, delayMs = 0): Promise<FencedAddOutcome> {
    const id = checkedKeyString(key);
    for (const k of [fence.leaseKey, fence.writersKey])
      if (!k.startsWith(this.prefix))
        throw new RangeError(`fenced add: ${JSON.stringify(k)} is not a key of the queue at ${this.prefix}`);
    const reply = Number(
      await this.scripts.run(
        'fencedAdd',
        id,
        Math.max(0, Math.floor(delayMs)),
        this.signature(id),
        fence.leaseKey,
        fence.value,
        fence.writersKey,
        fence.token,
      ),
    );
    return reply === 1 ? 'added' : reply === 2 ? 'added-epoch-missing' : 'refused';
  }

  /**
   * `listener` is called when an enqueue finds the data-loss marker gone (redis-loss.ts): a loss is then seen at
   * the next enqueue, within milliseconds on a busy cluster, not at the watcher's next periodic check. Returns
   * what removes it.
   */
  onEpochMissing(listener: () => void): () => void {
    this.epochListeners.add(listener);
    return () => this.epochListeners.delete(listener);
  }

  private noteEpoch(present: unknown): void {
    if (Number(present) !== 0) return;
    for (const listener of this.epochListeners) listener();
  }

  /**
   * One hand-out attempt without blocking, for a sharded queue (sharded-queue.ts): a lease or none, the wait hint
   * get() would block for, and the clusters in the rotation (its SCARD, in the same round trip) as the shard's
   * weight. Malformed ids met on the way are dead-lettered as get() does.
   */
  async poll(): Promise<ShardPoll> {
    for (;;) {
      if (this.closed) return { lease: null, waitHintMs: -1, readyClusters: 0 };
      const buffered = await this.buffer.take();
      if (buffered)
        return { lease: buffered, waitHintMs: 0, readyClusters: await this.redis.scard(this.keys.rotationMembers) };
      const [{ leases, waitHintMs, discarded }, readyClusters] = await Promise.all([
        this.fetch(this.buffer.capacity),
        this.redis.scard(this.keys.rotationMembers),
      ]);
      const [first, ...rest] = leases;
      if (first) {
        this.buffer.put(rest);
        return { lease: first, waitHintMs, readyClusters };
      }
      if (discarded === 0) return { lease: null, waitHintMs, readyClusters };
    }
  }

  /**
   * Waits for a wake mark (a key added or made ready) on this queue, at most `ms` (and 200 ms); takes no key. A mark
   * taken once `stillWanted` says the wait is over (another shard woke the caller first) is put back, so the next
   * waiter sees it instead of sleeping out its timeout.
   */
  async waitForWork(ms: number, stillWanted?: () => boolean): Promise<void> {
    if (this.closed) return;
    const woke = await this.block(Math.min(ms, MAX_BLOCK_MS));
    if (woke && stillWanted && !stillWanted() && !this.closed) await this.redis.rpush(this.keys.wake, '1');
  }

  async get(waitMs = 0): Promise<Lease | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (this.closed) return null;
      const buffered = await this.buffer.take();
      if (buffered) return buffered;
      const { leases, waitHintMs, discarded } = await this.fetch(this.buffer.capacity);
      const [first, ...rest] = leases;
      if (first) {
        this.buffer.put(rest);
        return first;
      }
      if (discarded > 0) continue; // malformed ids were dead-lettered: look again at once
      const remaining = deadline - Date.now();
      if (remaining <= 0) return null;
      await this.block(Math.min(remaining, waitHintMs < 0 ? MAX_BLOCK_MS : waitHintMs, MAX_BLOCK_MS));
    }
  }

  /**
   * With thenGet (and room in the lease buffer), the release and the next hand-out are one script and one round
   * trip, as BullMQ's moveToFinished fetches the next job: the lease waits in the buffer for this process's next
   * get(). A malformed id handed out this way is dead-lettered here, as get() does.
   */
  async done(lease: Lease, requeueAfterMs?: number, options?: DoneOptions): Promise<DoneOutcome> {
    const after = requeueAfterMs === undefined ? '' : Math.max(0, Math.floor(requeueAfterMs));
    const room = this.buffer.capacity - this.buffer.size;
    if (!options?.thenGet || this.closed || room < 1) {
      const released = await this.scripts.run('done', lease.id, lease.token, after);
      return Number(released) === 1 ? { outcome: 'done' } : { outcome: 'lease-lost' };
    }
    const call = this.handOutArgs(room);
    const reply = (await this.scripts.run('doneGet', lease.id, lease.token, after, ...call.args)) as string[];
    const { leases } = await this.parseHandOut(reply.slice(1), call.grantedAt);
    if (this.closed) for (const l of leases) await this.scripts.run('giveBack', l.id, l.token);
    else this.buffer.put(leases);
    return Number(reply[0]) === 1 ? { outcome: 'done' } : { outcome: 'lease-lost' };
  }

  /**
   * A conflict backs off on the key's conflict count (the `conf` hash); its failure count is untouched. The
   * error, redacted and capped (lastErrorText), is the key's last outcome (retry.lua).
   */
  async retry(lease: Lease, error: unknown, options?: { readonly conflict?: boolean }): Promise<RetryOutcome> {
    const conflict = options?.conflict ? '1' : '0';
    const reply = (await this.scripts.run('retry', lease.id, lease.token, conflict, lastErrorText(error))) as string[];
    if (reply[0] === 'retried') return { outcome: 'retried', delayMs: Number(reply[1]) };
    return { outcome: 'lease-lost' };
  }

  async parkInvalid(raw: string, reason: string): Promise<void> {
    await this.scripts.run('parkInvalid', raw, errorReason(reason));
  }

  /**
   * Keys waiting out a backoff (a failure or conflict count, pending, not held) by cluster: an HSCAN of the
   * failure and conflict hashes at scrape time, and one HMGET of pending per page.
   */
  async backoffBreakdown(): Promise<Array<{ cluster: string; keys: number }>> {
    const backingOff = new Set<string>();
    for (const hash of [this.keys.failures, this.keys.conflicts]) {
      let cursor = '0';
      do {
        const [next, flat] = await this.redis.hscan(hash, cursor, 'COUNT', 1000);
        cursor = next;
        const ids: string[] = [];
        for (let i = 0; i + 1 < flat.length; i += 2) if (Number(flat[i + 1]) > 0) ids.push(flat[i] as string);
        if (ids.length === 0) continue;
        const pending = await this.redis.hmget(this.keys.pending, ...ids);
        ids.forEach((id, i) => {
          if (pending[i] !== null) backingOff.add(id);
        });
      } while (cursor !== '0');
    }
    const counts = new Map<string, number>();
    for (const id of backingOff) {
      const { cluster } = clusterAndKind(id);
      counts.set(cluster, (counts.get(cluster) ?? 0) + 1);
    }
    return [...counts].map(([cluster, keys]) => ({ cluster, keys }));
  }

  async deadLetter(lease: Lease, reason: string): Promise<void> {
    await this.scripts.run('deadLetter', lease.id, lease.token, reason, '0', '', lastErrorText(reason));
  }

  async renew(lease: Lease): Promise<boolean> {
    return (await this.scripts.run('renew', lease.id, lease.token)) === 1;
  }

  async deadLetters(): Promise<DeadLetter[]> {
    return (await this.deadLetterEntries()).map(({ letter }) => letter);
  }

  async redrive(match?: (d: DeadLetter) => boolean, options?: RedriveOptions): Promise<number> {
    let moved = 0;
    for (const { entryId, letter } of await this.deadLetterEntries()) {
      if (match && !match(letter)) continue;
      const id = letter.key !== null ? keyString(letter.key) : options?.raw ? rawKeyId(letter.raw) : undefined;
      if (id === undefined) continue;
      moved += Number(await this.scripts.run('redrive', entryId, this.signature(id), id));
    }
    return moved;
  }

  /** Drops a removed cluster's waiting keys (drainQueueCluster). */
  drainCluster(cluster: string, options?: DrainOptions): Promise<DrainResult> {
    return drainQueueCluster(this.redis, this.prefix, cluster, options);
  }

  async depth(): Promise<number> {
    return this.redis.hlen(this.keys.pending);
  }

  /**
   * Waiting keys by cluster and kind (for workqueue_depth): an HSCAN of the pending hash at scrape time,
   * O(waiting keys), instead of a counter on the hot path.
   */
  async depthBreakdown(): Promise<Array<{ cluster: string; kind: string; depth: number }>> {
    const counts = new Map<string, { cluster: string; kind: string; depth: number }>();
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(this.keys.pending, cursor, 'COUNT', 1000);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const { cluster, kind } = clusterAndKind(flat[i] as string);
        const entry = counts.get(`${cluster}/${kind}`) ?? { cluster, kind, depth: 0 };
        entry.depth++;
        counts.set(`${cluster}/${kind}`, entry);
      }
    } while (cursor !== '0');
    return [...counts.values()];
  }

  /**
   * Queue latency by cluster (oldest-ready.ts): per cluster with a ready key, the ready time of the one that has
   * waited longest, read by lua/oldest-ready.lua on the server's clock. `clusters`: those to look at (status passes
   * the clusters with waiting keys); default the rotation's members. Bounded cost: one script per
   * READ_LIMITS.clustersPerCall clusters, each reading at most READ_LIMITS.perList entries of each cluster's ready
   * list (exact when the list is no longer, else a lower bound: `exact: false`) and the READ_LIMITS.due oldest due
   * delayed keys; never a scan of the whole pending hash.
   */
  async oldestReadyBreakdown(clusters?: Iterable<string>): Promise<OldestReadyBreakdown> {
    const names = [...new Set(clusters ?? (await this.redis.smembers(this.keys.rotationMembers)))];
    const parts: OldestReadyBreakdown[] = [];
    for (let i = 0; i < names.length; i += READ_LIMITS.clustersPerCall) {
      const batch = names.slice(i, i + READ_LIMITS.clustersPerCall);
      const reply = await this.readScripts.run('oldestReady', READ_LIMITS.perList, READ_LIMITS.due, ...batch);
      parts.push(parseOldestReadyReply(reply, READ_LIMITS.due));
    }
    return mergeOldestReady(parts);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const lease of this.buffer.drain()) await this.scripts.run('giveBack', lease.id, lease.token);
    for (const blocker of [...this.blockers, ...this.blockersInUse]) blocker.disconnect();
    if (this.ownsClient) await this.redis.quit();
  }

  /** One round trip: up to `count` leases; malformed ids are dead-lettered here and never handed out. */
  private async fetch(count: number): Promise<{ leases: Lease[]; waitHintMs: number; discarded: number }> {
    const call = this.handOutArgs(count);
    const reply = (await this.scripts.run('get', ...call.args)) as string[];
    return this.parseHandOut(reply, call.grantedAt);
  }

  /** The hand-out's arguments (get's ARGV 7-11) with a token prefix unique to this call. */
  private handOutArgs(count: number): { args: (string | number)[]; grantedAt: number } {
    const tokenPrefix = `${this.instance}.${++this.calls}.`;
    return { args: [count, ...this.capArgs, tokenPrefix, this.healEveryMs], grantedAt: performance.now() };
  }

  /** A hand-out's reply {waitHintMs, then six fields a lease}: the leases, malformed or forged ids dead-lettered. */
  private async parseHandOut(
    reply: string[],
    grantedAt: number,
  ): Promise<{ leases: Lease[]; waitHintMs: number; discarded: number }> {
    const leases: Lease[] = [];
    let discarded = 0;
    const current = this.options.signingSecret === undefined ? undefined : keyId(this.options.signingSecret);
    const secrets = verifyingSecrets(this.options);
    for (let i = 1; i + 5 < reply.length; i += 6) {
      const [id, token, readyAt, failures, conflicts, sig] = reply.slice(i, i + 6) as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      let reason: string | undefined;
      let key: ReconcileKey | undefined;
      try {
        key = parseKey(id);
      } catch (err) {
        if (!(err instanceof MalformedKeyError)) throw err;
        reason = err.message;
      }
      if (key !== undefined && current !== undefined && !verifySignature(secrets, id, sig)) reason = BAD_SIGNATURE;
      if (key === undefined || reason !== undefined) {
        const why = reason ?? 'malformed reconcile key';
        await this.scripts.run('deadLetter', id, token, why, '1', reason === BAD_SIGNATURE ? sig.slice(0, 200) : '');
        this.onMalformed?.(id, why);
        discarded++;
        continue;
      }
      // Verified by a previous secret (or the form without a key id): signed anew while held.
      if (current !== undefined && signatureKeyId(sig) !== current) {
        await this.scripts.run('resign', id, token, this.signature(id));
      }
      leases.push({
        key,
        id,
        token,
        readyAt: Number(readyAt),
        failures: Number(failures),
        conflicts: Number(conflicts),
        grantedAt,
      });
    }
    return { leases, waitHintMs: Number(reply[0]), discarded };
  }

  private signature(id: string): string {
    return this.options.signingSecret === undefined ? '' : signKey(this.options.signingSecret, id);
  }

  /** Waits on the wake list; true when it took a mark. */
  private async block(ms: number): Promise<boolean> {
    if (ms < 1) return false;
    const blocker = this.blockers.pop() ?? duplicateClient(this.redis, { enableAutoPipelining: false });
    this.blockersInUse.add(blocker);
    try {
      return (await blocker.blpop(this.keys.wake, ms / 1000)) !== null;
    } catch (err) {
      if (!this.closed) throw err;
      return false;
    } finally {
      this.blockersInUse.delete(blocker);
      if (!this.closed) this.blockers.push(blocker);
    }
  }

  private async deadLetterEntries(): Promise<Array<{ entryId: string; letter: DeadLetter }>> {
    const raw = await this.redis.hgetall(this.keys.deadLetters);
    const entries = Object.entries(raw).map(([entryId, json]) => {
      const e = JSON.parse(json) as {
        id?: string;
        raw?: string;
        sig?: string;
        reason: string;
        failures: number;
        at: number;
        seq: number;
      };
      let letter: DeadLetter;
      if (typeof e.id === 'string') {
        letter = { key: parseKey(e.id), reason: e.reason, failures: e.failures, at: e.at };
      } else {
        letter = {
          key: null,
          raw: e.raw ?? '',
          ...(typeof e.sig === 'string' && e.sig !== '' && { signature: e.sig }),
          reason: e.reason,
          failures: e.failures,
          at: e.at,
        };
      }
      return { entryId, letter, seq: e.seq };
    });
    return entries.sort((a, b) => a.letter.at - b.letter.at || a.seq - b.seq);
  }
}

export type DrainOptions = {
  /**
   * A key in the queue's slot (`<prefix>…`) deleted in the same atomic step: the cluster's forwarder lease, so a
   * forwarder still watching the cluster is fenced off by the drain itself.
   */
  readonly alsoDelete?: string;
};

export type DrainResult = { readonly dropped: number; readonly rerunMarks: number };

/**
 * Drops a removed cluster's waiting keys from the queue at `prefix` (lua/drain-cluster.lua): every ready or
 * delayed key of the cluster with its failure and conflict counts and signature; a held key finishes its run
 * and its rerun mark is dropped. Idempotent. A function of the prefix, for callers without the queue's options.
 */
export async function drainQueueCluster(
  redis: RedisClient,
  prefix: string,
  cluster: string,
  options: DrainOptions = {},
): Promise<DrainResult> {
  const extra = options.alsoDelete ?? '';
  if (extra !== '' && !extra.startsWith(prefix))
    throw new RangeError(`drain: ${JSON.stringify(extra)} is not a key of the queue at ${prefix}`);
  const runner = new ScriptRunner(redis, redisKeys(prefix).pending, [], PREFIX_SCRIPTS);
  const reply = (await runner.run('drainCluster', prefix, cluster, extra)) as [number, number];
  return { dropped: Number(reply[0]), rerunMarks: Number(reply[1]) };
}
