// calculateStatus / syncDeploymentStatus (sync.go): counts from the ReplicaSets, observedGeneration, and the
// Available condition. terminatingReplicas is reported as DeploymentReplicaSetTerminatingReplicas (beta, on
// by default since 1.35) does.
import { newCondition, setCondition } from './conditions.js';
import { desiredReplicas, maxUnavailable } from '../common/deployment-fenceposts.js';
import { sameStatus, type Pass } from './pass.js';
import {
  actualReplicaCount,
  availableReplicaCount,
  readyReplicaCount,
  replicaCount,
  terminatingReplicaCount,
} from './replica-sets.js';
import { ConditionType, Reason, type Deployment, type DeploymentStatus, type ReplicaSet } from './types.js';

export function calculateStatus(
  allRSs: readonly (ReplicaSet | null)[],
  newRS: ReplicaSet | null,
  d: Deployment,
  now: Date,
): DeploymentStatus {
  const available = availableReplicaCount(allRSs);
  const unavailable = Math.max(replicaCount(allRSs) - available, 0);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: actualReplicaCount(allRSs),
    updatedReplicas: actualReplicaCount([newRS]),
    readyReplicas: readyReplicaCount(allRSs),
    availableReplicas: available,
    unavailableReplicas: unavailable,
  };
  const terminating = terminatingReplicaCount(allRSs);
  if (terminating !== undefined) status.terminatingReplicas = terminating;
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions?.length) status.conditions = [...d.status.conditions];

  if (available >= desiredReplicas(d) - maxUnavailable(d)) {
    const msg = 'Deployment has minimum availability.';
    setCondition(status, newCondition(ConditionType.Available, 'True', Reason.MinimumReplicasAvailable, msg, now));
  } else {
    const msg = 'Deployment does not have minimum availability.';
    setCondition(status, newCondition(ConditionType.Available, 'False', Reason.MinimumReplicasUnavailable, msg, now));
  }
  return status;
}

export function syncDeploymentStatus(p: Pass, allRSs: readonly (ReplicaSet | null)[], newRS: ReplicaSet | null): void {
  const next = calculateStatus(allRSs, newRS, p.d, p.now);
  if (!sameStatus(p.d.status, next)) p.d.status = next;
}
