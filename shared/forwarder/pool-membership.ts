// A forwarder pool's membership in the queue's Redis (forwarder-pool.ts): each round a member heartbeats (a ZSET of
// holder → expiry, leaseMs ahead) with the digest of its registry, and reads back the live members, their digests,
// the start give-ups (members left out of a cluster's ranking for a while) and the quarantine's death records. The
// heartbeat also settles the quarantine's suspicions (cluster-quarantine.ts): this member's own are lapses (it is
// alive), one whose holder's membership expired is a death while syncing.
// The scripts are lua/heartbeat.lua and lua/give-up.lua; the keys are named in forwarder-keys.ts.
import type { RedisClient } from '../queue/redis/redis-connection.js';
import { loadLuaScripts } from '../lua/lua-loader.js';
import { ScriptRunner } from '../lua/script-runner.js';
import {
  DEFAULT_QUARANTINE_DEATHS,
  DEFAULT_QUARANTINE_MS,
  parseDeathRecord,
  parseDeathRecords,
  quarantinedAt,
  type DeathRecord,
} from './cluster-quarantine.js';
import {
  forwarderDeathsKey,
  forwarderDigestsKey,
  forwarderGiveUpsKey,
  forwarderMembersKey,
  forwarderSuspectsKey,
} from './forwarder-keys.js';

const MEMBERSHIP_SCRIPTS = loadLuaScripts('shared/forwarder/lua', ['heartbeat', 'giveUp']);

/** A suspicion the heartbeat settled: a lease that lapsed on a live holder, or a death while syncing. */
export type SettledSuspicion =
  | { readonly outcome: 'lapsed'; readonly cluster: string; readonly holder: string }
  | {
      readonly outcome: 'died';
      readonly cluster: string;
      readonly holder: string;
      /** The death record after this death (undefined: it does not parse). */
      readonly record: DeathRecord | undefined;
      /** This death quarantined the cluster. */
      readonly quarantined: boolean;
    };

/** What a heartbeat reads: the live members, each one's registry digest ('' when it published none), give-ups. */
export type PoolView = {
  readonly members: string[];
  readonly digests: ReadonlyMap<string, string>;
  /** cluster → members that gave it up recently (left out of its ranking). */
  readonly givenUp: ReadonlyMap<string, ReadonlySet<string>>;
  /** Quarantined clusters (at the server's time) and their records. */
  readonly quarantined: ReadonlyMap<string, DeathRecord>;
  /** Clusters whose death record does not parse (treated as absent). */
  readonly unreadable: readonly string[];
  /** The suspicions this heartbeat settled. */
  readonly settled: readonly SettledSuspicion[];
};

/** The heartbeat's flat list of settled suspicions (`outcome, cluster, holder, record, quarantined`, …). */
function parseSettled(flat: unknown): SettledSuspicion[] {
  if (!Array.isArray(flat)) return [];
  const out: SettledSuspicion[] = [];
  for (let i = 0; i + 4 < flat.length; i += 5) {
    const [outcome, cluster, holder, record] = flat.slice(i, i + 4).map(String) as [string, string, string, string];
    if (outcome === 'lapsed') out.push({ outcome, cluster, holder });
    else if (outcome === 'died')
      out.push({ outcome, cluster, holder, record: parseDeathRecord(record), quarantined: Number(flat[i + 4]) === 1 });
  }
  return out;
}

/** One member's view of the pool: heartbeat, give-ups, leaving. */
export class PoolMembership {
  private readonly scripts: ScriptRunner<keyof typeof MEMBERSHIP_SCRIPTS>;

  constructor(
    private readonly redis: RedisClient,
    private readonly queuePrefix: string,
    private readonly holder: string,
    private readonly leaseMs: number,
    private readonly quarantine: { readonly deaths?: number; readonly ms?: number } = {},
  ) {
    this.scripts = new ScriptRunner(redis, forwarderMembersKey(queuePrefix), [], MEMBERSHIP_SCRIPTS);
  }

  /**
   * Adds or refreshes this member (membership and registry digest), drops expired members and give-ups, settles
   * the suspicions, and reads the pool.
   */
  async heartbeat(digest: string): Promise<PoolView> {
    const [members, digests, given, now, deaths, settled] = (await this.scripts.run(
      'heartbeat',
      this.holder,
      this.leaseMs,
      forwarderDigestsKey(this.queuePrefix),
      digest,
      forwarderGiveUpsKey(this.queuePrefix),
      forwarderDeathsKey(this.queuePrefix),
      forwarderSuspectsKey(this.queuePrefix),
      this.quarantine.deaths ?? DEFAULT_QUARANTINE_DEATHS,
      this.quarantine.ms ?? DEFAULT_QUARANTINE_MS,
    )) as [string[], string[], string[], number, unknown[], unknown];
    const givenUp = new Map<string, Set<string>>();
    for (const field of given) {
      const bar = field.indexOf('|');
      if (bar <= 0) continue;
      const cluster = field.slice(0, bar);
      let set = givenUp.get(cluster);
      if (!set) givenUp.set(cluster, (set = new Set()));
      set.add(field.slice(bar + 1));
    }
    const { records, unreadable } = parseDeathRecords(Array.isArray(deaths) ? deaths : []);
    return {
      members,
      digests: new Map(members.map((m, i) => [m, digests[i] ?? ''])),
      givenUp,
      quarantined: quarantinedAt(records, Number(now)),
      unreadable,
      settled: parseSettled(settled),
    };
  }

  /** Leaves this member out of the cluster's ranking for `ms` (server time). */
  async recordGiveUp(cluster: string, ms: number): Promise<void> {
    await this.scripts.run('giveUp', forwarderGiveUpsKey(this.queuePrefix), `${cluster}|${this.holder}`, ms);
  }

  /** Drops this member and its digest (best effort: an expired membership goes by itself). */
  async leave(): Promise<void> {
    await this.redis.zrem(forwarderMembersKey(this.queuePrefix), this.holder).catch(() => undefined);
    await this.redis.hdel(forwarderDigestsKey(this.queuePrefix), this.holder).catch(() => undefined);
  }
}
