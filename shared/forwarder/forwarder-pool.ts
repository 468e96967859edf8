// A pool of forwarder processes sharing a fleet: each cluster's watch is held by exactly one forwarder at a
// time, under a lease in the queue's Redis (forwarder-lease.ts), and every enqueue and checkpoint write of that
// cluster is fenced by it (fenced-writes.ts).
//
// Every tick (leaseMs / 3) a forwarder:
//   1. renews the leases it holds; one refused, or whose local deadline passed, is lost: its forwarder stops;
//   2. re-reads the registry (runtime/registry-reload.ts): a changed cluster's forwarder is stopped, then started again
//      with its new entry (never two forwarders of one cluster in this process); added and removed clusters wait
//      for step 4;
//   3. heartbeats into the membership set (a ZSET of holder → expiry, leaseMs ahead) with the digest of its
//      registry (registryDigest), and reads the live members, their digests and the start give-ups;
//   4. only when every live member reports the same digest: drains the clusters removed from the registry
//      (stop, release, cluster-drain.ts), computes the assignment (cluster-assignment.ts: the same map on every
//      forwarder), gives up the clusters assigned to another live forwarder (stop, write checkpoints, release:
//      the other takes it next tick) and takes the free clusters assigned to it, starting their forwarders from
//      the checkpoints. While the digests differ (a ConfigMap update reaches pods at different times) a member
//      keeps what it holds, takes nothing new and drains nothing: members with different registries would
//      otherwise compute different assignments (a registered cluster left unwatched, a removed one drained by
//      one member and taken again by another). fleetq_forwarder_registry_agreed is 0 meanwhile.
// A cluster whose forwarder fails to start maxStartFailures rounds in a row is given up: the lease is released
// and the member is left out of that cluster's ranking for startGiveUpMs (a HASH every member reads with its
// heartbeat), so another member tries it; each give-up is logged as an error and counted
// (fleetq_forwarder_start_giveups_total).
// A cluster whose holders keep dying while they sync it (cluster-quarantine.ts: its first lists never finish
// before the holder dies, e.g. of one tenant's huge objects) is QUARANTINED after quarantineDeaths such deaths in a
// row: no member takes it for quarantineMs (the lease script refuses it), the assignment leaves it out, it is not
// warned of as unheld, and the member that found the last death logs an error naming the largest object the dead
// holders reported (fleetq_forwarder_quarantined_clusters, fleetq_forwarder_deaths_while_syncing_total; `fleetq
// status`; `fleetq forwarder unquarantine <cluster>` lifts it). A holder whose first lists finish resets the count.
// A dead, partitioned or paused forwarder stops renewing: its leases and membership expire after leaseMs,
// the others' next tick assigns its clusters among themselves and takes them: within leaseMs + leaseMs / 3 +
// one round trip (20 s for the default 15 s lease), then the watch resumes from the checkpoint (410: relist).
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { fencedCacheStore } from '../cache/cache-fence.js';
import type { CacheStore } from '../cache/cache-store.js';
import type { RedisCheckpointStore } from '../queue/history/checkpoint-store.js';
import type { QueueOptions, WorkQueue } from '../queue/work-queue.js';
import { ScriptRunner } from '../queue/redis/script-runner.js';
import { Logger } from '../runtime/logger.js';
import { assignClusters } from './cluster-assignment.js';
import { drainCluster } from './cluster-drain.js';
import {
  DEFAULT_QUARANTINE_DEATHS,
  DEFAULT_QUARANTINE_MS,
  describeRecord,
  forwarderDeathsKey,
  forwarderSyncingKey,
  parseDeathRecords,
  quarantinedAt,
  remedy,
  type DeathRecord,
  type LargestObject,
} from './cluster-quarantine.js';
import { FencedCheckpoints, FencedQueue, leaseCacheFence, type FenceRefusals } from './fenced-writes.js';
import { Forwarder, type ForwarderOptions } from './forwarder.js';
import {
  DEFAULT_FORWARDER_LEASE_MS,
  ForwarderLease,
  forwarderLeaseKey,
  forwarderMembersKey,
} from './forwarder-lease.js';
import { poolMetrics, type PoolMetrics } from './pool-metrics.js';
import type { RegistryReload } from '../runtime/registry-reload.js';

