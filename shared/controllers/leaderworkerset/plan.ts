// The LeaderWorkerSet key's planner: one pass of upstream's LeaderWorkerSetReconciler (reconcile.ts
// planLeaderWorkerSet) as fleetq actions, in upstream's order:
//   1  the revisions to create (current, then updated), each with its CreatingRevision event
//   2  the surge groups given back: their events, recorded whatever the writes meet (upstream records them while it
//      computes the rolling update, before the apply)
//   3  the leader StatefulSet: server-side applied every pass, whole (field manager "lws", forced, as upstream's
//      SSAWithStatefulset; the configuration is leader-statefulset.ts's, upstream's applied object field for field),
//      which creates it when there is none; GroupsProgressing or GroupsUpdating once applied, FailedCreate (there
//      was none) or FailedUpdate with the apiserver's error when refused
//   4  the shared headless Service, created when missing (FailedCreate when refused)
//   5  the status (an update of the status subresource, with the condition events)
//   6  once the update is done, the revisions of other keys deleted
// Where fleetq differs (the writer sends creates first, in slow-start batches, then updates, patches, applies and
// deletes, then the status):
//  - The Service's create goes with the creates, before the StatefulSet's apply: a refused apply may not hold it
//    back as it does upstream. A refused revision create holds back the apply, as upstream.
//  - The surge events of step 2 are recorded even when a revision create before them is refused (upstream stops
//    before it computes them).
//  - The condition events go out after the status write succeeded; upstream records them before it.
//  - Revisions are deleted only in a pass that writes no status (a pass that writes one continues at once), so
//    that, as upstream, none is deleted unless the status before it was written.
//  - Those deletes go out in one batch with the apply, not after it: a refused apply does not hold them back as it
//    does upstream (they come once the update is done, when the apply usually has nothing left to change).
import { applyAction, type Action } from '../../kube/actions.js';
import type { PlanResult } from '../controller.js';
import { lwsEventSpec, lwsFailureSpec } from './events.js';
import { planLeaderWorkerSet, type ObservedLeaderWorkerSet } from './reconcile.js';
import { LWS_API_VERSION, LWS_KIND, type LeaderWorkerSet } from './types.js';

/** Upstream's field manager for its server-side applies (leaderworkerset_controller.go fieldManager). */
export const LWS_FIELD_MANAGER = 'lws';

/** The reasons fleetq logs its writes under. */
export const WriteReason = {
  Revision: 'CreateRevision',
  LeaderStatefulSet: 'ApplyLeaderStatefulSet',
  HeadlessService: 'HeadlessService',
  TruncateRevision: 'TruncateRevision',
  RecreateGroup: 'RecreateGroup',
  WorkerStatefulSet: 'CreateWorkerStatefulSet',
} as const;

export function planLeaderWorkerSetActions(observed: ObservedLeaderWorkerSet, now: Date): PlanResult {
  const lws = observed.lws;
  if (lws === null) return { actions: [] };
  const plan = planLeaderWorkerSet(observed, now);
  const spec = (e: Parameters<typeof lwsEventSpec>[1]) => lwsEventSpec(lws, e);
  const actions: Action[] = plan.createRevisions.map((r) => ({
    type: 'create',
    object: r.object,
    reason: WriteReason.Revision,
    events: { onSuccess: [spec(r.event)] },
  }));
  for (const e of plan.rollingEvents) actions.push({ type: 'event', event: spec(e) });

  const apply = plan.applyLeaderStatefulSet;
  if (apply !== undefined) {
    actions.push(
      applyAction(apply.object, {
        fieldManager: LWS_FIELD_MANAGER,
        force: true,
        reason: WriteReason.LeaderStatefulSet,
        events: { onSuccess: apply.onSuccess.map(spec), onFailure: lwsFailureSpec(lws, apply.onFailure) },
      }),
    );
  }

  if (plan.createService !== undefined) {
    actions.push({
      type: 'create',
      object: plan.createService.object,
      reason: WriteReason.HeadlessService,
      events: { onFailure: lwsFailureSpec(lws, plan.createService.onFailure) },
    });
  }

  const statusEvents = plan.statusEvents.map(spec);
  if (plan.status !== undefined) {
    actions.push({ type: 'updateStatus', object: withStatus(lws, plan.status), events: { onSuccess: statusEvents } });
    if (plan.deleteRevisions.length > 0) return { actions, requeueAfter: 0 };
  } else {
    for (const event of statusEvents) actions.push({ type: 'event', event });
  }
  for (const r of plan.deleteRevisions) {
    actions.push({
      type: 'delete',
      target: { kind: 'ControllerRevision', namespace: r.metadata?.namespace ?? '', name: r.metadata?.name ?? '' },
      uid: r.metadata?.uid ?? '',
      reason: WriteReason.TruncateRevision,
    });
  }
  return { actions, ...(plan.requeueAfterMs !== undefined && { requeueAfter: plan.requeueAfterMs }) };
}

function withStatus(lws: LeaderWorkerSet, status: NonNullable<LeaderWorkerSet['status']>): LeaderWorkerSet {
  return { ...lws, apiVersion: LWS_API_VERSION, kind: LWS_KIND, status };
}
