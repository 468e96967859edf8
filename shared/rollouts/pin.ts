// The pin a FleetRollout puts on a workload it paces (docs/decisions/fleet-rollout-gate.md): the rollout's name and
// the revision this cluster may run, as two annotations on the target. Read by the Deployment, StatefulSet and
// DaemonSet controllers; written by the FleetRollout controller after the ledger records the decision.
// The annotations are untrusted (anyone who may edit the workload may set them): a malformed pin is reported as
// such, never thrown, and the controllers hold rather than roll on it.

export const PIN_ROLLOUT_ANNOTATION = 'fleetrollout.fleetq.dev/name';
export const PIN_ADMITTED_ANNOTATION = 'fleetrollout.fleetq.dev/admitted';
/**
 * A revision whose rollout is frozen in this cluster (its pods fail): while it equals `admitted`, the workload makes
 * no progress toward it and rolls nothing back. A freeze naming another revision is left from an older one and does
 * nothing; '' is no freeze.
 */
export const PIN_FROZEN_ANNOTATION = 'fleetrollout.fleetq.dev/frozen';

/** The condition type a pinned workload's status carries while the pin and its template disagree. */
export const PIN_CONDITION_TYPE = 'FleetRollout';
export const PIN_REASON = {
  /** The template asks for a revision not admitted yet. */
  Waiting: 'WaitingForFleetRollout',
  /** The admitted revision is older than the one the template asks for: the rollout rolled it back. */
  RolledBack: 'RolledBackByFleetRollout',
  /** The pin names no revision of the workload's history, or cannot be read: nothing is rolled. */
  Unknown: 'FleetRolloutRevisionUnknown',
  /** The admitted revision's rollout is frozen where it stands: nothing progresses, nothing is rolled back. */
  Frozen: 'FrozenByFleetRollout',
} as const;

export type Pin =
  /**
   * `rollout` (namespace/name) paces the workload. `admitted` '' : no revision admitted yet; the controller holds
   * where the workload stands (a Deployment's newest ReplicaSet, a StatefulSet's currentRevision, the newest
   * revision a DaemonSet's pods run) and makes no pod of the template's revision (a StatefulSet or DaemonSet still
   * records it as a ControllerRevision, as upstream does). `frozen`: the frozen annotation names the admitted
   * revision (never with admitted '').
   */
  | { readonly state: 'pinned'; readonly rollout: string; readonly admitted: string; readonly frozen: boolean }
  /** The annotations are there but unusable: the controller holds, saying why. */
  | { readonly state: 'malformed'; readonly rollout: string; readonly message: string };

// A revision is a hash label value: a pod-template-hash (safe-encoded FNV) or a ControllerRevision's hash suffix.
const REVISION = /^[a-z0-9]{1,63}$/;
// namespace/name of the FleetRollout: a DNS label and a DNS subdomain.
const ROLLOUT = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** The workload's pin; undefined when no FleetRollout paces it (no name annotation). */
export function pinOf(workload: { readonly metadata?: { readonly annotations?: unknown } }): Pin | undefined {
  const annotations = workload.metadata?.annotations;
  if (annotations === null || typeof annotations !== 'object') return undefined;
  const a = annotations as Record<string, unknown>;
  const rollout = a[PIN_ROLLOUT_ANNOTATION];
  if (rollout === undefined) return undefined;
  const shown = typeof rollout === 'string' ? rollout.slice(0, 320) : '';
  if (typeof rollout !== 'string' || !ROLLOUT.test(rollout))
    return {
      state: 'malformed',
      rollout: shown,
      message: `annotation ${PIN_ROLLOUT_ANNOTATION} is not namespace/name`,
    };
  const admitted = a[PIN_ADMITTED_ANNOTATION];
  const frozen = a[PIN_FROZEN_ANNOTATION];
  // A freeze that cannot be read is a hold, not a release: the safe side for a revision that may be failing.
  if (frozen !== undefined && frozen !== '' && (typeof frozen !== 'string' || !REVISION.test(frozen)))
    return { state: 'malformed', rollout, message: `annotation ${PIN_FROZEN_ANNOTATION} is not a revision hash` };
  if (admitted === undefined || admitted === '') return { state: 'pinned', rollout, admitted: '', frozen: false };
  if (typeof admitted !== 'string' || !REVISION.test(admitted))
    return { state: 'malformed', rollout, message: `annotation ${PIN_ADMITTED_ANNOTATION} is not a revision hash` };
  return { state: 'pinned', rollout, admitted, frozen: frozen === admitted };
}
