// Quarantine of a cluster whose forwarder holders keep dying while they sync it (forwarder-pool.ts): one tenant's
// cluster (huge objects, an apiserver that floods) must not take down every member of a pool in turn.
//
// Attribution: only a death while the holder was still SYNCING the cluster (its first lists not finished) counts,
// and only a holder that died: not one that is alive but was late renewing (a starved or overloaded member).
// Three HASHes in the queue's Redis (the queue prefix: the leases' slot), written by the lease and membership
// scripts (forwarder-lease.ts, pool-membership.ts, lua/), read here (their names: forwarder-keys.ts):
//   fwd:syncing  cluster → `<token>|<bytes>|<report>`: set by ACQUIRE with the new token, refreshed on each renewal
//                while syncing with the largest object the holder's forwarder has seen, removed when its first
//                lists finish (SYNCED) or it releases the lease. A mark ACQUIRE still finds is a holder that neither
//                synced nor released: its lease lapsed. Whose lapse it was decides:
//                - the acquirer's own mark (the same process took it back): alive, a lapse;
//                - a holder still a live pool member (fwd:members, membership expiry ahead): a suspicion;
//                - a holder that is no member (never was, left, or its membership expired): it died (or was
//                  partitioned, or paused past its membership): one death.
//   fwd:suspects cluster → `<sinceMs>|<bytes>|<report>`: the suspicions. HEARTBEAT settles them: its own
//                suspicions the heartbeating member drops (it is alive: a lapse, fleetq_forwarder_lease_lapses_total);
//                one whose holder is no longer a live member is one death, counted as ACQUIRE counts one. A crashed
//                holder whose membership outlives its lease is so counted a round later, never missed: it cannot
//                heartbeat again, its membership expires at most a round after its lease, and any member's next
//                heartbeat (or the next ACQUIRE that finds a later holder's mark) counts it; a suspicion has no
//                expiry of its own. SYNCED drops the cluster's suspicion with its deaths.
//   fwd:deaths   cluster → `<deaths>|<sinceMs>|<untilMs>|<bytes>|<report>`: consecutive deaths while syncing, and
//                the largest object a dead holder reported; at the threshold ACQUIRE or HEARTBEAT sets since/until
//                (server ms); ACQUIRE refuses the cluster until then (a member holding it when HEARTBEAT quarantines
//                it releases it). A holder that finishes syncing removes it (count reset); after `until` one more
//                death re-quarantines at once (the count is kept); `fleetq forwarder unquarantine` removes it.
// A member starved past its whole membership (no heartbeat for leaseMs) is taken for dead: nothing tells it apart.
// <report> is JSON {holder, resource?, object?}. Everything read back is untrusted: parsed here, and a value that
// does not parse is treated as absent (and said by the caller), never thrown on.
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { forwarderDeathsKey } from './forwarder-keys.js';

export const DEFAULT_QUARANTINE_DEATHS = 3;
export const DEFAULT_QUARANTINE_MS = 3_600_000;

/** The largest object a holder saw while syncing (resource and namespace/name absent when it saw none yet). */
export type LargestObject = {
  readonly holder: string;
  readonly resource?: string;
  readonly object?: string;
  readonly bytes: number;
};

export type DeathRecord = {
  /** Holders in a row that died while syncing the cluster. */
  readonly deaths: number;
  /** Server ms when it was (last) quarantined; 0 when it never was. */
  readonly sinceMs: number;
  /** Server ms until which it is quarantined; 0 when it never was. */
  readonly untilMs: number;
  /** The largest object the dead holders reported (undefined when the report does not parse). */
  readonly largest?: LargestObject;
};

/** The longest string kept of a report field (a holder, resource or object name). */
const MAX_FIELD = 300;
/** At most 15 digits: every such number is a safe integer (and Lua's doubles hold it exactly). */
const NUM = '(\\d{1,15})';
const MARK = new RegExp(`^${NUM}\\|${NUM}\\|(.*)$`, 's');
const RECORD = new RegExp(`^${NUM}\\|${NUM}\\|${NUM}\\|${NUM}\\|(.*)$`, 's');

const field = (v: unknown): string | undefined =>
  typeof v === 'string' && v.length > 0 ? v.slice(0, MAX_FIELD) : undefined;

/** The report JSON a syncing mark carries (fields capped). */
export function reportJson(report: Omit<LargestObject, 'bytes'>): string {
  return JSON.stringify({
    holder: report.holder.slice(0, MAX_FIELD),
    ...(report.resource !== undefined && { resource: report.resource.slice(0, MAX_FIELD) }),
    ...(report.object !== undefined && { object: report.object.slice(0, MAX_FIELD) }),
  });
}

