// A forwarder pool's membership in the queue's Redis (forwarder-pool.ts): each round a member heartbeats (a ZSET of
// holder → expiry, leaseMs ahead) with the digest of its registry, and reads back the live members, their digests,
// the start give-ups (members left out of a cluster's ranking for a while) and the quarantine's death records.
// The scripts are lua/heartbeat.lua and lua/give-up.lua; the keys are named in forwarder-keys.ts.
import type { Redis } from 'ioredis';
import { loadLuaScripts } from '../lua/lua-loader.js';
import { ScriptRunner } from '../lua/script-runner.js';
import { parseDeathRecords, quarantinedAt, type DeathRecord } from './cluster-quarantine.js';
import { forwarderDeathsKey, forwarderDigestsKey, forwarderGiveUpsKey, forwarderMembersKey } from './forwarder-keys.js';

const MEMBERSHIP_SCRIPTS = loadLuaScripts('shared/forwarder/lua', ['heartbeat', 'giveUp']);

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
};

/** One member's view of the pool: heartbeat, give-ups, leaving. */
export class PoolMembership {
  private readonly scripts: ScriptRunner<keyof typeof MEMBERSHIP_SCRIPTS>;

  constructor(
    private readonly redis: Redis,
    private readonly queuePrefix: string,
    private readonly holder: string,
    private readonly leaseMs: number,
  ) {
    this.scripts = new ScriptRunner(redis, forwarderMembersKey(queuePrefix), [], MEMBERSHIP_SCRIPTS);
  }

  /**
   * Adds or refreshes this member (membership and registry digest), drops expired members and give-ups, and reads
   * the pool.
   */
  async heartbeat(digest: string): Promise<PoolView> {
    const [members, digests, given, now, deaths] = (await this.scripts.run(
      'heartbeat',
      this.holder,
      this.leaseMs,
      forwarderDigestsKey(this.queuePrefix),
      digest,
      forwarderGiveUpsKey(this.queuePrefix),
      forwarderDeathsKey(this.queuePrefix),
    )) as [string[], string[], string[], number, unknown[]];
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
