// The fleet rollout pin (docs/decisions/fleet-rollout-gate.md): a FleetRollout's admitted revision decides which
// ReplicaSet the Deployment rolls to, whatever revision its template asks for. Not upstream: a Deployment without
// the pin annotation never reaches this file's decisions (resolvePin answers 'upstream').
//
// How: for the pass, the working copy's template is the admitted ReplicaSet's (its pod-template-hash label
// dropped), so upstream's own sync finds that ReplicaSet as the new one: it is scaled up by the strategy, the
// others down, its revision bumped past the others when it is older (what `kubectl rollout undo` leaves), and no
// ReplicaSet is created for the template. The spec is never written: status writes carry the observed spec, and
// the deprecated rollback annotation is not acted on while the pin disagrees with the template.
//
// Status: the counts are upstream's, except updatedReplicas, which counts the pods of the template's revision
// (0 while it is held), so `kubectl rollout status` keeps waiting; the pass itself compares in the pinned view
// (the observed updatedReplicas is read as the pinned ReplicaSet's), so the Progressing condition settles as it
// would for that ReplicaSet. A condition FleetRollout (False) says why:
//   WaitingForFleetRollout        the admitted revision is held and the template's revision has no ReplicaSet
//   RolledBackByFleetRollout      the admitted revision is held and the template's revision has a ReplicaSet
//                                 (it was rolled out here before, and the rollout took it back)
//   FleetRolloutRevisionUnknown   the pin is malformed or no ReplicaSet carries the admitted revision: nothing
//                                 is created or scaled
//   FrozenByFleetRollout          the frozen annotation names the admitted revision: the pass is upstream's
//                                 paused sync (spec.paused in its working copy only): no rollout progress, no
//                                 rollback, proportional scaling; Progressing Unknown FrozenByFleetRollout (no
//                                 progress deadline runs out), DeploymentResumed once the freeze is lifted
// admitted '' holds the newest ReplicaSet (highest revision); with none, nothing is created. The condition is
// removed when the pin and the template agree, or once the pin is gone. Each new reason records one event on the
// Deployment (Normal; Warning for an unknown revision).
import { EventType, type EventSpec } from '../../kube/events/types.js';
import { PIN_CONDITION_TYPE, PIN_REASON, pinOf } from '../../rollouts/pin.js';
import { computeHash } from '../common/pod-template-hash.js';
import { jsonCopy } from '../common/json-copy.js';
import { getCondition, newCondition, removeCondition, setCondition } from './conditions.js';
import { hasProgressDeadline } from './sync.js';
import { deploymentEvent } from './events.js';
import type { Pass } from './pass.js';
import { actualReplicaCount, byCreationTimestamp, equalIgnoreHash, findNewReplicaSet } from './replica-sets.js';
import { byRevision } from './revision.js';
import { calculateStatus } from './status.js';
import {
  ConditionType,
  POD_TEMPLATE_HASH_LABEL,
  Reason,
  type Deployment,
  type DeploymentStatus,
  type ReplicaSet,
} from './types.js';

type PinReason = (typeof PIN_REASON)[keyof typeof PIN_REASON];

export type PinDecision =
  /**
   * No pin, or the pin and the template agree: upstream's controller; `frozen`: the message of a freeze of the
   * admitted (template's) revision, under which the pass is upstream's paused sync.
   */
  | { readonly kind: 'upstream'; readonly pinned: boolean; readonly frozen?: string }
  /**
   * Roll toward `target` (null: admitted '' and no ReplicaSet at all: create nothing); `frozen`: the admitted
   * revision's rollout is frozen, so the pass is a paused sync in the pinned view (reason FrozenByFleetRollout).
   */
  | {
      readonly kind: 'hold';
      readonly target: ReplicaSet | null;
      readonly templateRS: ReplicaSet | null;
      readonly reason: PinReason;
      readonly message: string;
      readonly frozen: boolean;
    }
  /** Malformed pin or an admitted revision without a ReplicaSet: nothing is rolled. */
  | { readonly kind: 'unknown'; readonly templateRS: ReplicaSet | null; readonly message: string };

const hashOf = (rs: ReplicaSet): string => rs.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] ?? '';

