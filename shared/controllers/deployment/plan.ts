// The Deployment planner: syncDeployment's order of decisions (deployment_controller.go), pure.
// selector check → claim ReplicaSets → deleting: status only → paused conditions → paused: scale only →
// rollback annotation: rollback → scaling event: scale only → rollout by strategy. The deprecated rollback
// annotation (deprecated.deployment.rollback.to) is acted on as upstream still does (rollback.ts); `kubectl
// rollout undo` does not use it: it writes the old template, which rolls out as any template change does and
// reuses the old ReplicaSet under a new revision. Events upstream records go with the writes (events.ts).
import { TerminalError } from '../../kube/errors.js';
import { isSelectingAll } from '../../kube/meta/label-selector.js';
import type { PlanResult } from '../controller.js';
import { claimReplicaSets } from './claim.js';
import { selectingAllEvent } from './events.js';
import { Pass, SyncAborted } from './pass.js';
import { rolloutRecreate } from './recreate.js';
import { rollback, rollbackTo } from './rollback.js';
import { rolloutRolling } from './rolling.js';
import { checkPausedConditions, isScalingEvent, sync, syncStatusOnly } from './sync.js';
import { Strategy, type ObservedDeployment } from './types.js';

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
    checkPausedConditions(p);
    if (d.spec.paused === true) {
      sync(p, rsList);
      return result(p);
    }
    if (rollbackTo(d) !== null) {
      rollback(p, rsList);
      return result(p);
    }
    if (isScalingEvent(p, rsList)) {
      sync(p, rsList);
      return result(p);
    }
    switch (d.spec.strategy?.type) {
      case Strategy.Recreate:
        rolloutRecreate(p, rsList, o.pods);
        break;
      case Strategy.RollingUpdate:
        rolloutRolling(p, rsList);
        break;
      default:
        throw new TerminalError('Invalid', `unexpected deployment strategy type: ${String(d.spec.strategy?.type)}`);
    }
  } catch (err) {
    // Upstream returns an error and the key is requeued (rate limited); what was done so far stays done.
    if (err instanceof SyncAborted) return { actions: p.actions(), requeueAfter: 0 };
    throw err;
  }
  return result(p);
}

function result(p: Pass): PlanResult {
  const actions = p.actions();
  return p.requeueAfter === undefined ? { actions } : { actions, requeueAfter: p.requeueAfter };
}
