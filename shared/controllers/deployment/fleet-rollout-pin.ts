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
// admitted '' holds the newest ReplicaSet (highest revision); with none, nothing is created. The condition is
// removed when the pin and the template agree, or once the pin is gone. Each new reason records one event on the
// Deployment (Normal; Warning for an unknown revision).
import { EventType, type EventSpec } from '../../kube/events/types.js';
import { PIN_CONDITION_TYPE, PIN_REASON, pinOf } from '../../rollouts/pin.js';
import { computeHash } from '../common/pod-template-hash.js';
import { jsonCopy } from '../common/json-copy.js';
import { getCondition, newCondition, removeCondition, setCondition } from './conditions.js';
import { deploymentEvent } from './events.js';
import type { Pass } from './pass.js';
import { actualReplicaCount, byCreationTimestamp, equalIgnoreHash, findNewReplicaSet } from './replica-sets.js';
import { byRevision } from './revision.js';
import { calculateStatus } from './status.js';
import { POD_TEMPLATE_HASH_LABEL, type Deployment, type DeploymentStatus, type ReplicaSet } from './types.js';

type PinReason = (typeof PIN_REASON)[keyof typeof PIN_REASON];

export type PinDecision =
  /** No pin, or the pin and the template agree: upstream's controller. */
  | { readonly kind: 'upstream'; readonly pinned: boolean }
  /** Roll toward `target` (null: admitted '' and no ReplicaSet at all: create nothing). */
  | {
      readonly kind: 'hold';
      readonly target: ReplicaSet | null;
      readonly templateRS: ReplicaSet | null;
      readonly reason: PinReason;
      readonly message: string;
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
  let target: ReplicaSet | null;
  if (pin.admitted === '') target = [...owned].sort(byRevision(byCreationTimestamp)).at(-1) ?? null;
  else if (pin.admitted === templateRevision) return { kind: 'upstream', pinned: true };
  else {
    target = [...owned].sort(byCreationTimestamp).find((rs) => hashOf(rs) === pin.admitted) ?? null;
    if (target === null) {
      const message = `Deployment "${name}" is not rolled: FleetRollout ${pin.rollout} admits revision ${pin.admitted}, which no ReplicaSet of it carries; its template asks for revision ${templateRevision}`;
      return { kind: 'unknown', templateRS, message };
    }
  }
  if (target !== null && equalIgnoreHash(target.spec.template, d.spec.template))
    return { kind: 'upstream', pinned: true };
  const held = target === null ? 'none' : hashOf(target);
  if (templateRS !== null) {
    const message = `FleetRollout ${pin.rollout} rolled back Deployment "${name}" to revision ${held}; its template asks for revision ${templateRevision}`;
    return { kind: 'hold', target, templateRS, reason: PIN_REASON.RolledBack, message };
  }
  const message = `Deployment "${name}" is held at revision ${held} by FleetRollout ${pin.rollout}; its template asks for revision ${templateRevision}`;
  return { kind: 'hold', target, templateRS, reason: PIN_REASON.Waiting, message };
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
