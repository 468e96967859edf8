// The clusters one pool member holds (forwarder-pool.ts): for each, its lease (forwarder-lease.ts) and the
// forwarder that watches it, every write of which goes through that lease (fenced-writes.ts). Taking a cluster
// acquires the lease and starts the forwarder; each round renews every lease (one refused, or whose local deadline
// passed, is lost: its forwarder stops); leaving stops the forwarder (checkpoints written while the lease holds)
// and releases the lease. A forwarder that fails to start maxStartFailures rounds in a row is given up: the lease
// is released and the member left out of the cluster's ranking for startGiveUpMs (pool-membership.ts).
// While the holder's forwarder has not finished its first lists, each renewal refreshes its syncing mark with the
// largest object seen (cluster-quarantine.ts); when they finish, Redis is told and the cluster's deaths forgotten.
import { fencedCacheStore } from '../cache/cache-fence.js';
import { describeRecord, type DeathRecord, type LargestObject } from './cluster-quarantine.js';
import { FencedCheckpoints, FencedQueue, leaseCacheFence, type FenceRefusals } from './fenced-writes.js';
import { Forwarder } from './forwarder.js';
import { ForwarderLease } from './forwarder-lease.js';
import type { PoolMembership } from './pool-membership.js';
import type { PoolMetrics } from './pool-metrics.js';
import type { ForwarderPoolOptions, PoolSettings } from './pool-options.js';

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

export type HeldClustersContext = {
  readonly options: ForwarderPoolOptions;
  readonly settings: PoolSettings;
  readonly metrics: PoolMetrics;
  readonly membership: PoolMembership;
  /** An acquire found the cluster quarantined (`now`: its own death record quarantined it). */
  readonly onQuarantined: (cluster: string, q: { now: boolean; record: DeathRecord | undefined }) => void;
  /** One of the fenced enqueues found the queue's data-loss marker gone. */
  readonly onEpochMissing: () => void;
};

export class HeldClusters {
  /** Started forwarders by cluster (what resyncOnRedisLoss resyncs). */
  readonly forwarders = new Map<string, Forwarder>();
  private readonly held = new Map<string, Held>();
  private rounds = 0;

  constructor(private readonly c: HeldClustersContext) {}

  /** The clusters held now (those being left are not). */
  get clusters(): string[] {
    return [...this.held.keys()].filter((c) => this.held.get(c)?.leaving === undefined);
  }

  /** Every cluster with a lease here, including those being left. */
  get all(): string[] {
    return [...this.held.keys()];
  }

  has(cluster: string): boolean {
    return this.held.has(cluster);
  }

  /** A new round: at most one start attempt per cluster in each. */
  nextRound(): void {
    this.rounds++;
  }

  /** Starts the forwarder of every held cluster that has none (not being left or restarted, not tried this round). */
  async startIdle(): Promise<void> {
    for (const [cluster, h] of this.held) if (this.startable(h)) await this.startForwarder(cluster, h);
  }

  /** Waits until every cluster being left has been. */
  async settled(): Promise<void> {
    await Promise.all([...this.held.values()].map((h) => h.leaving));
  }

  private get logger() {
    return this.c.settings.logger;
  }

  private startable(h: Held): boolean {
    return !h.leaving && !h.stopping && !h.forwarder && h.startRound !== this.rounds;
  }

  async renewAll(): Promise<void> {
    await Promise.all(
      [...this.held].map(async ([cluster, h]) => {
        if (h.leaving) return;
        if (h.synced && !h.syncNoted) await this.noteSynced(cluster, h);
        try {
          if (await h.lease.renew(h.synced ? undefined : this.largestSeen(h))) {
            this.c.metrics.renewals.inc();
            return;
          }
        } catch (err) {
          // Redis unreachable: the local deadline decides; until it passes the lease is still ours.
          this.logger.warn('Forwarder lease renewal failed', { cluster, err });
          if (h.lease.held()) return;
        }
        const reason = h.lease.lostReason ?? 'lost';
        this.c.metrics.losses.inc({ reason: reason.startsWith('local') ? 'deadline' : 'refused' });
        this.logger.warn('Forwarder lease lost', { cluster, token: h.lease.currentToken, reason });
        void this.leave(cluster, 'lost', reason);
      }),
    );
  }

