// The core of updateStatefulSet: each replica slot (processReplica), then the condemned pods' claims and the
// condemned pods themselves (processCondemned). OrderedReady stops at the first slot that must wait (monotonic);
// Parallel goes through every slot. A slot without a pod holds the pod to create (newVersionedStatefulSetPod).
import type { PersistentVolumeClaim, Pod, StatefulSet } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { refOf } from '../../kube/actions.js';
import { claimCreateEvents, conflictingControllerEvent, podEvents } from './events.js';
import { identityMatches, storageMatches, withIdentity } from './identity.js';
import {
  claimOwnerRefs,
  hasStaleOwnerRef,
  hasUnexpectedController,
  isClaimOwnerUpToDate,
  podClaims,
  podOwnerOf,
  retentionPolicy,
} from './storage.js';
import { isAvailable, isRunningAndReady, isTerminating } from './status.js';
import { CLAIM_DELETING_RETRY_MS, NAME_TAKEN_RETRY_MS, Reason, Retention } from './types.js';

export type Ctx = {
  readonly set: StatefulSet;
  readonly claims: ReadonlyMap<string, PersistentVolumeClaim>;
  /** Names of observed pods the set does not claim (released, or orphans it does not select). */
  readonly takenNames: ReadonlySet<string>;
  readonly monotonic: boolean;
  readonly minReadySeconds: number;
  readonly now: Date;
};

/** What processing one slot asks: writes, whether to stop (wait, or upstream's error), and a retry delay. */
export type Step = {
  readonly actions: Action[];
  readonly exit: boolean;
  readonly failed?: boolean;
  readonly retryMs?: number;
};

const done = (actions: Action[] = []): Step => ({ actions, exit: false });
const wait = (actions: Action[] = []): Step => ({ actions, exit: true });
const isTerminalPhase = (p: Pod) => p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded';

export function deletePod(set: StatefulSet, pod: Pod): Action {
  return {
    type: 'delete',
    target: refOf({ ...pod, kind: 'Pod' }),
    uid: pod.metadata?.uid ?? '',
    reason: Reason.SuccessfulDelete,
    events: podEvents(set, 'delete', pod.metadata?.name ?? ''),
  };
}

/** createPersistentVolumeClaims for the pod: creates for the missing claims; a claim being deleted fails. */
function missingClaims(c: Ctx, pod: Pod): { actions: Action[]; deleting: boolean } {
  const actions: Action[] = [];
  let deleting = false;
  for (const claim of podClaims(c.set, pod)) {
    const name = claim.metadata?.name ?? '';
    const found = c.claims.get(name);
    if (found?.metadata?.deletionTimestamp) deleting = true;
    if (found) continue;
    actions.push({
      type: 'create',
      object: claim,
      reason: Reason.SuccessfulCreate,
      events: claimCreateEvents(c.set, name, pod.metadata?.name ?? ''),
    });
  }
  return { actions, deleting };
}

/**
 * UpdatePodClaimForRetentionPolicy: ownerReference updates of the pod's claims that disagree with the policy. A
 * refused update records the pod's FailedUpdate where upstream's callers do (creating the pod, a Pending pod's
 * claims, UpdateStatefulPod), not for a condemned pod (`recordFailure` false: fixPodClaim records nothing).
 */
