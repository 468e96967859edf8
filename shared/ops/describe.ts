// `fleetq describe KEY`: one reconcile key's state across the system, read from the queue's Redis in one MULTI
// (a consistent snapshot, on the server's clock) and from the forwarder's cache of the key's cluster:
//   queued      the pending hash (ready time) and the delayed set: ready now, or delayed until when
//   held        the held hash ("token|readyAt") and the lease set (expiry); a rerun asked for while held (dirty)
//   failures    the failure and conflict counts (fail, conf) and the backoff each gives (retry.lua: base·2^(n-1),
//   conflicts   capped at the maximum)
//   dead letter the dead-letter hash entry of the key (a keyed letter's entry id is the key; a "bad signature"
//               letter is a raw entry whose text is the key)
//   last run    the key's last outcome `<prefix>last:<id>` (lastReconcileKey), which the queue's scripts write
//               with the outcome (done, requeued, retried, conflict, dead-lettered) and keep 24 h; "not recorded"
//               when there is none (never run, or more than 24 h ago)
//   last error  that record's error (redacted and capped by the queue), else the dead letter's reason
//   cache       the cached object's resourceVersion and its kind's watermark (RedisCacheStore: the entry is read
//               and verified as a handler reads it; no watermark while no forwarder keeps the cache alive)
// Ids come from the key (validated by parseKey), and every value read back is untrusted: the text rendering
// prints them inert.
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { entryId } from '../cache/cache-entry.js';
import { RedisCacheStore } from '../cache/redis-cache-store.js';
import { keyString, type ReconcileKey } from '../kube/key.js';
import { redisKeyPrefix, redisKeys } from '../queue/redis/redis-keys.js';
import { shardQueueNameOf } from '../queue/queue-shards.js';
import { backoffDelay } from '../queue/work-queue.js';
import { displayText } from './terminal-text.js';

/**
 * Where a key's last-reconcile record is read from: a STRING of LastReconcile as JSON, in the queue's slot, with
 * a 24 h TTL so the records of deleted objects go away by themselves (redis-keys.ts lastOutcome).
 */
export function lastReconcileKey(prefix: string, id: string): string {
  return redisKeys(prefix).lastOutcome(id);
}

export type LastReconcile = {
  /** Server ms when the run ended. */
  readonly at: number;
  /** done | requeued | retried | conflict | dead-lettered */
  readonly result: string;
  /** The error of a run that failed (retried, conflict, dead-lettered), capped. */
  readonly error?: string;
};

export type KeyDescription = {
  readonly key: string;
  readonly queue: string;
  /** The Redis server's time the snapshot was read at. */
  readonly at: string;
  /** held, ready, delayed, dead-lettered, or not queued (in that order: a held key may also be parked). */
  readonly state: 'held' | 'ready' | 'delayed' | 'dead-lettered' | 'not queued';
  /** Waiting to be handed out: since (ready) or until (delayed) readyAt. */
  readonly queued: { readonly readyAt: string; readonly delayed: boolean; readonly inMs: number } | null;
  readonly held: {
    /** The queue client holding it: the token's instance id, `host/pid/random` (one per process's queue). */
    readonly holder: string;
    readonly token: string;
    readonly leaseExpiresAt: string | null;
    readonly leaseExpiresInMs: number | null;
    /** A rerun asked for while held (an event during the run): due at this time after the run. */
    readonly rerunAt: string | null;
  } | null;
  readonly failures: { readonly count: number; readonly backoffMs: number | null };
  readonly conflicts: { readonly count: number; readonly backoffMs: number | null };
  readonly deadLetter: { readonly reason: string; readonly failures: number; readonly parkedAt: string } | null;
  /** The last outcome's error, else the dead letter's reason; null (not recorded) when neither has one. */
  readonly lastError: string | null;
  /** null: not recorded. */
  readonly lastReconcile: { readonly at: string; readonly result: string; readonly error: string | null } | null;
  readonly cache: {
    /** The kind of the object cached for this key (TTLAfterFinished keys name Jobs). */
    readonly kind: string;
    /** null: not in the cache (not listed yet, deleted, or its entry did not verify). */
    readonly resourceVersion: string | null;
    /** null: the cache of this kind is not current (no forwarder alive, relisting, never listed). */
    readonly watermark: string | null;
  };
  /** What the stores do not record, by field name (printed as "not recorded"). */
  readonly notRecorded: readonly string[];
};

export type DescribeOptions = {
  readonly queue: string;
  /** FLEETQ_QUEUE_SHARDS: the key is read from its cluster's shard queue (queue-shards.ts). Default 1. */
  readonly shards?: number;
  /** Key prefix of the queue and cache (FLEETQ_REDIS_PREFIX); default `fleetq`. */
  readonly prefix?: string;
  /** The queue's backoff (queue-options.ts resolved): base and cap in ms. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** The kind of the object the key's controller reconciles (its descriptor's `for.kind`); default the key's. */
  readonly objectKind?: string;
  /** The queue's signing secrets (cache entries carry MACs with them). */
  readonly signingSecrets?: readonly string[];
};

