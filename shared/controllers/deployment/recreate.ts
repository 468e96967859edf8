// recreate.go: Recreate. Scale every old ReplicaSet to 0, wait until none of their pods runs (pods, not just
// ReplicaSet status), then create or scale up the new ReplicaSet.
import { desiredReplicas } from '../common/deployment-fenceposts.js';
import type { Pass } from './pass.js';
import { isComplete, syncRolloutStatus } from './progress.js';
import { actualReplicaCount, filterActive, specReplicas } from './replica-sets.js';
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision, scaleReplicaSet } from './sync.js';
import type { Pod, ReplicaSet } from './types.js';
import { controllerRefOf } from '../../kube/meta/controller-ref.js';

export function rolloutRecreate(p: Pass, rsList: ReplicaSet[], pods: readonly Pod[] | null): void {
  let { newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(p, rsList, false);
  let allRSs = [...oldRSs, newRS];

  let scaledDown = false;
  for (const rs of filterActive(oldRSs)) {
    if (specReplicas(rs) !== 0 && scaleReplicaSet(p, rs, 0).scaled) scaledDown = true;
  }
  if (scaledDown) return syncRolloutStatus(p, allRSs, newRS);
  if (oldPodsRunning(newRS, oldRSs, rsList, pods)) return syncRolloutStatus(p, allRSs, newRS);

  if (newRS === null) {
    ({ newRS, oldRSs } = getAllReplicaSetsAndSyncRevision(p, rsList, true));
    allRSs = [...oldRSs, newRS];
  }
  if (newRS !== null) scaleReplicaSet(p, newRS, desiredReplicas(p.d));
  if (isComplete(p.d, p.d.status ?? {})) cleanupDeployment(p, oldRSs);
  syncRolloutStatus(p, allRSs, newRS);
}

/**
 * oldPodsRunning: old ReplicaSets still report replicas, or a pod controlled by a claimed ReplicaSet other than
 * the new one is not Succeeded/Failed. Pods not read (null) count as running: observe reads them whenever this
 * can decide.
 */
export function oldPodsRunning(
  newRS: ReplicaSet | null,
  oldRSs: readonly ReplicaSet[],
  rsList: readonly ReplicaSet[],
  pods: readonly Pod[] | null,
): boolean {
  if (actualReplicaCount(oldRSs) > 0) return true;
  const owners = new Set(rsList.map((rs) => rs.metadata.uid).filter((uid) => uid !== newRS?.metadata.uid));
  if (owners.size === 0) return false;
  if (pods === null) return true;
  return pods.some((pod) => {
    const owner = controllerRefOf(pod);
    if (owner?.kind !== 'ReplicaSet' || !owners.has(owner.uid)) return false;
    return pod.status?.phase !== 'Failed' && pod.status?.phase !== 'Succeeded';
  });
}