export function claimRetentionUpdates(c: Ctx, pod: Pod, recordFailure = true): Action[] {
  const onFailure = podEvents(c.set, 'update', pod.metadata?.name ?? '').onFailure;
  const actions: Action[] = [];
  for (const want of podClaims(c.set, pod)) {
    const claim = c.claims.get(want.metadata?.name ?? '');
    if (!claim || isClaimOwnerUpToDate(claim, c.set, pod)) continue;
    if (hasUnexpectedController(claim, c.set, pod)) {
      actions.push({ type: 'event', event: conflictingControllerEvent(c.set, claim.metadata?.name ?? '') });
    }
    const ownerReferences = claimOwnerRefs(claim, c.set, pod);
    const object = { ...claim, apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
    actions.push({
      type: 'update',
      object: { ...object, metadata: { ...claim.metadata, ownerReferences } },
      reason: Reason.UpdateClaim,
      ...(recordFailure && onFailure && { events: { onFailure } }),
    });
  }
  return actions;
}

/** PodClaimIsStale: under whenScaled Delete, an existing claim still names an earlier pod of this name. */
function hasStaleClaim(c: Ctx, pod: Pod): boolean {
  if (retentionPolicy(c.set).whenScaled === Retention.Retain) return false;
  return podClaims(c.set, pod).some((want) => {
    const claim = c.claims.get(want.metadata?.name ?? '');
    return claim !== undefined && hasStaleOwnerRef(claim, podOwnerOf(pod));
  });
}

/** processReplica for one slot; `planned` is a pod not created yet (the slot's pod to create). */
export function processReplica(c: Ctx, pod: Pod, planned: boolean): Step {
  if (!planned && isTerminalPhase(pod)) {
    // Failed or Succeeded: deleted; the next pass creates it again once it is gone.
    return wait(isTerminating(pod) ? [] : [deletePod(c.set, pod)]);
  }
  if (planned) {
    if (hasStaleClaim(c, pod)) return { actions: [], exit: true, retryMs: CLAIM_DELETING_RETRY_MS };
    const claims = missingClaims(c, pod);
    if (claims.deleting) return { actions: [], exit: true, failed: true, retryMs: CLAIM_DELETING_RETRY_MS };
    // The claims first: the pod is created by a pass that finds them all.
    if (claims.actions.length > 0) return { actions: claims.actions, exit: c.monotonic, failed: false, retryMs: 0 };
    // A pod the set does not own holds the name: upstream's create fails AlreadyExists (no event) and the sync
    // ends there, its status still written; this pass skips the create it knows would fail, and looks again.
    if (c.takenNames.has(pod.metadata?.name ?? '')) {
      return { actions: [], exit: true, failed: true, retryMs: NAME_TAKEN_RETRY_MS };
    }
    const create: Action = {
      type: 'create',
      object: pod,
      reason: Reason.SuccessfulCreate,
      events: podEvents(c.set, 'create', pod.metadata?.name ?? ''),
    };
    return c.monotonic ? wait([create]) : done([create]);
  }
  const actions: Action[] = [];
  if (pod.status?.phase === 'Pending') {
    const claims = missingClaims(c, pod);
    if (claims.deleting) return { actions: [], exit: true, failed: true, retryMs: CLAIM_DELETING_RETRY_MS };
    actions.push(...claims.actions, ...claimRetentionUpdates(c, pod));
  }
  if (c.monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !isAvailable(pod, c.minReadySeconds, c.now))) {
    return wait(actions);
  }
  const retention = actions.length > 0 ? [] : claimRetentionUpdates(c, pod);
  if (identityMatches(c.set, pod) && storageMatches(c.set, pod) && retention.length === 0) return done(actions);
  const update: Action = {
    type: 'update',
    object: withIdentity(c.set, pod),
    reason: Reason.SuccessfulUpdate,
    events: podEvents(c.set, 'update', pod.metadata?.name ?? ''),
  };
  return done([...actions, ...retention, update]);
}

/** processCondemned: pods beyond the range go from the highest ordinal; OrderedReady waits on unhealthy ones. */
export function processCondemned(c: Ctx, pod: Pod, firstUnhealthy: Pod | undefined): Step {
  if (isTerminating(pod)) return c.monotonic ? wait() : done();
  const healthy = isRunningAndReady(pod) && isAvailable(pod, c.minReadySeconds, c.now);
  if (c.monotonic && !healthy && pod !== firstUnhealthy) return wait();
  return wait([deletePod(c.set, pod)]);
}