/** The backoff retry.lua gave the n-th consecutive failure (or conflict): base·2^(n-1), at most max; null for 0. */
export function backoffAfter(count: number, baseMs: number, maxMs: number): number | null {
  return count > 0 ? Math.floor(backoffDelay(count - 1, baseMs, maxMs)) : null;
}

export async function describeKey(redis: RedisClient, key: ReconcileKey, o: DescribeOptions): Promise<KeyDescription> {
  const id = keyString(key);
  const queue = shardQueueNameOf(o.queue, o.shards ?? 1, key.cluster);
  const prefix = redisKeyPrefix(queue, o.prefix);
  const k = redisKeys(prefix);
  const replies = await redis
    .multi()
    .time()
    .hget(k.pending, id)
    .zscore(k.delayed, id)
    .hget(k.held, id)
    .zscore(k.leases, id)
    .hget(k.dirty, id)
    .hget(k.failures, id)
    .hget(k.conflicts, id)
    .hget(k.deadLetters, id)
    .get(lastReconcileKey(prefix, id))
    .exec();
  if (replies === null) throw new Error(`describe ${id}: the Redis transaction was aborted; run it again`);
  for (const [err] of replies) if (err) throw err;
  const [time, pending, delayedAt, held, leaseExpiry, dirty, fail, conf, letter, last] = replies.map(([, v]) => v) as [
    [string, string],
    string | null,
    string | null,
    string | null,
    string | null,
    string | null,
    string | null,
    string | null,
    string | null,
    string | null,
  ];
  const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
  const iso = (ms: number): string => new Date(ms).toISOString();
  const notRecorded: string[] = [];

  const queued =
    pending === null
      ? null
      : { readyAt: iso(Number(pending)), delayed: delayedAt !== null, inMs: Math.max(0, Number(pending) - now) };
  let heldBy: KeyDescription['held'] = null;
  if (held !== null) {
    const token = held.split('|')[0] ?? '';
    const expiry = leaseExpiry === null ? null : Number(leaseExpiry);
    heldBy = {
      holder: tokenHolder(token),
      token,
      leaseExpiresAt: expiry === null ? null : iso(expiry),
      leaseExpiresInMs: expiry === null ? null : expiry - now,
      rerunAt: dirty === null ? null : iso(Number(dirty)),
    };
  }
  const failures = Number(fail ?? 0);
  const conflicts = Number(conf ?? 0);
  const deadLetter = parseLetter(letter ?? (await rawLetterOf(redis, k.deadLetters, id)));
  const lastRun = parseLast(last);
  if (lastRun === null) notRecorded.push('lastReconcile');
  const lastError = lastRun?.error ?? deadLetter?.reason ?? null;
  if (lastError === null) notRecorded.push('lastError');

  const objectKind = o.objectKind ?? key.kind;
  const cache = new RedisCacheStore({
    redis,
    cluster: key.cluster,
    ...(o.prefix !== undefined && { prefix: o.prefix }),
    ...(o.signingSecrets && { signingSecrets: o.signingSecrets }),
  });
  const [object, watermark] = await Promise.all([
    cache.get(entryId(objectKind, key.namespace, key.name)),
    cache.watermark(objectKind),
  ]);
  const rv = object?.metadata?.resourceVersion;

  const state: KeyDescription['state'] =
    heldBy !== null
      ? 'held'
      : queued !== null
        ? queued.delayed
          ? 'delayed'
          : 'ready'
        : deadLetter !== null
          ? 'dead-lettered'
          : 'not queued';
  return {
    key: id,
    queue,
    at: iso(now),
    state,
    queued,
    held: heldBy,
    failures: { count: failures, backoffMs: backoffAfter(failures, o.baseDelayMs, o.maxDelayMs) },
    conflicts: { count: conflicts, backoffMs: backoffAfter(conflicts, o.baseDelayMs, o.maxDelayMs) },
    deadLetter,
    lastError,
    lastReconcile: lastRun && { at: iso(lastRun.at), result: lastRun.result, error: lastRun.error ?? null },
    cache: { kind: objectKind, resourceVersion: typeof rv === 'string' ? rv : null, watermark: watermark ?? null },
    notRecorded,
  };
}

/**
 * The queue instance in a fencing token `instance.call.n` (redis-queue.ts): all but the last two fields, since a
 * host name in the instance id may hold dots.
 */
export function tokenHolder(token: string): string {
  return /^(.+)\.\d+\.\d+$/.exec(token)?.[1] ?? token;
}

