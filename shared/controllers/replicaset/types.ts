// What the ReplicaSet planner observes, and the constants of upstream's replicaset-controller.
import type { Pod, ReplicaSet } from '../../kube/api/objects.js';

/** replicaset.BurstReplicas: at most this many creates or deletes per pass; requeueAfter 0 continues. */
export const BURST_REPLICAS = 500;
export const REPLICA_FAILURE = 'ReplicaFailure';

export const Reason = {
  SuccessfulCreate: 'SuccessfulCreate',
  SuccessfulDelete: 'SuccessfulDelete',
  FailedCreate: 'FailedCreate',
  FailedDelete: 'FailedDelete',
  AdoptPod: 'AdoptPod',
  ReleasePod: 'ReleasePod',
} as const;

export const RS_API_VERSION = 'apps/v1';
export const RS_KIND = 'ReplicaSet';

/**
 * One live (consistent) read of the ReplicaSet's world. fleetq keeps no expectations: every read is a quorum
 * read from the apiserver, so a pass always sees the pods its previous pass created or deleted.
 */
export type ObservedReplicaSet = {
  /** null when the ReplicaSet is gone. */
  readonly replicaSet: ReplicaSet | null;
  /**
   * The pods of its namespace controlled by it or by no controller (FilterPodsByOwner with orphans): the ones
   * it may keep, adopt, release or count as terminating.
   */
  readonly pods: readonly Pod[];
  /**
   * Pods selected by any ReplicaSet with the same controller (this one included), for the same-node rank of
   * scale-down. Read only when a scale-down of a controlled ReplicaSet is possible; else empty.
   */
  readonly relatedPods: readonly Pod[];
  /**
   * RecheckDeletionTimestamp: the ReplicaSet read again after the pods were listed, present only when there is
   * an orphan to adopt. Adoption waits if it is gone, replaced (other uid) or being deleted.
   */
  readonly adoptionRecheck?: ReplicaSet | null;
};

/** A failed create or delete of the last apply, for the ReplicaFailure condition (see status.ts). */
export type ManageFailure = { readonly message: string };
