// progress.go: the Progressing condition during a rollout (NewReplicaSetAvailable, ReplicaSetUpdated,
// ProgressDeadlineExceeded), ReplicaFailure copied from the ReplicaSets, and the requeue at the deadline.
import { getCondition, newCondition, removeCondition, setCondition } from './conditions.js';
import { desiredReplicas } from '../common/deployment-fenceposts.js';
import type { Pass } from './pass.js';
import { sameStatus } from './pass.js';
import { calculateStatus } from './status.js';
import { hasProgressDeadline } from './sync.js';
import {
  ConditionType,
  Reason,
  type Condition,
  type Deployment,
  type DeploymentStatus,
  type ReplicaSet,
} from './types.js';

const SECOND = 1000;

/** DeploymentComplete */
export function isComplete(d: Deployment, s: DeploymentStatus): boolean {
  const replicas = desiredReplicas(d);
  return (
    (s.updatedReplicas ?? 0) === replicas &&
    (s.replicas ?? 0) === replicas &&
    (s.availableReplicas ?? 0) === replicas &&
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available replicas than last time. */
export function isProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** DeploymentTimedOut: no progress for progressDeadlineSeconds since the condition's lastUpdateTime. */
export function isTimedOut(d: Deployment, s: DeploymentStatus, now: Date): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, ConditionType.Progressing);
  if (!c || c.reason === Reason.NewReplicaSetAvailable) return false;
  if (c.reason === Reason.ProgressDeadlineExceeded) return true;
  return deadlineOf(d, c) < now.getTime();
}

function deadlineOf(d: Deployment, c: Condition): number {
  return Date.parse(c.lastUpdateTime ?? '') + (d.spec.progressDeadlineSeconds ?? 0) * SECOND;
}

export function syncRolloutStatus(p: Pass, allRSs: readonly (ReplicaSet | null)[], newRS: ReplicaSet | null): void {
  const d = p.d;
  const next = calculateStatus(allRSs, newRS, d, p.now);
  if (!hasProgressDeadline(d)) removeCondition(next, ConditionType.Progressing);

  const current = getCondition(d.status, ConditionType.Progressing);
  const complete = next.replicas === next.updatedReplicas && current?.reason === Reason.NewReplicaSetAvailable;
  if (hasProgressDeadline(d) && !complete) {
    const rsName = newRS?.metadata.name;
    const subject = rsName !== undefined ? `ReplicaSet "${rsName}"` : `Deployment "${d.metadata.name ?? ''}"`;
    if (isComplete(d, next)) {
      const msg = `${subject} has successfully progressed.`;
      setCondition(next, newCondition(ConditionType.Progressing, 'True', Reason.NewReplicaSetAvailable, msg, p.now));
    } else if (isProgressing(d, next)) {
      const condition = newCondition(
        ConditionType.Progressing,
        'True',
        Reason.ReplicaSetUpdated,
        `${subject} is progressing.`,
        p.now,
      );
      if (current) {
        if (current.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
        removeCondition(next, ConditionType.Progressing);
      }
      setCondition(next, condition);
    } else if (isTimedOut(d, next, p.now)) {
      const msg = `${subject} has timed out progressing.`;
      setCondition(next, newCondition(ConditionType.Progressing, 'False', Reason.ProgressDeadlineExceeded, msg, p.now));
    }
  }

  const failure = replicaFailure(allRSs, newRS);
  if (failure) setCondition(next, failure);
  else removeCondition(next, ConditionType.ReplicaFailure);

  if (sameStatus(d.status, next)) {
    p.requeueAfter = requeueStuckDeployment(d, next, p.now);
    return;
  }
  p.d.status = next;
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure condition, else the first any ReplicaSet has. */
function replicaFailure(allRSs: readonly (ReplicaSet | null)[], newRS: ReplicaSet | null): Condition | undefined {
  for (const rs of [newRS, ...allRSs]) {
    const c = rs?.status?.conditions?.find((x) => x.type === ConditionType.ReplicaFailure);
    if (c) {
      return {
        type: c.type,
        status: c.status,
        lastTransitionTime: c.lastTransitionTime,
        lastUpdateTime: c.lastTransitionTime,
        reason: c.reason,
        message: c.message,
      };
    }
  }
  return undefined;
}

/**
 * requeueStuckDeployment: look again when the progress deadline passes (upstream: AddAfter(after + 1s), or a
 * rate-limited requeue when under a second is left; here 1 ms past the deadline then). undefined = no requeue.
 */
export function requeueStuckDeployment(d: Deployment, next: DeploymentStatus, now: Date): number | undefined {
  const current = getCondition(d.status, ConditionType.Progressing);
  if (!hasProgressDeadline(d) || !current) return undefined;
  if (isComplete(d, next) || current.reason === Reason.ProgressDeadlineExceeded) return undefined;
  const after = deadlineOf(d, current) - now.getTime();
  if (Number.isNaN(after)) return undefined;
  if (after < SECOND) return Math.max(after, 0) + 1;
  return after + SECOND;
}
