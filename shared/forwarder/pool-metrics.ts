// Prometheus metrics of the forwarder pool (forwarder-pool.ts), on an injected registry, once per registry.
import { Counter, Gauge, Histogram, register as defaultRegistry, type Registry } from 'prom-client';

export type PoolMetrics = {
  readonly held: Gauge<'forwarder'>;
  readonly members: Gauge;
  readonly unheld: Gauge;
  readonly acquisitions: Counter;
  readonly renewals: Counter;
  readonly losses: Counter<'reason'>;
  readonly releases: Counter<'reason'>;
  readonly takeover: Histogram;
  readonly refusals: Counter<'operation' | 'where'>;
  readonly drained: Counter;
  readonly registryAgreed: Gauge;
  readonly startFailures: Counter;
  readonly giveUps: Counter;
  readonly quarantined: Gauge;
  readonly deathsWhileSyncing: Counter;
  readonly lapses: Counter;
};

const cache = new WeakMap<Registry, PoolMetrics>();

export function poolMetrics(registry: Registry = defaultRegistry): PoolMetrics {
  const cached = cache.get(registry);
  if (cached) return cached;
  const registers = [registry];
  const metrics: PoolMetrics = {
    held: new Gauge({
      name: 'fleetq_forwarder_clusters_held',
      help: 'Clusters whose watch this forwarder holds the lease of',
      labelNames: ['forwarder'],
      registers,
    }),
    members: new Gauge({ name: 'fleetq_forwarder_pool_members', help: 'Live forwarders in the pool', registers }),
    unheld: new Gauge({
      name: 'fleetq_forwarder_clusters_unheld',
      help: 'Registered clusters whose lease no forwarder held at the last check (should be 0 but briefly)',
      registers,
    }),
    acquisitions: new Counter({
      name: 'fleetq_forwarder_lease_acquisitions_total',
      help: 'Cluster leases taken',
      registers,
    }),
    renewals: new Counter({
      name: 'fleetq_forwarder_lease_renewals_total',
      help: 'Cluster leases renewed',
      registers,
    }),
    losses: new Counter({
      name: 'fleetq_forwarder_lease_losses_total',
      help: 'Cluster leases lost (refused: another holder or expired in Redis; deadline: not renewed in time)',
      labelNames: ['reason'],
      registers,
    }),
    releases: new Counter({
      name: 'fleetq_forwarder_lease_releases_total',
      help: 'Cluster leases given up (rebalance, removed from the registry, shutdown)',
      labelNames: ['reason'],
      registers,
    }),
    takeover: new Histogram({
      name: 'fleetq_forwarder_lease_takeover_seconds',
      help: "Time from the previous holder's last renewal or release to this forwarder taking the lease",
      buckets: [0.1, 0.5, 1, 2, 5, 10, 15, 20, 25, 30, 45, 60],
      registers,
    }),
    refusals: new Counter({
      name: 'fleetq_forwarder_fence_refusals_total',
      help: 'Writes refused because the lease was not ours (where: local deadline, or the Redis compare)',
      labelNames: ['operation', 'where'],
      registers,
    }),
    drained: new Counter({
      name: 'fleetq_forwarder_drained_keys_total',
      help: 'Waiting keys dropped because their cluster was removed from the registry',
      registers,
    }),
    registryAgreed: new Gauge({
      name: 'fleetq_forwarder_registry_agreed',
      help: 'Every live pool member reported the same registry digest at the last round (1), else 0: rebalancing, taking and draining wait',
      registers,
    }),
    startFailures: new Counter({
      name: 'fleetq_forwarder_start_failures_total',
      help: "Failed starts of a held cluster's forwarder (retried next round)",
      registers,
    }),
    giveUps: new Counter({
      name: 'fleetq_forwarder_start_giveups_total',
      help: 'Cluster leases given up after repeated failed forwarder starts, for another member to try',
      registers,
    }),
    quarantined: new Gauge({
      name: 'fleetq_forwarder_quarantined_clusters',
      help: 'Clusters quarantined at the last round: their holders kept dying while syncing them; no member takes them until the quarantine ends or is lifted (fleetq forwarder unquarantine)',
      registers,
    }),
    deathsWhileSyncing: new Counter({
      name: 'fleetq_forwarder_deaths_while_syncing_total',
      help: 'Holders found dead (no longer pool members: dead, partitioned, or paused past their membership) while still syncing their cluster, counted by the member that took the lease next or whose heartbeat found the membership expired',
      registers,
    }),
    lapses: new Counter({
      name: 'fleetq_forwarder_lease_lapses_total',
      help: 'Leases that lapsed while their holder synced the cluster but the holder stayed alive (kept heartbeating, or took the cluster back): not counted as deaths, counted by that holder',
      registers,
    }),
  };
  cache.set(registry, metrics);
  return metrics;
}