function parseJson(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A raw letter whose text is the key: a message parked as "bad signature" (signed by a secret the workers did not
 * know) is stored under `raw:<seq>`, not under its key. One HSCAN of the dead-letter hash, only when the key has
 * no letter of its own.
 */
async function rawLetterOf(redis: RedisClient, hash: string, id: string): Promise<string | null> {
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(hash, cursor, 'MATCH', 'raw:*', 'COUNT', 1000);
    cursor = next;
    for (let i = 1; i < flat.length; i += 2) if (parseJson(flat[i] ?? null)?.raw === id) return flat[i] ?? null;
  } while (cursor !== '0');
  return null;
}

function parseLetter(text: string | null): KeyDescription['deadLetter'] {
  const e = parseJson(text);
  if (e === null || typeof e.at !== 'number') return null;
  return {
    reason: typeof e.reason === 'string' ? e.reason : '',
    failures: typeof e.failures === 'number' ? e.failures : 0,
    parkedAt: new Date(e.at).toISOString(),
  };
}

function parseLast(text: string | null): LastReconcile | null {
  const e = parseJson(text);
  if (e === null || typeof e.at !== 'number' || typeof e.result !== 'string') return null;
  return { at: e.at, result: e.result, ...(typeof e.error === 'string' && { error: e.error }) };
}

/** `5ms`, `1.5s`, `4m10s`, `2h`: how long, for the text rendering. */
export function formatSpan(ms: number): string {
  if (Math.abs(ms) < 1_000) return `${Math.round(Math.abs(ms))}ms`;
  const s = Math.round(Math.abs(ms) / 100) / 10;
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m${Math.round(s % 60)}s`;
  return `${Math.round(m / 60)}h`;
}

const NOT_RECORDED = 'not recorded';

/** The human rendering: one line per fact, `Field: value`, values from Redis printed inert. */
export function formatDescription(d: KeyDescription): string {
  const when = (at: string, inMs: number): string => (inMs > 0 ? `${at} (in ${formatSpan(inMs)})` : at);
  const queued =
    d.queued === null
      ? 'no'
      : d.queued.delayed
        ? `delayed until ${when(d.queued.readyAt, d.queued.inMs)}`
        : `ready since ${d.queued.readyAt}`;
  const held =
    d.held === null
      ? 'no'
      : `by ${displayText(d.held.holder, 80)} (token ${displayText(d.held.token, 120)}), lease expires ` +
        (d.held.leaseExpiresAt === null
          ? 'unknown (no lease entry)'
          : `${d.held.leaseExpiresAt} (${(d.held.leaseExpiresInMs ?? 0) >= 0 ? 'in ' : ''}${formatSpan(
              d.held.leaseExpiresInMs ?? 0,
            )}${(d.held.leaseExpiresInMs ?? 0) < 0 ? ' ago: expired, reclaimed by the next get' : ''})`) +
        (d.held.rerunAt === null ? '' : `; runs again after it, due ${d.held.rerunAt}`);
  const count = (c: { count: number; backoffMs: number | null }): string =>
    c.backoffMs === null ? String(c.count) : `${c.count} (backoff ${formatSpan(c.backoffMs)})`;
  const letter =
    d.deadLetter === null
      ? 'none'
      : `parked ${d.deadLetter.parkedAt} after ${d.deadLetter.failures} failure(s): ` +
        displayText(d.deadLetter.reason, 500);
  const last =
    d.lastReconcile === null
      ? NOT_RECORDED
      : `${displayText(d.lastReconcile.result, 40)} at ${d.lastReconcile.at} ` +
        `(${formatSpan(Date.parse(d.at) - Date.parse(d.lastReconcile.at))} ago)`;
  const cache =
    `${d.cache.kind} ` +
    (d.cache.resourceVersion === null
      ? 'not in the cache'
      : `resourceVersion ${displayText(d.cache.resourceVersion, 40)}`) +
    (d.cache.watermark === null
      ? ' (cache not current: no forwarder keeps it, or it is relisting)'
      : ` (cache current at ${displayText(d.cache.watermark, 40)})`);
  const rows: Array<[string, string]> = [
    ['Key', displayText(d.key, 520)],
    ['Queue', displayText(d.queue, 80)],
    ['At', d.at],
    ['State', d.state],
    ['Queued', queued],
    ['Held', held],
    ['Failures', count(d.failures)],
    ['Conflicts', count(d.conflicts)],
    ['Dead letter', letter],
    ['Last error', d.lastError === null ? NOT_RECORDED : displayText(d.lastError, 500)],
    ['Last reconcile', last],
    ['Cached object', cache],
  ];
  const width = Math.max(...rows.map(([f]) => f.length)) + 3;
  return rows.map(([field, value]) => `${`${field}:`.padEnd(width)}${value}`).join('\n');
}
