// The health reading of a fleet rollout's target in one cluster: from the workload and its own children as read from
// that cluster, the ClusterObservation the wave planner gates on (observation.ts). Pure: no I/O, `now` is an
// option. Each kind reads its new revision with its own controller's helpers:
// - Deployment (health-deployment.ts): the new ReplicaSet's pod-template-hash, its replicas, the Progressing
//   condition naming it;
// - StatefulSet (health-statefulset.ts): updateRevision, the pods of the ordinals the update covers;
// - DaemonSet (health-daemonset.ts): the hash of the ControllerRevision matching the template, the status counts.
// Status left over from the previous revision never passes: observedGeneration must be current, and each count
// must be the new revision's own. Failure signatures (health-signatures.ts) are looked for only in the new
// revision's pods.
//
// Every object is untrusted (health-untrusted.ts): nothing here throws. An absent target is present: false; a
// malformed one is present but not available, with the reason.
import type { ClusterObservation, RolloutTargetKind } from './observation.js';
import { deploymentVerdict, type DeploymentRead } from './health-deployment.js';
import { daemonSetVerdict, type DaemonSetRead } from './health-daemonset.js';
import { statefulSetVerdict, type StatefulSetRead } from './health-statefulset.js';
import { absent, observe, type HealthOptions } from './health-verdict.js';

export type { HealthOptions } from './health-verdict.js';
export type { DeploymentRead } from './health-deployment.js';
export type { StatefulSetRead } from './health-statefulset.js';
export type { DaemonSetRead } from './health-daemonset.js';
export { SIGNATURE_ORDER, MAX_PODS } from './health-signatures.js';

/** What was read of a target in one cluster, by kind. */
export type TargetRead =
  | ({ readonly kind: 'Deployment' } & DeploymentRead)
  | ({ readonly kind: 'StatefulSet' } & StatefulSetRead)
  | ({ readonly kind: 'DaemonSet' } & DaemonSetRead);

export function deploymentHealth(cluster: string, read: DeploymentRead, options: HealthOptions): ClusterObservation {
  return observe(cluster, 'Deployment', read.deployment, options, (d) => deploymentVerdict(d, read));
}

export function statefulSetHealth(cluster: string, read: StatefulSetRead, options: HealthOptions): ClusterObservation {
  return observe(cluster, 'StatefulSet', read.statefulSet, options, (s) => statefulSetVerdict(s, read, options));
}

export function daemonSetHealth(cluster: string, read: DaemonSetRead, options: HealthOptions): ClusterObservation {
  return observe(cluster, 'DaemonSet', read.daemonSet, options, (ds) => daemonSetVerdict(ds, read));
}

/** The observation of a cluster that could not be read this pass (the reading itself is the caller's I/O). */
export function unreachableHealth(cluster: string, reason: string): ClusterObservation {
  return { ...absent(cluster, reason), unreachable: true };
}

/** The observation of any target kind; an unknown kind is not present. */
export function targetHealth(cluster: string, read: TargetRead, options: HealthOptions): ClusterObservation {
  const kind: RolloutTargetKind = read.kind;
  switch (kind) {
    case 'Deployment':
      return deploymentHealth(cluster, read as DeploymentRead, options);
    case 'StatefulSet':
      return statefulSetHealth(cluster, read as StatefulSetRead, options);
    case 'DaemonSet':
      return daemonSetHealth(cluster, read as DaemonSetRead, options);
    default:
      return unknownKind(cluster, kind);
  }
}

function unknownKind(cluster: string, kind: never): ClusterObservation {
  return absent(cluster, `unknown target kind ${String(kind).slice(0, 63)}`);
}
