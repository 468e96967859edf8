// Queue latency per cluster: how long the key that has waited longest among the keys ready to be handed out (due,
// not delayed into the future, not held) has waited since its ready time. That is the wait
// workqueue_queue_duration_seconds would record for that key were it handed out now: a lease's readyAt is the
// same ready time (client-go counts from the add; a key re-added while held counts from that add, as here).
// The memory and redis drivers give it (oldestReadyBreakdown); SQS cannot tell it per cluster.

/** One cluster's oldest ready key. */
export type OldestReady = {
  readonly cluster: string;
  /** Its ready time (ms since the epoch, on the queue's clock: the Redis server's TIME, or the memory queue's). */
  readonly oldestReadyAt: number;
  /** How long it has waited, at that clock's now (ms). */
  readonly ageMs: number;
  /**
   * false: the cluster had more ready keys than were read (redis: the first READ_LIMITS.perList of its ready list),
   * so a key put back out of order further down is not seen and the age is a lower bound.
   */
  readonly exact: boolean;
};

export type OldestReadyBreakdown = {
  /** One row per cluster with a ready key; a cluster without a row has none. */
  readonly clusters: readonly OldestReady[];
  /**
   * Ready keys left out: their stored ready time was not a positive number no later than now (a corrupt entry, or
   * a Redis server whose clock went back).
   */
  readonly unusable: number;
  /**
   * More keys were past their delay but not yet moved to a ready list than were read (READ_LIMITS.due): the
   * oldest of them were counted, a cluster whose due keys were all beyond them may lack its figure.
   */
  readonly dueTruncated: boolean;
};

/** What the redis driver reads per call (lua/oldest-ready.lua), so one call's cost is bounded. */
export const READ_LIMITS = {
  /** Entries read at the head of each cluster's ready list. */
  perList: 100,
  /** Due delayed keys read (oldest ready times first), once per script call. */
  due: 1000,
  /** Clusters per script call: each call blocks Redis for its clusters' reads only. */
  clustersPerCall: 100,
} as const;

/** A count the script returned as text: a non-negative integer, else 0. */
function count(v: unknown): number {
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/**
 * The reply of lua/oldest-ready.lua: `[now, dueRead, then per cluster: cluster, oldest ('' = none), listLength,
 * listRead, skipped]`. A figure that does not parse is left out and counted in `unusable`, never shown.
 */
export function parseOldestReadyReply(reply: unknown, dueLimit: number): OldestReadyBreakdown {
  if (!Array.isArray(reply) || reply.length < 2) throw new TypeError('oldestReady: reply is not a list');
  const now = Number(reply[0]);
  if (!Number.isFinite(now)) throw new TypeError(`oldestReady: the server time ${String(reply[0])} is not a number`);
  const clusters: OldestReady[] = [];
  let unusable = 0;
  for (let i = 2; i + 4 < reply.length; i += 5) {
    const [cluster, oldest, length, read, skipped] = reply.slice(i, i + 5) as unknown[];
    unusable += count(skipped);
    if (oldest === '' || oldest === null || oldest === undefined) continue;
    const at = Number(oldest);
    if (!Number.isFinite(at) || at <= 0 || at > now) {
      unusable++;
      continue;
    }
    clusters.push({
      cluster: String(cluster),
      oldestReadyAt: at,
      ageMs: now - at,
      exact: count(length) <= count(read),
    });
  }
  return { clusters, unusable, dueTruncated: count(reply[1]) >= dueLimit };
}

/** Several calls' breakdowns as one (their clusters are distinct). */
export function mergeOldestReady(parts: readonly OldestReadyBreakdown[]): OldestReadyBreakdown {
  return {
    clusters: parts.flatMap((p) => p.clusters),
    unusable: parts.reduce((n, p) => n + p.unusable, 0),
    dueTruncated: parts.some((p) => p.dueTruncated),
  };
}