/** What the pin asks of this pass; `owned` are the Deployment's ReplicaSets (claimed). */
export function resolvePin(d: Deployment, owned: readonly ReplicaSet[]): PinDecision {
  const pin = pinOf(d);
  if (pin === undefined) return { kind: 'upstream', pinned: false };
  const templateRS = findNewReplicaSet(d, [...owned]);
  const templateRevision = templateRS
    ? hashOf(templateRS)
    : computeHash(d.spec.template ?? {}, d.status?.collisionCount);
  const name = d.metadata.name ?? '';
  if (pin.state === 'malformed') {
    const message = `Deployment "${name}" is not rolled: the fleet rollout pin of "${pin.rollout}" cannot be read (${pin.message}); its template asks for revision ${templateRevision}`;
    return { kind: 'unknown', templateRS, message };
  }
  const admittedHere = (): PinDecision =>
    pin.frozen
      ? {
          kind: 'upstream',
          pinned: true,
          frozen: `FleetRollout ${pin.rollout} froze the rollout of Deployment "${name}" to revision ${pin.admitted} where it stands: nothing progresses and nothing is rolled back`,
        }
      : { kind: 'upstream', pinned: true };
  let target: ReplicaSet | null;
  if (pin.admitted === '') target = [...owned].sort(byRevision(byCreationTimestamp)).at(-1) ?? null;
  else if (pin.admitted === templateRevision) return admittedHere();
  else {
    target = [...owned].sort(byCreationTimestamp).find((rs) => hashOf(rs) === pin.admitted) ?? null;
    if (target === null) {
      const message = `Deployment "${name}" is not rolled: FleetRollout ${pin.rollout} admits revision ${pin.admitted}, which no ReplicaSet of it carries; its template asks for revision ${templateRevision}`;
      return { kind: 'unknown', templateRS, message };
    }
  }
  if (target !== null && equalIgnoreHash(target.spec.template, d.spec.template)) return admittedHere();
  const held = target === null ? 'none' : hashOf(target);
  if (pin.frozen) {
    // The template moved on from the admitted revision (a fix pushed meanwhile): still nothing progresses toward
    // the admitted one, and nothing is rolled back.
    const message = `FleetRollout ${pin.rollout} froze the rollout of Deployment "${name}" to revision ${held} where it stands; its template asks for revision ${templateRevision}`;
    return { kind: 'hold', target, templateRS, reason: PIN_REASON.Frozen, message, frozen: true };
  }
  if (templateRS !== null) {
    const message = `FleetRollout ${pin.rollout} rolled back Deployment "${name}" to revision ${held}; its template asks for revision ${templateRevision}`;
    return { kind: 'hold', target, templateRS, reason: PIN_REASON.RolledBack, message, frozen: false };
  }
  const message = `Deployment "${name}" is held at revision ${held} by FleetRollout ${pin.rollout}; its template asks for revision ${templateRevision}`;
  return { kind: 'hold', target, templateRS, reason: PIN_REASON.Waiting, message, frozen: false };
}

/** The Deployment as the pass sees it under a hold: the target ReplicaSet's template (no pod-template-hash). */
export function withPinnedTemplate(d: Deployment, target: ReplicaSet): Deployment {
  const copy = jsonCopy(d);
  applyTemplate(copy, target);
  return copy;
}

function applyTemplate(d: Deployment, target: ReplicaSet): void {
  const template = jsonCopy(target.spec.template ?? {});
  if (template.metadata?.labels) delete template.metadata.labels[POD_TEMPLATE_HASH_LABEL];
  d.spec.template = template;
}

/**
 * Before the sync of a hold: the pass's template becomes the target's, and the observed updatedReplicas is read
 * as the target's, so the pass compares progress in the pinned view.
 */
export function enterHold(p: Pass, decision: Extract<PinDecision, { kind: 'hold' }>): void {
  if (decision.target === null) return;
  applyTemplate(p.d, decision.target);
  if (p.d.status?.updatedReplicas !== undefined) p.status.updatedReplicas = actualReplicaCount([decision.target]);
}

