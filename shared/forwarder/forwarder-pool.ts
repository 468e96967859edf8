// A pool of forwarder processes sharing a fleet: each cluster's watch is held by exactly one forwarder at a
// time, under a lease in the queue's Redis (forwarder-lease.ts), and every enqueue and checkpoint write of that
// cluster is fenced by it (fenced-writes.ts). This module is the pool's lifecycle and its rounds; the membership
// is pool-membership.ts, the clusters a member holds (leases, their forwarders, give-ups) held-clusters.ts, the
// options pool-options.ts.
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
// Only a holder that died counts: one whose lease lapsed while it stayed a live member (a starved member, late to
// renew) is a suspicion until its next heartbeat shows it alive (a lapse: fleetq_forwarder_lease_lapses_total, a
// warning) or its membership expires (a death, counted by the heartbeat that finds it). A cluster quarantined by
// such a heartbeat while a member holds it is released by that member.
// A dead, partitioned or paused forwarder stops renewing: its leases and membership expire after leaseMs,
// the others' next tick assigns its clusters among themselves and takes them: within leaseMs + leaseMs / 3 +
// one round trip (20 s for the default 15 s lease), then the watch resumes from the checkpoint (410: relist).
import { assignClusters } from './cluster-assignment.js';
import { drainCluster } from './cluster-drain.js';
import { describeRecord, remedy, type DeathRecord } from './cluster-quarantine.js';
import type { Forwarder } from './forwarder.js';
import { forwarderDeathsKey, forwarderLeaseKey, forwarderSuspectsKey, forwarderSyncingKey } from './forwarder-keys.js';
import { HeldClusters } from './held-clusters.js';
import { PoolMembership, type PoolView } from './pool-membership.js';
import { poolMetrics, type PoolMetrics } from './pool-metrics.js';
import { poolSettings, type ForwarderPoolOptions, type PoolSettings } from './pool-options.js';

export type { ForwarderPoolOptions } from './pool-options.js';

export class ForwarderPool {
  readonly holder: string;
  readonly leaseMs: number;
  private readonly settings: PoolSettings;
  private readonly logger: PoolSettings['logger'];
  private readonly metrics: PoolMetrics;
  private readonly membership: PoolMembership;
  private readonly held: HeldClusters;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  private members: string[] = [];
  private agreed: boolean | undefined;
  /** Clusters removed from the registry, drained at the first round on which every member agrees. */
  private readonly removed = new Set<string>();
  /** The clusters quarantined at the last heartbeat. */
  private quarantined: ReadonlyMap<string, DeathRecord> = new Map();
  /** Clusters whose unreadable death record was already logged. */
  private readonly unreadableLogged = new Set<string>();
  /** Since when (Date.now) each registered cluster was seen with no lease, for the unheld warning. */
  private readonly unheldSince = new Map<string, number>();
  private readonly epochListeners = new Set<() => void>();

  constructor(private readonly o: ForwarderPoolOptions) {
    this.settings = poolSettings(o);
    this.holder = this.settings.holder;
    this.leaseMs = this.settings.leaseMs;
    this.logger = this.settings.logger;
    this.metrics = poolMetrics(o.metrics);
    this.membership = new PoolMembership(o.redis, o.queuePrefix, this.holder, this.leaseMs, {
      deaths: this.settings.quarantineDeaths,
      ms: this.settings.quarantineMs,
    });
    this.held = new HeldClusters({
      options: o,
      settings: this.settings,
      metrics: this.metrics,
      membership: this.membership,
      onQuarantined: (cluster, q) => this.refusedQuarantined(cluster, q),
      onEpochMissing: () => this.epochListeners.forEach((listener) => listener()),
    });
  }

