// What a fleet rollout learns of its target in one cluster: the revision the workload's spec asks for, and how
// that revision itself is doing there. Built per cluster from the workload and its own children (health.ts);
// read by the wave planner (plan.ts). Every verdict names its revision and observedGeneration, so status left
// over from an earlier revision can never pass a gate.

/** The workload kinds a FleetRollout can target. */
export type RolloutTargetKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';

/** A failure signature seen in the pods of the new revision. */
export type FailureSignature =
  | 'ImagePullBackOff'
  | 'ErrImagePull'
  | 'CrashLoopBackOff'
  | 'OOMKilled'
  | 'CreateContainerConfigError'
  | 'ReadinessNeverPassed';

export type RevisionFailure = {
  readonly signature: FailureSignature;
  /** The image of the container that showed it ('' when the signature is not tied to one container). */
  readonly image: string;
  /** Pod names of the new revision that show it (sorted, at most 10). */
  readonly pods: readonly string[];
  readonly message: string;
};

export type ClusterObservation = {
  readonly cluster: string;
  /** False when the target does not exist in this cluster (or could not be read: see `unreachable`). */
  readonly present: boolean;
  /** The cluster could not be read at all this pass. */
  readonly unreachable?: boolean;
  /**
   * The revision the workload's current spec asks for: Deployment: the pod-template-hash of its template;
   * StatefulSet: its updateRevision (or the hash of the template when none yet); DaemonSet: the hash of the
   * template as the ControllerRevision name suffix. '' when not present.
   */
  readonly revision: string;
  /** The revision the workload ran before this one ('' when none is known): what a rollback returns to. */
  readonly previousRevision: string;
  readonly generation: number;
  readonly observedGeneration: number;
  /**
   * The new revision itself is available in this cluster: observedGeneration current, every replica of it
   * updated and available for minReadySeconds (Deployment: Progressing reason NewReplicaSetAvailable for
   * this revision; StatefulSet: updatedReplicas = readyReplicas = replicas at updateRevision; DaemonSet:
   * updatedNumberScheduled = desiredNumberScheduled = numberAvailable).
   */
  readonly available: boolean;
  /**
   * Why `present` or `available` is false (observedGeneration behind, 2 of 3 replicas available, a malformed
   * object), for the ledger and the status; absent when available.
   */
  readonly reason?: string;
  /** The new revision's pods show a failure signature. */
  readonly failure?: RevisionFailure;
};
