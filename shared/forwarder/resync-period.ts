// How often a forwarder's periodic resync comes. Lost keys are found by detection (redis-loss.ts: a flush, a
// restart, a failover to a replica that lagged; a cluster without checkpoints or whose checkpoint expired lists
// afresh), so the periodic resync is a safety net against what nothing detects, at kube-controller-manager's
// period: its informers resync every --min-resync-period (12 h by default) × (1 + a random fraction in [0, 1)), so
// that they do not list in lock-step. Here the fraction is drawn from the cluster's name, not at random: the
// scheduled mode starts a new forwarder every tick and must see the same period each time (a fresh draw every
// tick would resync as soon as the shortest draw came up, about every 12 h), and the clusters of a fleet still
// spread over the period.
import { createHash } from 'node:crypto';

/** The default least period of the periodic resync (FLEETQ_RESYNC_MS), kube-controller-manager's --min-resync-period. */
export const DEFAULT_RESYNC_MS = 12 * 60 * 60 * 1000;

/** The longest delay a Node timer takes (a longer one fires after 1 ms): longer periods are cut to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The cluster's fraction in [0, 1): the first 32 bits of the SHA-256 of its name. */
export function resyncJitter(cluster: string): number {
  return createHash('sha256').update(cluster).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * The cluster's resync period: `minMs` × (1 + its fraction), between minMs and 2 × minMs (at most about 24.8 days, a
 * Node timer's longest); 0 (disabled) stays 0.
 */
export function resyncPeriodMs(cluster: string, minMs: number = DEFAULT_RESYNC_MS): number {
  if (minMs <= 0) return 0;
  return Math.min(MAX_TIMER_MS, Math.floor(minMs * (1 + resyncJitter(cluster))));
}