  async take(cluster: string): Promise<void> {
    const s = this.c.settings;
    const fenceSlots = s.fenceSlotsOf(cluster);
    const lease = new ForwarderLease({
      redis: this.c.options.redis,
      queuePrefix: this.c.options.queuePrefix,
      cluster,
      holder: s.holder,
      leaseMs: s.leaseMs,
      quarantineDeaths: s.quarantineDeaths,
      quarantineMs: s.quarantineMs,
      ...(fenceSlots && { fenceSlots }),
    });
    let got: Awaited<ReturnType<ForwarderLease['acquire']>>;
    try {
      got = await lease.acquire();
    } catch (err) {
      this.logger.warn('Forwarder lease not acquired', { cluster, err });
      return;
    }
    if (!got.acquired) {
      if (got.quarantine) this.c.onQuarantined(cluster, got.quarantine);
      return;
    }
    // With fence slots (a Redis Cluster, queue shards): this token in each before the first write there.
    try {
      if (!(await lease.installFences())) throw new Error('a newer token is installed as the fence');
    } catch (err) {
      this.logger.warn('Forwarder lease fences not installed; lease released', { cluster, token: got.token, err });
      await lease.release().catch(() => undefined);
      return;
    }
    this.c.metrics.acquisitions.inc();
    if (got.gapMs >= 0) this.c.metrics.takeover.observe(got.gapMs / 1000);
    this.logger.info('Forwarder lease acquired', { cluster, token: got.token, sinceLastHolderMs: got.gapMs });
    if (got.lapses > 0) {
      this.c.metrics.lapses.inc(got.lapses);
      this.logger.warn(
        'Forwarder lease lapsed while syncing, this member alive (late to renew: starved or overloaded); taken back, not counted as a death',
        { cluster, token: got.token },
      );
    }
    if (got.suspected !== undefined)
      this.logger.info(
        'The previous holder of this cluster let its lease lapse while syncing and is still a pool member: a death only if its membership expires without another heartbeat',
        { cluster, holder: got.suspected },
      );
    if (got.deaths > 0) {
      this.c.metrics.deathsWhileSyncing.inc(got.deaths);
      this.logger.warn('The previous holder of this cluster died while syncing it', {
        cluster,
        quarantineAt: s.quarantineDeaths,
        ...(got.died ? describeRecord(got.died) : { record: 'unreadable' }),
      });
    }
    const h: Held = { lease, failedStarts: 0 };
    this.held.set(cluster, h);
    await this.startForwarder(cluster, h);
  }

  /** The largest object this holder's forwarder has seen so far (its syncing mark carries it). */
  private largestSeen(h: Held): LargestObject {
    const l = h.forwarder?.largestObject;
    const holder = this.c.settings.holder;
    return l === undefined || l.bytes <= 0
      ? { holder, bytes: 0 }
      : { holder, resource: l.resource, object: l.name, bytes: l.bytes };
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
    const o = this.c.options;
    const config = o.registry.registry.get(cluster);
    if (!config) return;
    h.startRound = this.rounds;
    const onRefused: FenceRefusals = (operation, where) => {
      this.c.metrics.refusals.inc({ operation, where });
      this.logger.warn('Fenced write refused', { cluster, operation, where, token: h.lease.currentToken });
    };
    try {
      const cache = o.cacheFor?.(cluster);
      const forwarder = new Forwarder({
        ...o.forwarder,
        cluster,
        kubeConfig: o.registry.registry.kubeConfig(cluster),
        owns: config.owns,
        ...(config.handOver && { handOver: config.handOver }),
        queue: new FencedQueue({
          queue: this.c.settings.queue,
          lease: h.lease,
          onRefused,
          onEpochMissing: this.c.onEpochMissing,
        }),
        checkpoints: new FencedCheckpoints(o.checkpoints, h.lease, onRefused),
        logger: this.logger,
        ...(o.metrics && { registry: o.metrics }),
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
      this.c.metrics.startFailures.inc();
      if (h.failedStarts < this.c.settings.maxStartFailures) {
        this.logger.error('Forwarder start failed; retried next round', { cluster, failures: h.failedStarts, err });
        return;
      }
      await this.giveUp(cluster, h, err);
    }
  }

  /** Releases a cluster whose forwarder would not start, and leaves this member out of its ranking a while. */
  private async giveUp(cluster: string, h: Held, err: unknown): Promise<void> {
    const retryAfterMs = this.c.settings.startGiveUpMs;
    this.c.metrics.giveUps.inc();
    this.logger.error(
      'Forwarder start failed repeatedly; lease given up so another forwarder can try. Check the cluster entry and its credentials',
      { cluster, failures: h.failedStarts, retryAfterMs, err },
    );
    await this.c.membership
      .recordGiveUp(cluster, retryAfterMs)
      .catch((e: unknown) => this.logger.warn('Forwarder give-up not recorded', { cluster, err: e }));
    void this.leave(cluster, 'release', 'start-failed');
  }

  /** Stops a cluster's forwarder (its checkpoints written while the lease holds), then releases the lease. */
  leave(cluster: string, how: 'lost' | 'release', reason: string): Promise<void> {
    const h = this.held.get(cluster);
    if (!h) return Promise.resolve();
    h.leaving ??= (async () => {
      this.forwarders.delete(cluster);
      if (how === 'lost') h.lease.markLost(reason);
      await h.stopping;
      await h.forwarder?.stop().catch((err: unknown) => this.logger.warn('Forwarder stop failed', { cluster, err }));
      if (how === 'release') {
        const released = await h.lease.release().catch(() => false);
        this.c.metrics.releases.inc({ reason });
        this.logger.info('Forwarder lease released', { cluster, token: h.lease.currentToken, reason, released });
      }
      this.held.delete(cluster);
      this.c.metrics.held.set({ forwarder: this.c.settings.holder }, this.clusters.length);
    })();
    return h.leaving;
  }

  /** Releases every cluster held whose assigned owner is another member (it takes them next round). */
  releaseOthers(assignment: ReadonlyMap<string, string>): void {
    for (const [cluster, h] of this.held) {
      if (h.leaving) continue;
      const owner = assignment.get(cluster);
      if (owner !== undefined && owner !== this.c.settings.holder) void this.leave(cluster, 'release', 'rebalance');
    }
  }

  /**
   * A changed entry: stops the cluster's forwarder; a round after the stop has finished starts it again with the
   * new entry (the lease stays ours). Until then no forwarder of that cluster starts here.
   */
  restart(cluster: string): void {
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
}