/** After the sync of a hold: updatedReplicas of the template's revision, the condition and its event. */
export function leaveHold(p: Pass, decision: Extract<PinDecision, { kind: 'hold' }>, rsList: ReplicaSet[]): void {
  if (decision.target === null) {
    // Nothing to roll and nothing to create: the status of no ReplicaSet.
    const next = calculateStatus(rsList, null, p.d, p.now);
    p.d.status = next;
  } else if (p.d.status?.updatedReplicas !== undefined) {
    p.status.updatedReplicas = actualReplicaCount([decision.templateRS]);
  }
  setPinCondition(p, decision.reason, decision.message);
}

/** Unknown revision or malformed pin: truthful counts of what runs, no write to any ReplicaSet. */
export function holdUnknown(p: Pass, decision: Extract<PinDecision, { kind: 'unknown' }>, rsList: ReplicaSet[]): void {
  p.d.status = calculateStatus(rsList, decision.templateRS, p.d, p.now);
  setPinCondition(p, PIN_REASON.Unknown, decision.message);
}

/**
 * Before the sync of a frozen pass: the working copy is paused (never written: status writes carry the observed
 * spec), so syncByStrategy takes upstream's paused path: sync scales (proportionally) and cleans up, and no
 * rollout runs. Progressing becomes Unknown FrozenByFleetRollout, as checkPausedConditions makes it
 * DeploymentPaused (never over ProgressDeadlineExceeded; a Deployment the user paused keeps DeploymentPaused), so
 * the progress deadline does not run out while frozen and `kubectl rollout status` keeps waiting.
 */
export function enterFreeze(p: Pass, message: string): void {
  p.d.spec.paused = true;
  if (p.original.spec.paused === true || !hasProgressDeadline(p.d)) return;
  const cond = getCondition(p.status, ConditionType.Progressing);
  if (cond?.reason === Reason.ProgressDeadlineExceeded) return;
  if (cond?.reason === PIN_REASON.Frozen && cond.status === 'Unknown' && cond.message === message) return;
  setCondition(p.status, newCondition(ConditionType.Progressing, 'Unknown', PIN_REASON.Frozen, message, p.now));
}

/**
 * Not frozen (any more): Progressing FrozenByFleetRollout becomes DeploymentResumed, as checkPausedConditions
 * resumes a paused Deployment, so the progress deadline counts from now. A Deployment the user paused is left to
 * checkPausedConditions.
 */
export function leaveFreeze(p: Pass): void {
  if (p.original.spec.paused === true || !hasProgressDeadline(p.d)) return;
  if (getCondition(p.status, ConditionType.Progressing)?.reason !== PIN_REASON.Frozen) return;
  const message = 'Deployment is resumed: no FleetRollout freezes its rollout';
  setCondition(p.status, newCondition(ConditionType.Progressing, 'Unknown', Reason.DeploymentResumed, message, p.now));
}

/** After the sync of a frozen pass whose pin agrees with the template: the FleetRollout condition and its event. */
export function leaveFrozen(p: Pass, message: string): void {
  setPinCondition(p, PIN_REASON.Frozen, message);
}

/** The pin and the template agree, or there is no pin: no FleetRollout condition. */
export function clearPinCondition(status: DeploymentStatus): void {
  if (getCondition(status, PIN_CONDITION_TYPE)) removeCondition(status, PIN_CONDITION_TYPE);
}

function setPinCondition(p: Pass, reason: PinReason, message: string): void {
  const current = getCondition(p.original.status, PIN_CONDITION_TYPE);
  const next = newCondition(PIN_CONDITION_TYPE, 'False', reason, message, p.now);
  if (current?.reason === reason && current.message === message) {
    setCondition(p.status, { ...next, ...current });
    return;
  }
  if (current?.status === 'False') next.lastTransitionTime = current.lastTransitionTime;
  removeCondition(p.status, PIN_CONDITION_TYPE);
  setCondition(p.status, next);
  if (current?.reason !== reason) p.record(pinEvent(p.original, reason, message));
}

function pinEvent(d: Deployment, reason: PinReason, message: string): EventSpec {
  const type = reason === PIN_REASON.Unknown ? EventType.Warning : EventType.Normal;
  return deploymentEvent(d, type, reason, message);
}