export type ForwarderPoolOptions = {
  /** The queue's Redis: leases, membership, fenced enqueues and checkpoints. */
  readonly redis: Redis;
  /** The Redis queue's prefix (RedisQueue.prefix). */
  readonly queuePrefix: string;
  /** The queue's options (lease, backoff, caps, signing secret) as the queue was built with them: fenced enqueues run its Lua. */
  readonly queueOptions?: QueueOptions;
  /** The queue itself, for parkInvalid (not fenced). */
  readonly queue: Pick<WorkQueue, 'parkInvalid'>;
  /** Checkpoints in the same Redis: saves go through the fence. */
  readonly checkpoints: RedisCheckpointStore;
  readonly registry: RegistryReload;
  /** Lease length; default 15 000. A dead holder's clusters are taken within about leaseMs * 4/3. */
  readonly leaseMs?: number;
  /** Failed forwarder starts in a row (one per round) after which the lease is given up; default 3. */
  readonly maxStartFailures?: number;
  /** How long a member that gave a cluster up is left out of its ranking; default 10 × leaseMs. */
  readonly startGiveUpMs?: number;
  /** Holders in a row that died while syncing a cluster before it is quarantined; default 3. */
  readonly quarantineDeaths?: number;
  /** How long a quarantine lasts (server time); default 1 h. */
  readonly quarantineMs?: number;
  /** This forwarder's name in the pool; default `<hostname>/<pid>/<random>`. */
  readonly holder?: string;
  readonly logger?: Logger;
  readonly metrics?: Registry;
  readonly cacheFor?: (cluster: string) => CacheStore;
  /** Every cluster's forwarder options beyond its identity, queue and checkpoints. */
  readonly forwarder: Omit<
    ForwarderOptions,
    | 'cluster'
    | 'kubeConfig'
    | 'owns'
    | 'handOver'
    | 'queue'
    | 'checkpoints'
    | 'cache'
    | 'memory'
    | 'logger'
    | 'registry'
  >;
};

type Held = {
  readonly lease: ForwarderLease;
  forwarder?: Forwarder;
  /** Set while the forwarder is being stopped (lost, released or removed). */
  leaving?: Promise<void>;
  /** Set while the forwarder is stopped for a restart (changed entry): no new one starts before it resolves. */
  stopping?: Promise<void>;
  /** Failed starts in a row. */
  failedStarts: number;
  /** The round of the last start attempt: at most one a round. */
  startRound?: number;
  /** This holder's forwarder finished its first lists; `syncNoted`: Redis was told (its syncing mark removed). */
  synced?: boolean;
  syncNoted?: boolean;
};

/** What a heartbeat reads: the live members, each one's registry digest ('' when it published none), give-ups. */
type PoolView = {
  readonly members: string[];
  readonly digests: ReadonlyMap<string, string>;
  /** cluster → members that gave it up recently (left out of its ranking). */
  readonly givenUp: ReadonlyMap<string, ReadonlySet<string>>;
  /** Quarantined clusters (at the server's time) and their records. */
  readonly quarantined: ReadonlyMap<string, DeathRecord>;
  /** Clusters whose death record does not parse (treated as absent). */
  readonly unreadable: readonly string[];
};

const NOW_LUA = `
local T = redis.call('TIME')
local NOW = tonumber(T[1]) * 1000 + math.floor(tonumber(T[2]) / 1000)
`;

/**
 * KEYS[1] members ZSET; ARGV 1 holder, 2 leaseMs, 3 digests HASH, 4 this member's digest, 5 give-ups HASH,
 * 6 deaths HASH (cluster-quarantine.ts).
 * Adds or refreshes this member and its digest, drops expired members (and their digests) and expired give-ups.
 * → { live members, their digests ('' when none), live give-up fields `<cluster>|<holder>`, server ms,
 *     the death records as HGETALL gives them (parsed in TypeScript) }
 */
