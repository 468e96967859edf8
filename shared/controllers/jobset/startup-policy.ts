// Which replicatedJobs may start (startup_policy.go and depends_on.go, v0.12.0). startupPolicy InOrder (deprecated
// for dependsOn) starts one replicatedJob at a time, in spec order: the next only once every Job of the previous
// has started (ready, succeeded or failed). dependsOn holds a replicatedJob back until the one it names reached
// Ready (ready + succeeded + failed = its replicas) or Complete (succeeded = its replicas), as counted in this
// pass's replicatedJobsStatus; a dependency without a status yet holds it back too.
import { statusOf } from './status.js';
import {
  DependsOnStatus,
  StartupPolicyOrder,
  type JobSet,
  type ReplicatedJob,
  type ReplicatedJobStatus,
} from './types.js';

/** inOrderStartupPolicy. */
export function isInOrderStartup(js: JobSet): boolean {
  return js.spec.startupPolicy?.startupPolicyOrder === StartupPolicyOrder.InOrder;
}

/**
 * allReplicasStarted. Upstream dereferences the status, which always exists for a replicatedJob of the spec;
 * a missing one counts as nothing started.
 */
export function allReplicasStarted(replicas: number, status: ReplicatedJobStatus | undefined): boolean {
  return replicas === (status?.failed ?? 0) + (status?.ready ?? 0) + (status?.succeeded ?? 0);
}

/**
 * dependencyReachedStatus. `replicasSoFar` holds the replicas of the replicatedJobs up to and including this one
 * (upstream's rJobsReplicas, filled in spec order), so a dependency on a later one compares against 0.
 */
export function dependencyReachedStatus(
  rjob: ReplicatedJob,
  replicasSoFar: ReadonlyMap<string, number>,
  statuses: readonly ReplicatedJobStatus[],
): boolean {
  for (const dep of rjob.dependsOn ?? []) {
    const actual = statusOf(statuses, dep.name);
    if (actual === undefined) return false;
    const replicas = replicasSoFar.get(dep.name) ?? 0;
    if (dep.status === DependsOnStatus.Complete && replicas !== actual.succeeded) return false;
    if (dep.status === DependsOnStatus.Ready && replicas !== actual.failed + actual.ready + actual.succeeded) {
      return false;
    }
  }
  return true;
}
