// The fleet rollout pin on a StatefulSet (docs/decisions/fleet-rollout-gate.md, docs/controllers/statefulset.md
// "Fleet rollout pin"): which revision this pass rolls to, instead of the template's, when a FleetRollout paces
// the set. The pin holds a revision's hash: the ControllerRevision's `controller.kubernetes.io/hash` label, the
// suffix of its name `<set>-<hash>` (pods carry the whole name in controller-revision-hash).
import type { ControllerRevision, Pod, StatefulSet } from '../../kube/api/objects.js';
import { PIN_CONDITION_TYPE, PIN_REASON, type Pin } from '../../rollouts/pin.js';
import type { PinVerdict } from '../common/fleet-pin-condition.js';
import { revisionNumber } from '../common/controller-history.js';
import { nameOf } from './history.js';
import { replicasOf, revisionOfPod } from './identity.js';
import { REVISION_HASH_LABEL } from './types.js';

export type StatefulSetGate = {
  /** The revision pods at or above the partition are created at and rolled to; null: no such pod is created. */
  readonly update: ControllerRevision | null;
  /** The revision pods below the partition (or the current count) are created at; null: none is created. */
  readonly current: ControllerRevision | null;
  /** Whether the rolling update deletes outdated pods this pass. */
  readonly rolls: boolean;
  /**
   * The admitted revision's rollout is frozen: the pass sees the set with its partition at replicas (frozenView),
   * so no further ordinal is updated and a missing pod is made at `current`; pods already updated stay.
   */
  readonly frozen: boolean;
  /** status.updateRevision. */
  readonly statusUpdate: string;
  /** The FleetRollout condition: set, removed (null) or left alone (undefined: no pin). */
  readonly verdict: PinVerdict;
  /** The message of the event recorded when the condition is removed. */
  readonly admittedMessage: string;
};

