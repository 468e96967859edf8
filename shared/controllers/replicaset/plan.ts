// The ReplicaSet planner (syncReplicaSet): claim, then manage replicas, then status. Pure: observed state and
// `now` in, actions out.
//
// A pass that adopts or releases pods does only that and continues at once (requeueAfter 0): upstream claims
// before it counts, and the writer sends creates before updates, so counting in the same pass would create or
// delete against pod ownership that has not been written yet. The next pass reads the claim back.
import type { Pod, ReplicaSet } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import type { PlanResult } from '../controller.js';
import { isControlledBy } from '../../kube/meta/controller-ref.js';
import { selectorOf, type Selector } from '../../kube/meta/label-selector.js';
import { canAdopt, claimActions } from '../common/claim.js';
import { isPodTerminating } from '../pod-utils/pod-state.js';
import { claimActivePods, manageReplicas } from './manage.js';
import { availabilityRequeueMs, calculateStatus, statusAction } from './status.js';
import { RS_API_VERSION, RS_KIND, type ManageFailure, type ObservedReplicaSet } from './types.js';

export function planReplicaSet(o: ObservedReplicaSet, now: Date): PlanResult {
  const rs = o.replicaSet;
  if (rs === null) return { actions: [] }; // gone: the garbage collector deletes its pods
  const selects = selectorOf(rs.spec?.selector);
  const deleting = !!rs.metadata?.deletionTimestamp;
  const claim = claimActivePods(rs, o.pods, selects);

  if (claim.adopt.length > 0 && o.adoptionRecheck !== undefined && !canAdopt(rs, o.adoptionRecheck)) {
    return { actions: [], requeueAfter: 0 }; // deleted or replaced since it was read: look again
  }
  const claims = claimActions(ownerOf(rs), 'Pod', claim);
  if (claims.length > 0) return { actions: claims, requeueAfter: 0 };

  // A ReplicaSet being deleted creates and deletes nothing, but keeps its status current (as upstream).
  const manage = deleting ? { actions: [], more: false } : manageReplicas(rs, claim.claimed, o.relatedPods, now);
  const status = calculateStatus(rs, claim.claimed, terminatingPods(rs, o.pods, selects), now, null);
  const write = statusAction(rs, status);
  const actions: Action[] = write ? [...manage.actions, write] : [...manage.actions];
  const requeueAfter = manage.more ? 0 : availabilityRequeueMs(rs, status, claim.claimed, now);
  return requeueAfter === undefined ? { actions } : { actions, requeueAfter };
}

/**
 * The status to write when this pass's creates or deletes failed: the same counts with ReplicaFailure set
 * (reason FailedCreate or FailedDelete by the sign of the diff, as calculateStatus). Only a status action.
 */
export function planManageFailure(o: ObservedReplicaSet, now: Date, failure: ManageFailure): PlanResult {
  const rs = o.replicaSet;
  if (rs === null || rs.metadata?.deletionTimestamp) return { actions: [] };
  const selects = selectorOf(rs.spec?.selector);
  const claim = claimActivePods(rs, o.pods, selects);
  if (claim.adopt.length + claim.release.length > 0) return { actions: [] }; // that pass only claimed: no manage error
  const status = calculateStatus(rs, claim.claimed, terminatingPods(rs, o.pods, selects), now, failure);
  const write = statusAction(rs, status);
  return { actions: write ? [write] : [] };
}

function ownerOf(rs: ReplicaSet) {
  return { apiVersion: RS_API_VERSION, kind: RS_KIND, name: rs.metadata?.name ?? '', uid: rs.metadata?.uid ?? '' };
}

/** FilterClaimedPods(FilterTerminatingPods(pods)): terminating, controlled by this ReplicaSet, still selected. */
function terminatingPods(rs: ReplicaSet, pods: readonly Pod[], selects: Selector): Pod[] {
  const uid = rs.metadata?.uid ?? '';
  return pods.filter((p) => isPodTerminating(p) && isControlledBy(p, uid) && selects.matches(p.metadata?.labels));
}