  /** Started forwarders by cluster (what resyncOnRedisLoss resyncs). */
  get forwarders(): ReadonlyMap<string, Forwarder> {
    return this.held.forwarders;
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
    return this.held.clusters;
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
    await Promise.all(this.held.all.map((c) => this.held.leave(c, 'release', 'shutdown')));
    await this.held.settled();
    await this.membership.leave();
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
    this.held.nextRound();
    await this.held.renewAll();
    const change = this.o.registry.check();
    if (change) {
      for (const cluster of change.removed) this.removed.add(cluster);
      for (const cluster of change.changed) this.held.restart(cluster);
    }
    const registry = this.o.registry.registry;
    const digest = this.o.registry.digest;
    const view = await this.membership.heartbeat(digest);
    this.members = view.members;
    this.metrics.members.set(this.members.length);
    this.noteQuarantine(view);
    this.noteSettled(view);
    const names = registry.clusters.map((c) => c.name);
    // A quarantined cluster is nobody's: not assigned, not taken, not warned of as unheld.
    const watched = names.filter((c) => !this.quarantined.has(c));
    this.noteAgreement(view, digest);
    if (!this.agreed) {
      // Hold still: keep (and restart) what is held, take nothing, release nothing, drain nothing.
      await this.held.startIdle();
      this.metrics.held.set({ forwarder: this.holder }, this.clusters.length);
      return this.checkUnheld(watched);
    }
    for (const cluster of this.removed) if (!registry.get(cluster)) void this.remove(cluster);
    this.removed.clear();
    const assignment = assignClusters(names, this.members, view.givenUp, new Set(this.quarantined.keys()));
    this.held.releaseOthers(assignment);
    // Quarantined while held (a heartbeat counted the death that reached the threshold): nobody's, so let it go.
    for (const cluster of this.clusters)
      if (this.quarantined.has(cluster)) void this.held.leave(cluster, 'release', 'quarantined');
    const wanted = names.filter((c) => assignment.get(c) === this.holder && !this.held.has(c));
    await Promise.all(wanted.map((c) => this.held.take(c)));
    await this.held.startIdle();
    this.metrics.held.set({ forwarder: this.holder }, this.clusters.length);
    await this.checkUnheld(watched);
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

  /** The suspicions the heartbeat settled: this member's lapses, and deaths of holders whose membership expired. */
  private noteSettled(view: PoolView): void {
    for (const s of view.settled) {
      if (s.outcome === 'lapsed') {
        this.metrics.lapses.inc();
        this.logger.warn(
          'Forwarder lease lapsed while syncing, this member alive (late to renew: starved or overloaded); not counted as a death',
          { cluster: s.cluster, holder: s.holder, leaseMs: this.leaseMs },
        );
        continue;
      }
      if (s.quarantined) {
        this.refusedQuarantined(s.cluster, { now: true, record: s.record });
        continue;
      }
      this.metrics.deathsWhileSyncing.inc();
      this.logger.warn('A previous holder of this cluster died while syncing it (its membership expired)', {
        cluster: s.cluster,
        holder: s.holder,
        quarantineAt: this.settings.quarantineDeaths,
        ...(s.record ? describeRecord(s.record) : { record: 'unreadable' }),
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

  /** The acquire found the cluster quarantined; when this call's death quarantined it, says so loudly. */
  private refusedQuarantined(cluster: string, q: { now: boolean; record: DeathRecord | undefined }): void {
    if (q.record) this.quarantined = new Map([...this.quarantined, [cluster, q.record]]);
    this.metrics.quarantined.set(this.quarantined.size);
    if (!q.now) return;
    this.metrics.deathsWhileSyncing.inc();
    this.logger.error('Cluster quarantined', {
      cluster,
      why: 'its forwarder holders died one after another while syncing it; no forwarder takes it until the quarantine ends',
      ...(q.record ? describeRecord(q.record) : { deaths: this.settings.quarantineDeaths, record: 'unreadable' }),
      remedy: remedy(cluster),
    });
  }

  /** A cluster gone from the registry: stop watching it (if held), then drain its queue and checkpoints. */
  private async remove(cluster: string): Promise<void> {
    await this.held.leave(cluster, 'release', 'removed');
    try {
      const { dropped, rerunMarks } = await drainCluster(
        this.o.redis,
        this.o.queuePrefix,
        cluster,
        this.settings.fenceSlotsOf(cluster),
      );
      await this.o.checkpoints.remove(cluster);
      // Its deaths and quarantine go with it (a cluster registered again starts afresh).
      await this.o.redis.hdel(forwarderDeathsKey(this.o.queuePrefix), cluster);
      await this.o.redis.hdel(forwarderSyncingKey(this.o.queuePrefix), cluster);
      await this.o.redis.hdel(forwarderSuspectsKey(this.o.queuePrefix), cluster);
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
