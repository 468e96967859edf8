// The FleetRollout condition a pinned workload's status carries (docs/decisions/fleet-rollout-gate.md), shared by
// the StatefulSet and DaemonSet planners: set, kept or removed among the status's other conditions, and the
// Event recorded when it appears, changes reason or goes away (never on a pass that leaves it as it was): Normal,
// Warning for a pin naming no revision of the workload (as the Deployment's).
import { EventType } from '../../kube/events/types.js';
import { PIN_CONDITION_TYPE, PIN_REASON } from '../../rollouts/pin.js';
import { wireTime } from './wire-time.js';

/** The condition as the workload's status holds it (apps/v1 StatefulSetCondition and DaemonSetCondition alike). */
export type WorkloadCondition = {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
};

/** What the gate says this pass: a condition to hold, none to hold (null), or leave the conditions alone. */
export type PinVerdict = { readonly reason: string; readonly message: string } | null | undefined;

/** The type of the Event a pin condition's reason is recorded with. */
export function pinEventType(reason: string): EventType {
  return reason === PIN_REASON.Unknown ? EventType.Warning : EventType.Normal;
}

/** The event reason recorded when the condition is removed because the pin and the template agree again. */
export const PIN_ADMITTED_EVENT_REASON = 'FleetRolloutAdmitted';

export type PinConditions = {
  /** The status's conditions after this pass (undefined: none at all). */
  readonly conditions: WorkloadCondition[] | undefined;
  /** The Normal Event to record with the status write: a transition. */
  readonly event?: { readonly reason: string; readonly message: string };
};

/**
 * The conditions with the FleetRollout condition set (status False, the verdict's reason and message) or removed.
 * An unchanged reason and message keep the condition as it was; status is always False, so lastTransitionTime is
 * that of its first appearance (SetCondition's rule: a transition is a change of status).
 */
export function withPinCondition(
  conditions: readonly WorkloadCondition[] | undefined,
  verdict: PinVerdict,
  now: Date,
  admittedMessage: string,
): PinConditions {
  const list = conditions ?? [];
  if (verdict === undefined) return { conditions: conditions === undefined ? undefined : [...list] };
  const existing = list.find((c) => c.type === PIN_CONDITION_TYPE);
  if (verdict === null) {
    if (existing === undefined) return { conditions: conditions === undefined ? undefined : [...list] };
    const rest = list.filter((c) => c !== existing);
    return {
      conditions: rest.length === 0 ? undefined : rest,
      event: { reason: PIN_ADMITTED_EVENT_REASON, message: admittedMessage },
    };
  }
  if (existing?.reason === verdict.reason && existing.message === verdict.message) return { conditions: [...list] };
  const condition: WorkloadCondition = {
    type: PIN_CONDITION_TYPE,
    status: 'False',
    reason: verdict.reason,
    message: verdict.message,
    lastTransitionTime:
      existing?.status === 'False' && existing.lastTransitionTime ? existing.lastTransitionTime : wireTime(now),
  };
  const next = existing === undefined ? [...list, condition] : list.map((c) => (c === existing ? condition : c));
  const transition = existing?.reason !== verdict.reason;
  return { conditions: next, ...(transition && { event: { reason: verdict.reason, message: verdict.message } }) };
}
