// One pass of lws v0.9.0's LeaderWorkerSetReconciler.Reconcile (leaderworkerset_controller.go), as data: the
// writes upstream makes, in its order, each with the events upstream records for it. The next layer (plan.ts, not
// written yet) turns them into fleetq actions; index.ts says how.
import type { ControllerRevision, Pod, StatefulSet } from '../../kube/api/objects.js';
import {
  groupsUpdatingEvent,
  headlessServiceFailedEvent,
  leaderStatefulSetCreatedEvent,
  leaderStatefulSetFailedEvent,
  updatedRevisionEvent,
  type LwsEvent,
} from './events.js';
import { replicaStates, statefulSetsOf } from './group-state.js';
import { sharedHeadlessService } from './headless-service.js';
import { leaderStatefulSet } from './leader-statefulset.js';
import { currentRevision, revisionKeyOf, revisionsToTruncate, updatedRevision } from './revision.js';
import { rollingUpdateParameters } from './rolling-update.js';
import { computeStatus } from './status.js';
import type { LeaderWorkerSet, LeaderWorkerSetStatus, Service } from './types.js';

/** How soon upstream looks again while the leader StatefulSet is being deleted. */
export const LEADER_STS_DELETING_RETRY_MS = 5_000;

export type ObservedLeaderWorkerSet = {
  /** null when it is gone. */
  readonly lws: LeaderWorkerSet | null;
  /** The StatefulSet named after it, null when there is none. */
  readonly leaderStatefulSet: StatefulSet | null;
  /** The ControllerRevisions of its namespace (revisionsOf picks its own). */
  readonly revisions: readonly ControllerRevision[];
  /** Pods of its namespace with its name label (its leader pods are picked from them). */
  readonly pods: readonly Pod[];
  /** StatefulSets of its namespace with its name label (the leader's and the workers'). */
  readonly statefulSets: readonly StatefulSet[];
  /** A Service named after it exists (read only under Shared). */
  readonly sharedServiceExists: boolean;
};

export type LwsReconcilePlan = {
  /** Revisions to create, in order, each with the event recorded once it is created. */
  readonly createRevisions: readonly { readonly object: ControllerRevision; readonly event: LwsEvent }[];
  /** The leader StatefulSet to apply (created when it did not exist), and its events. */
  readonly applyLeaderStatefulSet?: {
    readonly object: StatefulSet;
    readonly existed: boolean;
    readonly onSuccess: readonly LwsEvent[];
    readonly onFailure: (err: string) => LwsEvent;
  };
  /** The shared headless Service to create, and the event of a failed create. */
  readonly createService?: { readonly object: Service; readonly onFailure: (err: string) => LwsEvent };
  /** The status to write (absent: unchanged, or the leader StatefulSet was only created this pass). */
  readonly status?: LeaderWorkerSetStatus;
  /** Surge groups given back: recorded while the rolling update is computed, before the leader StatefulSet's apply. */
  readonly rollingEvents: readonly LwsEvent[];
  /** The conditions changed: recorded with the status write. */
  readonly statusEvents: readonly LwsEvent[];
  /** Revisions to delete once the status is written: the update is done. */
  readonly deleteRevisions: readonly ControllerRevision[];
  readonly requeueAfterMs?: number;
};

const NOTHING: LwsReconcilePlan = { createRevisions: [], rollingEvents: [], statusEvents: [], deleteRevisions: [] };

/**
 * Reconcile: nothing for a LeaderWorkerSet that is gone or being deleted; wait while its leader StatefulSet is being
 * deleted; else revisions, leader StatefulSet, Service, status and revision clean-up, as upstream does them. The
 * status is computed from the leader StatefulSet as observed; on the pass that creates it upstream's status read
 * fails and is retried, so no status is written (the new StatefulSet's event brings the next pass).
 */
export function planLeaderWorkerSet(observed: ObservedLeaderWorkerSet, now: Date): LwsReconcilePlan {
  const { lws, leaderStatefulSet: sts } = observed;
  if (lws === null || (lws.metadata.deletionTimestamp ?? null) !== null) return NOTHING;
  if (sts !== null && (sts.metadata?.deletionTimestamp ?? null) !== null) {
    return { ...NOTHING, requeueAfterMs: LEADER_STS_DELETING_RETRY_MS };
  }

  const createRevisions: { object: ControllerRevision; event: LwsEvent }[] = [];
  const current = currentRevision(lws, sts, observed.revisions);
  if (current.create !== undefined) createRevisions.push({ object: current.revision, event: current.create.event });
  const known = current.create === undefined ? observed.revisions : [...observed.revisions, current.revision];
  const updated = updatedRevision(lws, sts !== null, current.revision, known);
  if (updated !== null) {
    createRevisions.push({
      object: updated,
      event: updatedRevisionEvent(updated.metadata?.name ?? '', revisionKeyOf(updated)),
    });
  }
  const revision = updated ?? current.revision;
  const key = revisionKeyOf(revision);
  const revisionName = revision.metadata?.name ?? '';

  const { partition, replicas, events } = rollingUpdateParameters(lws, sts, updated !== null, () =>
    replicaStates(lws, sts?.spec?.replicas ?? 0, key, observed.pods, observed.statefulSets),
  );
  const lwsName = lws.metadata.name ?? '';
  const oldPartition = sts?.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  const onSuccess =
    sts === null
      ? [leaderStatefulSetCreatedEvent(lwsName, revisionName)]
      : updated === null && partition !== oldPartition
        ? [groupsUpdatingEvent(oldPartition, partition, revisionName)]
        : [];
  const applyLeaderStatefulSet = {
    object: leaderStatefulSet(lws, partition, replicas, key),
    existed: sts !== null,
    onSuccess,
    onFailure: (err: string) => leaderStatefulSetFailedEvent(lwsName, sts !== null, err),
  };

  const service = observed.sharedServiceExists ? null : sharedHeadlessService(lws);
  const createService = service === null ? undefined : { object: service, onFailure: headlessServiceFailedEvent };

  const withService = createService === undefined ? {} : { createService };
  if (sts === null) {
    return {
      createRevisions,
      applyLeaderStatefulSet,
      ...withService,
      rollingEvents: events,
      statusEvents: [],
      deleteRevisions: [],
    };
  }

  const workers = new Map(statefulSetsOf(lws, observed.statefulSets).map((s) => [s.metadata?.name ?? '', s]));
  const status = computeStatus(lws, sts, observed.pods, workers, key, now);
  const allKnown = updated === null ? known : [...known, updated];
  return {
    createRevisions,
    applyLeaderStatefulSet,
    ...withService,
    ...(status.status !== undefined && { status: status.status }),
    rollingEvents: events,
    statusEvents: status.events,
    deleteRevisions: status.updateDone ? revisionsToTruncate(lws, allKnown, key) : [],
  };
}