/** `<token>|<bytes>|<report>`, as RENEW writes it while the holder syncs. */
export function syncingMark(token: number, largest: LargestObject): string {
  return `${token}|${Math.max(0, Math.floor(largest.bytes))}|${reportJson(largest)}`;
}

function parseReport(json: string, bytes: number): LargestObject | undefined {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const holder = field(o.holder);
  if (holder === undefined) return undefined;
  const resource = field(o.resource);
  const object = field(o.object);
  return { holder, ...(resource !== undefined && { resource }), ...(object !== undefined && { object }), bytes };
}

export function parseSyncingMark(value: string): { token: number; largest?: LargestObject } | undefined {
  const m = MARK.exec(value);
  if (!m) return undefined;
  const largest = parseReport(m[3] as string, Number(m[2]));
  return { token: Number(m[1]), ...(largest && { largest }) };
}

export function parseDeathRecord(value: string): DeathRecord | undefined {
  const m = RECORD.exec(value);
  if (!m) return undefined;
  const largest = parseReport(m[5] as string, Number(m[4]));
  return { deaths: Number(m[1]), sinceMs: Number(m[2]), untilMs: Number(m[3]), ...(largest && { largest }) };
}

/** HGETALL of fwd:deaths (a flat [field, value, …] list) → records, and the clusters whose value did not parse. */
export function parseDeathRecords(flat: readonly unknown[]): {
  records: Map<string, DeathRecord>;
  unreadable: string[];
} {
  const records = new Map<string, DeathRecord>();
  const unreadable: string[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const cluster = flat[i];
    const value = flat[i + 1];
    if (typeof cluster !== 'string') continue;
    const record = typeof value === 'string' ? parseDeathRecord(value) : undefined;
    if (record) records.set(cluster, record);
    else unreadable.push(cluster);
  }
  return { records, unreadable };
}

export function isQuarantined(record: DeathRecord | undefined, nowMs: number): boolean {
  return record !== undefined && record.untilMs > nowMs;
}

/** The clusters quarantined at nowMs (server time). */
export function quarantinedAt(records: ReadonlyMap<string, DeathRecord>, nowMs: number): Map<string, DeathRecord> {
  return new Map([...records].filter(([, r]) => isQuarantined(r, nowMs)));
}

/** What an operator does about a quarantined cluster (the error log line and the docs say it). */
export function remedy(cluster: string): string {
  return (
    'fix or remove the object (or the cluster’s registry entry), then run: ' +
    `fleetq forwarder unquarantine ${cluster}`
  );
}

/** A quarantine's figures for a log line: the largest object in words, the times as ISO. */
export function describeRecord(record: DeathRecord): Record<string, unknown> {
  const l = record.largest;
  return {
    deaths: record.deaths,
    largestObject:
      l?.object === undefined
        ? 'none reported (the holders died before their forwarders saw an object)'
        : { resource: l.resource, object: l.object, bytes: l.bytes, holder: l.holder },
    ...(record.untilMs > 0 && {
      since: new Date(record.sinceMs).toISOString(),
      until: new Date(record.untilMs).toISOString(),
    }),
  };
}

/** Every cluster's death record (for status); values that do not parse come back as unreadable. */
export async function readDeathRecords(
  redis: RedisClient,
  queuePrefix: string,
): Promise<{ records: Map<string, DeathRecord>; unreadable: string[] }> {
  return parseDeathRecords(await redis.hgetall(forwarderDeathsKey(queuePrefix)).then((h) => Object.entries(h).flat()));
}

/**
 * Lifts a cluster's quarantine and forgets its deaths; the record removed (undefined: there was none). A suspicion
 * still pending stays: if its holder did die, that death is counted afresh.
 */
export async function liftQuarantine(
  redis: RedisClient,
  queuePrefix: string,
  cluster: string,
): Promise<{ removed: boolean; record?: DeathRecord }> {
  const key = forwarderDeathsKey(queuePrefix);
  const [[, value], [, removed]] = ((await redis.multi().hget(key, cluster).hdel(key, cluster).exec()) ?? [
    [null, null],
    [null, 0],
  ]) as [[unknown, unknown], [unknown, unknown]];
  const record = typeof value === 'string' ? parseDeathRecord(value) : undefined;
  return { removed: removed === 1, ...(record && { record }) };
}