/** A revision's hash: its hash label, else its name's suffix after `<set>-`. */
export function hashOfRevision(set: StatefulSet, cr: ControllerRevision): string {
  const label = cr.metadata?.labels?.[REVISION_HASH_LABEL];
  if (label) return label;
  const prefix = `${set.metadata?.name ?? ''}-`;
  const name = nameOf(cr);
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/**
 * The gate for this pass. `template` is the revision upstream's getStatefulSetRevisions made the update revision
 * (recorded as upstream does, whatever the pin); `current` the one status.currentRevision names (`hasCurrent`
 * false when it names none of the set's revisions, and `current` is then the template's, as upstream has it).
 *
 * - no pin: upstream's (update = template); a FleetRollout condition left from an earlier pin is removed;
 * - the pin admits the template's revision: upstream's, the condition removed;
 * - the pin admits another revision R of the set's history: pods are rolled to R by upstream's rolling update
 *   (partition, ordering, maxUnavailable); RolledBackByFleetRollout when R is older than the template's revision T
 *   and T has run (a pod of T, currentRevision T, or the same rollback already reported), status.updateRevision R;
 *   otherwise WaitingForFleetRollout, status.updateRevision T (so updatedReplicas counts T's pods and
 *   `kubectl rollout status` keeps waiting);
 * - admitted '': held where the set stands: no pod deleted for an update, new pods at status.currentRevision (none
 *   without one); WaitingForFleetRollout;
 * - a revision not in the history, or a malformed pin: as '' with FleetRolloutRevisionUnknown;
 * - the frozen annotation names the admitted revision (the template's or R): as above, but frozen where the set
 *   stands (no pod deleted for an update, missing pods at the current revision), FrozenByFleetRollout.
 */
export function statefulSetGate(
  set: StatefulSet,
  pin: Pin | undefined,
  sorted: readonly ControllerRevision[],
  current: ControllerRevision,
  hasCurrent: boolean,
  template: ControllerRevision,
  pods: readonly Pod[],
): StatefulSetGate {
  const T = hashOfRevision(set, template);
  const upstream = { update: template, current, rolls: true, frozen: false, statusUpdate: nameOf(template) };
  const admittedMessage = `FleetRollout ${pin?.rollout ?? ''} admits the template's revision ${T}`;
  if (pin === undefined) {
    // Upstream's. A condition left by a FleetRollout that stopped pacing the set (it removed the annotations) goes.
    const stale = set.status?.conditions?.some((c) => c.type === PIN_CONDITION_TYPE) === true;
    const released = `No FleetRollout paces the StatefulSet any more: the template's revision ${T} rolls`;
    return { ...upstream, verdict: stale ? null : undefined, admittedMessage: released };
  }
  const held = (reason: string, message: string): StatefulSetGate => ({
    update: hasCurrent ? current : null,
    current: hasCurrent ? current : null,
    rolls: false,
    frozen: false,
    statusUpdate: nameOf(template),
    verdict: { reason, message },
    admittedMessage,
  });
  const at = hasCurrent ? `revision ${hashOfRevision(set, current)}` : 'no revision';
  if (pin.state === 'malformed') {
    return held(PIN_REASON.Unknown, `FleetRollout ${pin.rollout} pin is unusable (${pin.message}): held at ${at}`);
  }
  const frozen = (gate: StatefulSetGate): StatefulSetGate => {
    if (!pin.frozen) return gate;
    const waits = pin.admitted === T ? '' : `; the template's revision ${T} waits`;
    const message = `FleetRollout ${pin.rollout} froze the rollout of revision ${pin.admitted} where the StatefulSet stands: no further pod is updated, none is rolled back${waits}`;
    return { ...gate, rolls: false, frozen: true, verdict: { reason: PIN_REASON.Frozen, message } };
  };
  if (pin.admitted === T) return frozen({ ...upstream, verdict: null, admittedMessage });
  if (pin.admitted === '') {
    return held(
      PIN_REASON.Waiting,
      `FleetRollout ${pin.rollout} has admitted no revision: held at ${at}; the template's revision ${T} waits`,
    );
  }
  const pinned = sorted.find((cr) => hashOfRevision(set, cr) === pin.admitted);
  if (pinned === undefined) {
    return held(
      PIN_REASON.Unknown,
      `FleetRollout ${pin.rollout} admits revision ${pin.admitted}, which is not in the StatefulSet's history: held at ${at}`,
    );
  }
  const rolledBack =
    revisionNumber(pinned) < revisionNumber(template) &&
    (pods.some((p) => revisionOfPod(p) === nameOf(template)) ||
      set.status?.currentRevision === nameOf(template) ||
      set.status?.conditions?.some(
        (c) =>
          c.type === PIN_CONDITION_TYPE &&
          c.reason === PIN_REASON.RolledBack &&
          c.message === rolledBackMessage(pin.rollout, pin.admitted, T),
      ) === true);
  return frozen({
    update: pinned,
    current: hasCurrent ? current : pinned,
    rolls: true,
    frozen: false,
    statusUpdate: rolledBack ? nameOf(pinned) : nameOf(template),
    verdict: rolledBack
      ? { reason: PIN_REASON.RolledBack, message: rolledBackMessage(pin.rollout, pin.admitted, T) }
      : {
          reason: PIN_REASON.Waiting,
          message: `FleetRollout ${pin.rollout} admits revision ${pin.admitted}; the template's revision ${T} waits`,
        },
    admittedMessage,
  });
}

/** The set as a frozen pass sees it: its partition at replicas (never written: the status keeps the set's own). */
export function frozenView(set: StatefulSet): StatefulSet {
  const strategy = set.spec?.updateStrategy;
  return {
    ...set,
    spec: {
      ...set.spec!,
      updateStrategy: { ...strategy, rollingUpdate: { ...strategy?.rollingUpdate, partition: replicasOf(set) } },
    },
  };
}

const rolledBackMessage = (rollout: string, admitted: string, template: string) =>
  `FleetRollout ${rollout} rolled back to revision ${admitted} from the template's revision ${template}`;
