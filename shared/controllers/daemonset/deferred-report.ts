// How the unhealthy-nodes policy (unhealthy-nodes.ts) reports what it deferred: the DaemonSet condition
// UnhealthyNodesDeferred (status True, reason UnhealthyNodes, the nodes named in its message) while any node's
// update waits, removed once none does; a Warning Event of the same reason each time the message changes,
// recorded once the status write that changed it succeeded (so a repeated pass records nothing).
// Upstream's daemonset-controller writes no DaemonSet condition; without the policy the conditions are left as
// they are.
import type { DaemonSet, DaemonSetCondition } from '../../kube/api/objects.js';
import { EventType, type EventSpec } from '../../kube/events/types.js';
import { wireTime } from '../common/wire-time.js';
import { dsEvent } from './events.js';
import { deferredMessage, UNHEALTHY_CONDITION, type Deferred } from './unhealthy-nodes.js';

export const DEFERRED_REASON = 'UnhealthyNodes';

export type DeferredReport = {
  /** The DaemonSet's conditions as they should be written. */
  readonly conditions: DaemonSetCondition[];
  /** The Event to record once they are written; absent when the message did not change. */
  readonly event?: EventSpec;
  /** Several Events to record once they are written (the fleet rollout pin's beside the policy's). */
  readonly events?: readonly EventSpec[];
};

export function deferredReport(ds: DaemonSet, deferred: readonly Deferred[], now: Date): DeferredReport {
  const others = (ds.status?.conditions ?? []).filter((c) => c.type !== UNHEALTHY_CONDITION);
  const previous = (ds.status?.conditions ?? []).find((c) => c.type === UNHEALTHY_CONDITION);
  if (deferred.length === 0) return { conditions: others };
  const message = deferredMessage(deferred);
  const condition: DaemonSetCondition = {
    type: UNHEALTHY_CONDITION,
    status: 'True',
    reason: DEFERRED_REASON,
    message,
    lastTransitionTime:
      previous?.status === 'True' && previous.lastTransitionTime !== undefined
        ? previous.lastTransitionTime
        : wireTime(now),
  };
  const changed = previous?.message !== message || previous.status !== 'True';
  return {
    conditions: [...others, condition],
    ...(changed && { event: dsEvent(ds, EventType.Warning, UNHEALTHY_CONDITION, message) }),
  };
}

export function hasDeferredCondition(ds: DaemonSet): boolean {
  return (ds.status?.conditions ?? []).some((c) => c.type === UNHEALTHY_CONDITION);
}
