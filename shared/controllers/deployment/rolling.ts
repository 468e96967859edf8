// rolling.go: RollingUpdate. Grow the new ReplicaSet within replicas + maxSurge, shrink old ones while at
// least replicas − maxUnavailable stay available (unhealthy old replicas first), clean up once complete.
import { desiredReplicas, maxUnavailable } from '../common/deployment-fenceposts.js';
import { newRSNewReplicas } from './fenceposts.js';
import type { Pass } from './pass.js';
import { isComplete, syncRolloutStatus } from './progress.js';
import {
  availableReplicaCount,
  byCreationTimestamp,
  filterActive,
  replicaCount,
  specReplicas,
} from './replica-sets.js';
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision, scaleReplicaSet } from './sync.js';
import type { ReplicaSet } from './types.js';

export function rolloutRolling(p: Pass, rsList: ReplicaSet[]): void {
  const { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(p, rsList, true);
  if (newRS === null) throw new Error('rolling update: no new ReplicaSet after creating one');
  const allRSs = [...oldRSs, newRS];

  if (reconcileNewReplicaSet(p, allRSs, newRS)) return syncRolloutStatus(p, allRSs, newRS);
  if (reconcileOldReplicaSets(p, allRSs, filterActive(oldRSs), newRS)) return syncRolloutStatus(p, allRSs, newRS);
  if (isComplete(p.d, p.d.status ?? {})) cleanupDeployment(p, oldRSs);
  syncRolloutStatus(p, allRSs, newRS);
}

function reconcileNewReplicaSet(p: Pass, allRSs: ReplicaSet[], newRS: ReplicaSet): boolean {
  const replicas = desiredReplicas(p.d);
  if (specReplicas(newRS) === replicas) return false;
  if (specReplicas(newRS) > replicas) return scaleReplicaSet(p, newRS, replicas).scaled;
  return scaleReplicaSet(p, newRS, newRSNewReplicas(p.d, allRSs, newRS)).scaled;
}

function reconcileOldReplicaSets(p: Pass, allRSs: ReplicaSet[], oldRSs: ReplicaSet[], newRS: ReplicaSet): boolean {
  if (replicaCount(oldRSs) === 0) return false;
  const minAvailable = desiredReplicas(p.d) - maxUnavailable(p.d);
  const newRSUnavailable = specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = replicaCount(allRSs) - minAvailable - newRSUnavailable;
  if (maxScaledDown <= 0) return false;

  const cleanedUp = cleanupUnhealthyReplicas(p, oldRSs, maxScaledDown);
  const scaledDown = scaleDownOldReplicaSetsForRollingUpdate(p, [...oldRSs, newRS], oldRSs);
  return cleanedUp + scaledDown > 0;
}

/** Scales down old ReplicaSets' unavailable replicas first, oldest first (replaces entries of oldRSs). */
function cleanupUnhealthyReplicas(p: Pass, oldRSs: ReplicaSet[], maxCleanup: number): number {
  oldRSs.sort(byCreationTimestamp);
  let total = 0;
  oldRSs.forEach((rs, i) => {
    if (total >= maxCleanup || specReplicas(rs) === 0) return;
    const available = rs.status?.availableReplicas ?? 0;
    if (specReplicas(rs) === available) return;
    const count = Math.min(maxCleanup - total, specReplicas(rs) - available);
    const next = specReplicas(rs) - count;
    if (next > specReplicas(rs)) throw new Error(`invalid scale down of ${rs.metadata.name ?? ''} to ${next}`);
    oldRSs[i] = scaleReplicaSet(p, rs, next).rs;
    total += count;
  });
  return total;
}

/** Scales down available old replicas, oldest ReplicaSet first, keeping replicas − maxUnavailable available. */
function scaleDownOldReplicaSetsForRollingUpdate(p: Pass, allRSs: ReplicaSet[], oldRSs: ReplicaSet[]): number {
  const minAvailable = desiredReplicas(p.d) - maxUnavailable(p.d);
  const available = availableReplicaCount(allRSs);
  if (available <= minAvailable) return 0;
  oldRSs.sort(byCreationTimestamp);
  const target = available - minAvailable;
  let total = 0;
  for (const rs of oldRSs) {
    if (total >= target) break;
    if (specReplicas(rs) === 0) continue;
    const count = Math.min(specReplicas(rs), target - total);
    scaleReplicaSet(p, rs, specReplicas(rs) - count);
    total += count;
  }
  return total;
}
