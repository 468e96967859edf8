// The LeaderWorkerSet spec values the controller dereferences, with the defaults the CRD and the lws webhook give
// them (upstream reads them as set pointers), and the rollout budget both the leader StatefulSet and the rolling
// update compute: intstr.GetScaledValueFromIntOrPercent of maxUnavailable (rounded down) and maxSurge (rounded up)
// against spec.replicas, maxSurge capped at spec.replicas.
import { ReconcileError } from '../../kube/errors.js';
import { scaledValue } from '../common/int-or-percent.js';
import { SubdomainPolicy, type LeaderWorkerSet } from './types.js';

/** spec.replicas (CRD default 1). */
export const replicasOf = (lws: LeaderWorkerSet): number => lws.spec.replicas ?? 1;

/** spec.leaderWorkerTemplate.size: pods per group (CRD default 1). */
export const sizeOf = (lws: LeaderWorkerSet): number => lws.spec.leaderWorkerTemplate.size ?? 1;

/** rollingUpdateConfiguration.partition (webhook default 0). */
export const partitionOf = (lws: LeaderWorkerSet): number =>
  lws.spec.rolloutStrategy?.rollingUpdateConfiguration?.partition ?? 0;

/**
 * The subdomain policy is Shared: no networkConfig, or subdomainPolicy Shared. (The webhook always sets it; upstream
 * dereferences it, so a networkConfig without one never reaches the controller. It reads as Shared here.)
 */
export function isSubdomainShared(lws: LeaderWorkerSet): boolean {
  const policy = lws.spec.networkConfig?.subdomainPolicy;
  return policy === undefined || policy === null || policy === SubdomainPolicy.Shared;
}

/** The LeaderWorkerSet has no worker StatefulSets (size 1). */
export const hasNoWorkers = (lws: LeaderWorkerSet): boolean => sizeOf(lws) === 1;

export type RolloutBudget = { readonly maxSurge: number; readonly maxUnavailable: number };

/** maxSurge (rounded up, at most spec.replicas) and maxUnavailable (rounded down) of spec.replicas. */
export function rolloutBudget(lws: LeaderWorkerSet): RolloutBudget {
  const replicas = replicasOf(lws);
  const config = lws.spec.rolloutStrategy?.rollingUpdateConfiguration;
  const surge = scaledValue(config?.maxSurge ?? 0, replicas, true);
  const unavailable = scaledValue(config?.maxUnavailable ?? 1, replicas, false);
  if (surge === null || unavailable === null) {
    // Upstream returns the parse error: the reconcile fails and is retried.
    throw new ReconcileError(
      'PlanFailed',
      `invalid rollingUpdateConfiguration: maxSurge ${String(config?.maxSurge)}, maxUnavailable ${String(config?.maxUnavailable)}`,
    );
  }
  return { maxSurge: Math.min(surge, replicas), maxUnavailable: unavailable };
}