const HEARTBEAT = `${NOW_LUA}
redis.call('ZADD', KEYS[1], NOW + tonumber(ARGV[2]), ARGV[1])
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', NOW)) do redis.call('HDEL', ARGV[3], m) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', NOW)
redis.call('HSET', ARGV[3], ARGV[1], ARGV[4])
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local digests = {}
for i, m in ipairs(members) do digests[i] = redis.call('HGET', ARGV[3], m) or '' end
local given = {}
local g = redis.call('HGETALL', ARGV[5])
for i = 1, #g, 2 do
  if tonumber(g[i + 1]) <= NOW then redis.call('HDEL', ARGV[5], g[i]) else given[#given + 1] = g[i] end
end
return { members, digests, given, NOW, redis.call('HGETALL', ARGV[6]) }`;

/** ARGV 1 give-ups HASH, 2 field `<cluster>|<holder>`, 3 ms. Records a give-up expiring ms from now (server time). */
const GIVE_UP = `${NOW_LUA}
redis.call('HSET', ARGV[1], ARGV[2], NOW + tonumber(ARGV[3]))
return 1`;

/** HASH holder → the digest of its registry (registryDigest), written with each heartbeat. */
export function forwarderDigestsKey(queuePrefix: string): string {
  return `${queuePrefix}fwd:digests`;
}

/** HASH `<cluster>|<holder>` → server ms until which that member is left out of the cluster's ranking. */
export function forwarderGiveUpsKey(queuePrefix: string): string {
  return `${queuePrefix}fwd:giveups`;
}

export class ForwarderPool {
  readonly holder: string;
  readonly leaseMs: number;
  /** Started forwarders by cluster (what resyncOnRedisLoss resyncs). */
  readonly forwarders = new Map<string, Forwarder>();
  private readonly held = new Map<string, Held>();
  private readonly logger: Logger;
  private readonly metrics: PoolMetrics;
  private readonly membership: ScriptRunner<'heartbeat' | 'giveUp'>;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  private members: string[] = [];
  private rounds = 0;
  private agreed: boolean | undefined;
  /** Clusters removed from the registry, drained at the first round on which every member agrees. */
  private readonly removed = new Set<string>();
  private readonly maxStartFailures: number;
  private readonly startGiveUpMs: number;
  private readonly quarantineDeaths: number;
  private readonly quarantineMs: number;
  /** The clusters quarantined at the last heartbeat. */
  private quarantined: ReadonlyMap<string, DeathRecord> = new Map();
  /** Clusters whose unreadable death record was already logged. */
  private readonly unreadableLogged = new Set<string>();
  /** Since when (Date.now) each registered cluster was seen with no lease, for the unheld warning. */
  private readonly unheldSince = new Map<string, number>();
  private readonly epochListeners = new Set<() => void>();

  constructor(private readonly o: ForwarderPoolOptions) {
    this.holder = o.holder ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
    this.leaseMs = o.leaseMs ?? DEFAULT_FORWARDER_LEASE_MS;
    this.logger = (o.logger ?? new Logger('fleetq-forwarder')).child({ forwarder: this.holder });
    this.metrics = poolMetrics(o.metrics);
    this.maxStartFailures = o.maxStartFailures ?? 3;
    this.startGiveUpMs = o.startGiveUpMs ?? 10 * this.leaseMs;
    this.quarantineDeaths = Math.max(1, o.quarantineDeaths ?? DEFAULT_QUARANTINE_DEATHS);
    this.quarantineMs = Math.max(1, o.quarantineMs ?? DEFAULT_QUARANTINE_MS);
    this.membership = new ScriptRunner(o.redis, forwarderMembersKey(o.queuePrefix), [], {
      heartbeat: HEARTBEAT,
      giveUp: GIVE_UP,
    });
  }

  /**
   * `listener` is called when one of this pool's fenced enqueues finds the queue's data-loss marker gone, as
   * RedisQueue.onEpochMissing does for its own adds (this pool's enqueues do not go through the queue's add):
   * resyncOnRedisLoss then checks at once instead of at its next periodic check. Returns what removes it.
   */
  onEpochMissing(listener: () => void): () => void {
    this.epochListeners.add(listener);
    return () => this.epochListeners.delete(listener);
  }

