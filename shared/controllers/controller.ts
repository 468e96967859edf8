// What every controller gives the runtime: how to observe one key's world, and a pure planner.
import type { Action } from '../kube/actions.js';
import type { ReconcileKey } from '../kube/key.js';
import type { ClusterView } from '../kube/view.js';

export type PlanResult = {
  readonly actions: readonly Action[];
  /** Look again after this many ms even if nothing changes (0 = continue now). */
  readonly requeueAfter?: number;
  /**
   * A fleet controller's writes to other clusters (FleetRollout: the pins on its targets), applied after
   * `actions` succeeded and the run's own writes settled: what `actions` commit (a ledger in status) comes first.
   * Each cluster's writes are applied on their own; one that fails is logged and the key looks again within
   * `REMOTE_RETRY_MS`, so a cluster that does not answer never holds back the others.
   */
  readonly remote?: readonly RemoteActions[];
  /**
   * Gauges the pass read off its object (FleetRollout: clusters per state), set by the runtime on the process's
   * metrics once the run's writes succeeded. Each sample replaces the last of its name and labels.
   */
  readonly gauges?: readonly GaugeSample[];
};

export type GaugeSample = {
  /** A Prometheus metric name (fleetq_…); every sample of one name has the same label names. */
  readonly name: string;
  readonly help: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
};

export type RemoteActions = { readonly cluster: string; readonly actions: readonly Action[] };

/** How soon a key whose remote writes failed looks again. */
export const REMOTE_RETRY_MS = 2_000;

/** A cluster of the registry as a fleet controller sees it. */
export type FleetCluster = { readonly name: string; readonly labels?: Readonly<Record<string, string>> };

/**
 * What a fleet controller (one whose objects live on the hub and act on other clusters) reads besides its own
 * cluster: the registry's clusters, as the process knows them now, and the read view of any of them.
 */
export interface FleetAccess {
  clusters(): readonly FleetCluster[];
  view(cluster: string): ClusterView;
}

export interface Controller<Observed = unknown> {
  readonly kind: string;
  /**
   * `now`: the runtime's clock, for a controller whose reads depend on time (TTL-after-finished re-reads a Job
   * fresh only once it has expired); the others ignore it. `fleet`: the other clusters, for a fleet controller
   * (FleetRollout); the runtime always gives it. Observe does I/O; plan stays pure.
   */
  observe(view: ClusterView, key: ReconcileKey, now?: Date, fleet?: FleetAccess): Promise<Observed>;
  /** Pure: no I/O, no clock (now is given), no randomness. */
  plan(observed: Observed, now: Date): PlanResult;
  /**
   * Pure. On a cluster that hands the kind over one object at a time (registry `handOver`) instead of owning
   * it: whether the observed object is fleetq's (Job: spec.managedBy names fleetq). The runtime plans
   * nothing for one that is not (or is gone): the cluster's own controller has it. Absent: never handed over.
   */
  handedOver?(observed: Observed): boolean;
  /**
   * Creates all at once, in batches of this many, every create tried whatever the others met (upstream JobSet's
   * createJobs: ParallelizeUntil with MaxParallelism 50). Absent: slow-start batches (1, 2, 4, …) that stop at
   * the first failure, as upstream's built-in controllers create pods.
   */
  readonly createParallelism?: number;
  /**
   * Optional damage bound, run after plan() and before any write: may read fresh state and throw a
   * ReconcileError to refuse a plan that would break a safety limit (e.g. ReplicaSet: pods past
   * replicas + maxSurge). A refusal is logged and retried with backoff.
   */
  preflight?(view: ClusterView, key: ReconcileKey, observed: Observed, result: PlanResult): Promise<void>;
  /**
   * Optional, pure: after applying plan()'s actions failed on a create or delete, the status writes that record
   * the failure (e.g. ReplicaSet's ReplicaFailure condition). The runtime applies them, then retries the key.
   */
  planWriteFailure?(
    observed: Observed,
    now: Date,
    failure: { readonly message: string; readonly method: string },
  ): PlanResult;
  /**
   * Optional: after plan()'s actions all succeeded, what the pass must undo, read fresh (JobSet: Jobs created for a
   * JobSet that was deleted and gone while they were sent, deleted at once instead of left to the garbage
   * collector). The runtime applies the actions returned; none: nothing to undo.
   */
  afterApply?(view: ClusterView, key: ReconcileKey, observed: Observed, result: PlanResult): Promise<readonly Action[]>;
}
