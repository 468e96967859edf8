// The Deployment planner: syncDeployment's order of decisions (deployment_controller.go), pure.
// selector check → claim ReplicaSets → deleting: status only → paused conditions → paused: scale only →
// rollback annotation: rollback → scaling event: scale only → rollout by strategy. The deprecated rollback
// annotation (deprecated.deployment.rollback.to) is acted on as upstream still does (rollback.ts); `kubectl
// rollout undo` does not use it: it writes the old template, which rolls out as any template change does and
// reuses the old ReplicaSet under a new revision. Events upstream records go with the writes (events.ts).
// A fleet rollout pin (fleet-rollout-pin.ts) may substitute the ReplicaSet the sync rolls to, or freeze the pass
// into upstream's paused sync; without the pin annotation the sync is upstream's, unchanged.
import { TerminalError } from '../../kube/errors.js';
import { isSelectingAll, selectorOf } from '../../kube/meta/label-selector.js';
import { claimObjects } from '../common/claim.js';
import type { PlanResult } from '../controller.js';
import { selectingAllEvent } from './events.js';
import {
  clearPinCondition,
  enterFreeze,
  enterHold,
  holdUnknown,
  leaveFreeze,
  leaveFrozen,
  leaveHold,
  resolvePin,
} from './fleet-rollout-pin.js';
import { Pass, SyncAborted } from './pass.js';
import { rolloutRecreate } from './recreate.js';
import { rollback, rollbackTo } from './rollback.js';
import { rolloutRolling } from './rolling.js';
import { checkPausedConditions, controllerRefTo, isScalingEvent, sync, syncStatusOnly } from './sync.js';
import { Strategy, type ObservedDeployment, type ReplicaSet } from './types.js';

export function planDeployment(o: ObservedDeployment, now: Date): PlanResult {
  const d = o.deployment;
  if (d === null) return { actions: [] };
  const p = new Pass(d, o.replicaSets, now);

  if (isSelectingAll(d.spec.selector)) {
    p.record(selectingAllEvent(d));
    const generation = d.metadata.generation ?? 0;
    if ((d.status?.observedGeneration ?? 0) < generation) p.status.observedGeneration = generation;
    return result(p);
  }
  try {
    const rsList = claimReplicaSets(p, o.replicaSets);
    if (d.metadata.deletionTimestamp !== undefined) {
      syncStatusOnly(p, rsList);
      return result(p);
    }
    const pin = resolvePin(d, rsList);
    switch (pin.kind) {
      case 'upstream':
        if (pin.frozen === undefined) {
          clearPinCondition(p.status);
          leaveFreeze(p);
          syncByStrategy(p, o, rsList, true);
        } else {
          enterFreeze(p, pin.frozen);
          syncByStrategy(p, o, rsList, true);
          leaveFrozen(p, pin.frozen);
        }
        break;
      case 'unknown':
        holdUnknown(p, pin, rsList);
        break;
      case 'hold':
        enterHold(p, pin);
        if (pin.frozen) enterFreeze(p, pin.message);
        else leaveFreeze(p);
        if (pin.target !== null) syncByStrategy(p, o, rsList, false);
        leaveHold(p, pin, rsList);
        break;
    }
  } catch (err) {
    // Upstream returns an error and the key is requeued (rate limited); what was done so far stays done.
    if (err instanceof SyncAborted) return { actions: p.actions(), requeueAfter: 0 };
    throw err;
  }
  return result(p);
}

/**
 * The sync after the claim: paused conditions → paused: scale only → rollback annotation (only when `rollback`:
 * a fleet rollout pin that disagrees with the template leaves it be, fleet-rollout-pin.ts) → scaling event:
 * scale only → rollout by strategy.
 */
function syncByStrategy(p: Pass, o: ObservedDeployment, rsList: ReplicaSet[], rollbackAllowed: boolean): void {
  const d = p.original;
  checkPausedConditions(p);
  // The working copy's: a frozen fleet rollout pin pauses the pass (fleet-rollout-pin.ts enterFreeze).
  if (p.d.spec.paused === true) return sync(p, rsList);
  if (rollbackAllowed && rollbackTo(d) !== null) return rollback(p, rsList);
  if (isScalingEvent(p, rsList)) return sync(p, rsList);
  switch (d.spec.strategy?.type) {
    case Strategy.Recreate:
      return rolloutRecreate(p, rsList, o.pods);
    case Strategy.RollingUpdate:
      return rolloutRolling(p, rsList);
    default:
      throw new TerminalError('Invalid', `unexpected deployment strategy type: ${String(d.spec.strategy?.type)}`);
  }
}

/**
 * ClaimReplicaSets: the ReplicaSets this Deployment now owns, adopted ones in their adopted form. Adoption and
 * release change the ReplicaSet's ownerReferences within the pass (one update with any scaling of it; a patch
 * when nothing else changes, pass.ts). The canAdopt recheck was observe's: it plans with the fresh Deployment.
 * An invalid selector fails the sync, as getReplicaSetsForDeployment returns its error (observe throws first).
 */
function claimReplicaSets(p: Pass, all: readonly ReplicaSet[]): ReplicaSet[] {
  const d = p.d;
  const claim = claimObjects(d, all, selectorOf(d.spec.selector));
  const adopt = new Set(claim.adopt);
  const release = new Set(claim.release);
  const claimed = new Set(claim.claimed);
  const owned: ReplicaSet[] = [];
  for (const rs of all) {
    if (release.has(rs)) {
      p.update(rs, 'ReleasedReplicaSet', (copy) => {
        copy.metadata.ownerReferences = (copy.metadata.ownerReferences ?? []).filter((r) => r.uid !== d.metadata.uid);
      });
    } else if (adopt.has(rs)) {
      owned.push(
        p.update(rs, 'AdoptedReplicaSet', (copy) => {
          copy.metadata.ownerReferences = [...(copy.metadata.ownerReferences ?? []), controllerRefTo(d)];
        }),
      );
    } else if (claimed.has(rs)) owned.push(rs);
  }
  return owned;
}

function result(p: Pass): PlanResult {
  const actions = p.actions();
  return p.requeueAfter === undefined ? { actions } : { actions, requeueAfter: p.requeueAfter };
}