  get tickMs(): number {
    return Math.max(100, Math.floor(this.leaseMs / 3));
  }

  /** Whether every live member reported this member's registry digest at the last round (undefined before one). */
  get registryAgreed(): boolean | undefined {
    return this.agreed;
  }

  /** The clusters this forwarder holds now. */
  get clusters(): string[] {
    return [...this.held.keys()].filter((c) => this.held.get(c)?.leaving === undefined);
  }

  async start(): Promise<void> {
    this.logger.info('Forwarder pool joining', { leaseMs: this.leaseMs, tickMs: this.tickMs });
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.tickMs);
  }

  /** Leaves the pool: stops every forwarder (checkpoints written), releases the leases, drops the membership. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await Promise.all([...this.held.keys()].map((c) => this.leave(c, 'release', 'shutdown')));
    await Promise.all([...this.held.values()].map((h) => h.leaving));
    await this.o.redis.zrem(forwarderMembersKey(this.o.queuePrefix), this.holder).catch(() => undefined);
    await this.o.redis.hdel(forwarderDigestsKey(this.o.queuePrefix), this.holder).catch(() => undefined);
    this.logger.info('Forwarder pool left');
  }

  /** One round (exported for tests); overlapping calls share the one running. */
  tick(): Promise<void> {
    this.ticking ??= this.round()
      .catch((err: unknown) => this.logger.error('Forwarder pool round failed', { err }))
      .finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    this.rounds++;
    await this.renewAll();
    const change = this.o.registry.check();
    if (change) {
      for (const cluster of change.removed) this.removed.add(cluster);
      for (const cluster of change.changed) this.restart(cluster);
    }
    const registry = this.o.registry.registry;
    const digest = this.o.registry.digest;
    const view = await this.heartbeat(digest);
    this.members = view.members;
    this.metrics.members.set(this.members.length);
    this.noteQuarantine(view);
    const names = registry.clusters.map((c) => c.name);
    // A quarantined cluster is nobody's: not assigned, not taken, not warned of as unheld.
    const watched = names.filter((c) => !this.quarantined.has(c));
    this.noteAgreement(view, digest);
    if (!this.agreed) {
      // Hold still: keep (and restart) what is held, take nothing, release nothing, drain nothing.
      for (const [cluster, h] of this.held) if (this.startable(h)) await this.startForwarder(cluster, h);
      this.metrics.held.set({ forwarder: this.holder }, this.clusters.length);
      return this.checkUnheld(watched);
    }
    for (const cluster of this.removed) if (!registry.get(cluster)) void this.remove(cluster);
    this.removed.clear();
    const assignment = assignClusters(names, this.members, view.givenUp, new Set(this.quarantined.keys()));
    for (const [cluster, h] of this.held) {
      if (h.leaving) continue;
      const owner = assignment.get(cluster);
      if (owner !== undefined && owner !== this.holder) void this.leave(cluster, 'release', 'rebalance');
    }
    const wanted = names.filter((c) => assignment.get(c) === this.holder && !this.held.has(c));
    await Promise.all(wanted.map((c) => this.take(c)));
    for (const [cluster, h] of this.held) if (this.startable(h)) await this.startForwarder(cluster, h);
    this.metrics.held.set({ forwarder: this.holder }, this.clusters.length);
    await this.checkUnheld(watched);
  }

  private startable(h: Held): boolean {
    return !h.leaving && !h.stopping && !h.forwarder && h.startRound !== this.rounds;
  }

  private async heartbeat(digest: string): Promise<PoolView> {
    const [members, digests, given, now, deaths] = (await this.membership.run(
      'heartbeat',
      this.holder,
      this.leaseMs,
      forwarderDigestsKey(this.o.queuePrefix),
      digest,
      forwarderGiveUpsKey(this.o.queuePrefix),
      forwarderDeathsKey(this.o.queuePrefix),
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

  /** Takes the heartbeat's quarantined clusters; says when one's quarantine ended, and each unreadable record once. */
  private noteQuarantine(view: PoolView): void {
    for (const cluster of this.quarantined.keys())
      if (!view.quarantined.has(cluster))
        this.logger.info('Cluster quarantine over (lifted, or its time is up); the pool takes it again', { cluster });
    this.quarantined = view.quarantined;
    this.metrics.quarantined.set(view.quarantined.size);
    for (const cluster of view.unreadable) {
      // Each once, and at most 1 000 of them (the HASH is untrusted: it could hold any number of fields).
      if (this.unreadableLogged.has(cluster) || this.unreadableLogged.size >= 1_000) continue;
      this.unreadableLogged.add(cluster);
      this.logger.warn('Forwarder death record unreadable; treated as absent', {
        cluster,
        key: forwarderDeathsKey(this.o.queuePrefix),
      });
    }
  }

  /** Agreement: every live member reports this member's digest (one that reports none disagrees). */
  private noteAgreement(view: PoolView, digest: string): void {
    const others = [...view.digests].filter(([, d]) => d !== digest);
    const agreed = others.length === 0;
    this.metrics.registryAgreed.set(agreed ? 1 : 0);
    if (agreed !== this.agreed) {
      const members = Object.fromEntries([...view.digests].map(([m, d]) => [m, d.slice(0, 12) || 'none']));
      if (agreed) this.logger.info('Pool members agree on the registry', { digest: digest.slice(0, 12), members });
      else
        this.logger.warn(
          'Pool members disagree on the registry; holding what is held, taking and draining nothing until they agree',
          { digest: digest.slice(0, 12), members },
        );
    }
    this.agreed = agreed;
  }

  private async renewAll(): Promise<void> {
    await Promise.all(
      [...this.held].map(async ([cluster, h]) => {
        if (h.leaving) return;
        if (h.synced && !h.syncNoted) await this.noteSynced(cluster, h);
        try {
          if (await h.lease.renew(h.synced ? undefined : this.largestSeen(h))) {
            this.metrics.renewals.inc();
            return;
          }
        } catch (err) {
          // Redis unreachable: the local deadline decides; until it passes the lease is still ours.
          this.logger.warn('Forwarder lease renewal failed', { cluster, err });
          if (h.lease.held()) return;
        }
        const reason = h.lease.lostReason ?? 'lost';
        this.metrics.losses.inc({ reason: reason.startsWith('local') ? 'deadline' : 'refused' });
        this.logger.warn('Forwarder lease lost', { cluster, token: h.lease.currentToken, reason });
        void this.leave(cluster, 'lost', reason);
      }),
    );
  }

  private async take(cluster: string): Promise<void> {
    const lease = new ForwarderLease({
      redis: this.o.redis,
      queuePrefix: this.o.queuePrefix,
      cluster,
      holder: this.holder,
      leaseMs: this.leaseMs,
      quarantineDeaths: this.quarantineDeaths,
      quarantineMs: this.quarantineMs,
    });
    let got: Awaited<ReturnType<ForwarderLease['acquire']>>;
    try {
      got = await lease.acquire();
    } catch (err) {
      this.logger.warn('Forwarder lease not acquired', { cluster, err });
      return;
    }
    if (!got.acquired) {
      if (got.quarantine) this.refusedQuarantined(cluster, got.quarantine);
      return;
    }
    this.metrics.acquisitions.inc();
    if (got.gapMs >= 0) this.metrics.takeover.observe(got.gapMs / 1000);
    this.logger.info('Forwarder lease acquired', { cluster, token: got.token, sinceLastHolderMs: got.gapMs });
    if (got.died !== undefined || got.diedUnreadable) {
      this.metrics.deathsWhileSyncing.inc();
      this.logger.warn('The previous holder of this cluster died while syncing it', {
        cluster,
        quarantineAt: this.quarantineDeaths,
        ...(got.died ? describeRecord(got.died) : { record: 'unreadable' }),
      });
    }
    const h: Held = { lease, failedStarts: 0 };
    this.held.set(cluster, h);
    await this.startForwarder(cluster, h);
  }

  /** The acquire found the cluster quarantined; when this call's death quarantined it, says so loudly. */
  private refusedQuarantined(cluster: string, q: { now: boolean; record: DeathRecord | undefined }): void {
    if (q.record) this.quarantined = new Map([...this.quarantined, [cluster, q.record]]);
    this.metrics.quarantined.set(this.quarantined.size);
    if (!q.now) return;
    this.metrics.deathsWhileSyncing.inc();
    this.logger.error('Cluster quarantined', {
      cluster,
      why: 'its forwarder holders died one after another while syncing it; no forwarder takes it until the quarantine ends',
      ...(q.record ? describeRecord(q.record) : { deaths: this.quarantineDeaths, record: 'unreadable' }),
      remedy: remedy(cluster),
    });
  }

  /** The largest object this holder's forwarder has seen so far (its syncing mark carries it). */
  private largestSeen(h: Held): LargestObject {
    const l = h.forwarder?.largestObject;
    return l === undefined || l.bytes <= 0
      ? { holder: this.holder, bytes: 0 }
      : { holder: this.holder, resource: l.resource, object: l.name, bytes: l.bytes };
  }

  /** Tells Redis that this holder's first lists are done (retried at the next renewal when it fails). */
  private async noteSynced(cluster: string, h: Held): Promise<void> {
    try {
      const done = await h.lease.synced();
      h.syncNoted = true;
      if (done === 'forgot-deaths')
        this.logger.info('Cluster synced; the deaths of its earlier holders while syncing are forgotten', { cluster });
    } catch (err) {
      this.logger.warn('Cluster sync not recorded; retried next round', { cluster, err });
    }
  }

  private async startForwarder(cluster: string, h: Held): Promise<void> {
    const config = this.o.registry.registry.get(cluster);
    if (!config) return;
    h.startRound = this.rounds;
    const onRefused: FenceRefusals = (operation, where) => {
      this.metrics.refusals.inc({ operation, where });
      this.logger.warn('Fenced write refused', { cluster, operation, where, token: h.lease.currentToken });
    };
    try {
      const cache = this.o.cacheFor?.(cluster);
      const forwarder = new Forwarder({
        ...this.o.forwarder,
        cluster,
        kubeConfig: this.o.registry.registry.kubeConfig(cluster),
        owns: config.owns,
        ...(config.handOver && { handOver: config.handOver }),
        queue: new FencedQueue({
          redis: this.o.redis,
          queuePrefix: this.o.queuePrefix,
          ...(this.o.queueOptions && { queueOptions: this.o.queueOptions }),
          lease: h.lease,
          parkInvalid: (raw, reason) => this.o.queue.parkInvalid(raw, reason),
          onRefused,
          onEpochMissing: () => this.epochListeners.forEach((listener) => listener()),
        }),
        checkpoints: new FencedCheckpoints(this.o.checkpoints, h.lease, onRefused),
        logger: this.logger,
        ...(this.o.metrics && { registry: this.o.metrics }),
        // The shared cache's writes go through this lease too: a forwarder that lost it writes nothing there.
        ...(cache && { cache: fencedCacheStore(cache, leaseCacheFence(h.lease, onRefused)) }),
      });
      await forwarder.start();
      h.forwarder = forwarder;
      h.failedStarts = 0;
      this.forwarders.set(cluster, forwarder);
      // Its first lists done: the cluster is no longer syncing (a death from here on is not held against it).
      void forwarder.synced().then(() => {
        if (h.forwarder !== forwarder || h.leaving || h.synced) return;
        h.synced = true;
        return this.noteSynced(cluster, h);
      });
    } catch (err) {
      h.failedStarts++;
      this.metrics.startFailures.inc();
      if (h.failedStarts < this.maxStartFailures) {
        this.logger.error('Forwarder start failed; retried next round', { cluster, failures: h.failedStarts, err });
        return;
      }
      await this.giveUp(cluster, h, err);
    }
  }

  /** Releases a cluster whose forwarder would not start, and leaves this member out of its ranking a while. */
  private async giveUp(cluster: string, h: Held, err: unknown): Promise<void> {
    this.metrics.giveUps.inc();
    this.logger.error(
      'Forwarder start failed repeatedly; lease given up so another forwarder can try. Check the cluster entry and its credentials',
      { cluster, failures: h.failedStarts, retryAfterMs: this.startGiveUpMs, err },
    );
    await this.membership
      .run('giveUp', forwarderGiveUpsKey(this.o.queuePrefix), `${cluster}|${this.holder}`, this.startGiveUpMs)
      .catch((e: unknown) => this.logger.warn('Forwarder give-up not recorded', { cluster, err: e }));
    void this.leave(cluster, 'release', 'start-failed');
  }

  /** Stops a cluster's forwarder (its checkpoints written while the lease holds), then releases the lease. */
  private leave(cluster: string, how: 'lost' | 'release', reason: string): Promise<void> {
    const h = this.held.get(cluster);
    if (!h) return Promise.resolve();
    h.leaving ??= (async () => {
      this.forwarders.delete(cluster);
      if (how === 'lost') h.lease.markLost(reason);
      await h.stopping;
      await h.forwarder?.stop().catch((err: unknown) => this.logger.warn('Forwarder stop failed', { cluster, err }));
      if (how === 'release') {
        const released = await h.lease.release().catch(() => false);
        this.metrics.releases.inc({ reason });
        this.logger.info('Forwarder lease released', { cluster, token: h.lease.currentToken, reason, released });
      }
      this.held.delete(cluster);
      this.metrics.held.set({ forwarder: this.holder }, this.clusters.length);
    })();
    return h.leaving;
  }

  /**
   * A changed entry: stops the cluster's forwarder; a round after the stop has finished starts it again with the
   * new entry (the lease stays ours). Until then no forwarder of that cluster starts here.
   */
  private restart(cluster: string): void {
    const h = this.held.get(cluster);
    if (!h?.forwarder || h.leaving || h.stopping) return;
    this.logger.info('Cluster entry changed; restarting its forwarder', { cluster });
    this.forwarders.delete(cluster);
    const old = h.forwarder;
    delete h.forwarder;
    h.failedStarts = 0;
    h.stopping = old
      .stop()
      .catch((err: unknown) => this.logger.warn('Forwarder stop failed', { cluster, err }))
      .finally(() => delete h.stopping);
  }

  /** A cluster gone from the registry: stop watching it (if held), then drain its queue and checkpoints. */
  private async remove(cluster: string): Promise<void> {
    await this.leave(cluster, 'release', 'removed');
    try {
      const { dropped, rerunMarks } = await drainCluster(this.o.redis, this.o.queuePrefix, cluster);
      await this.o.checkpoints.remove(cluster);
      // Its deaths and quarantine go with it (a cluster registered again starts afresh).
      await this.o.redis.hdel(forwarderDeathsKey(this.o.queuePrefix), cluster);
      await this.o.redis.hdel(forwarderSyncingKey(this.o.queuePrefix), cluster);
      this.metrics.drained.inc(dropped);
      this.logger.info('Cluster removed from the registry: drained', { cluster, dropped, rerunMarks });
    } catch (err) {
      this.logger.error('Cluster drain failed', { cluster, err });
    }
  }

  /** Counts registered clusters that no forwarder holds, and warns of one left so for over 2 × leaseMs. */
  private async checkUnheld(names: readonly string[]): Promise<void> {
    if (names.length === 0) return this.metrics.unheld.set(0);
    const pipeline = this.o.redis.pipeline();
    for (const c of names) pipeline.exists(forwarderLeaseKey(c, this.o.queuePrefix));
    const replies = (await pipeline.exec()) ?? [];
    const now = Date.now();
    let unheld = 0;
    // `names` leaves quarantined clusters out: they are unheld on purpose, and said as quarantined instead.
    names.forEach((c, i) => {
      if (replies[i]?.[1] === 1) return void this.unheldSince.delete(c);
      unheld++;
      const since = this.unheldSince.get(c) ?? now;
      this.unheldSince.set(c, since);
      if (now - since > 2 * this.leaseMs)
        this.logger.warn('Cluster not watched by any forwarder', { cluster: c, forMs: now - since });
    });
    for (const c of this.unheldSince.keys()) if (!names.includes(c)) this.unheldSince.delete(c);
    this.metrics.unheld.set(unheld);
  }
}
