// ControllerRefManager (pkg/controller/controller_ref_manager.go) for every controller that owns objects: ClaimObject
// over a list (ClaimPods, ClaimReplicaSets, ClaimControllerRevisions), the RecheckDeletionTimestamp test that guards
// an adoption, and the adoption and release patches. One object at a time:
//   - controlled by another owner: ignored;
//   - controlled by this owner and matching: claimed (even while the owner is being deleted: that takes no write);
//   - controlled by this owner, no longer matching: released, unless the owner is being deleted;
//   - an orphan: adopted (and claimed) when it matches, the owner is not being deleted, the object is not being
//     deleted and it lives in the owner's namespace; else ignored.
// Adoption first rechecks the owner by a fresh read (canAdopt): planners are pure, so observe makes that read
// when there is an orphan to adopt and the planner calls canAdopt on it.
import { adoptAction, releaseAction, type Action } from '../../kube/actions.js';
import { controllerRefOf, newControllerRef, type Owner } from '../../kube/meta/controller-ref.js';
import type { Selector } from '../../kube/meta/label-selector.js';
import type { ApiObject } from '../../kube/meta/object.js';

export type Claim<T> = {
  /** What the owner controls after the claim: the matching objects it controls and the orphans it adopts. */
  readonly claimed: readonly T[];
  readonly adopt: readonly T[];
  readonly release: readonly T[];
};

export type ClaimOptions<T> = {
  /** ClaimPods' filters: an object matches when the selector and this both say so (StatefulSet: isMemberOf). */
  readonly filter?: (o: T) => boolean;
  /**
   * Classify as if the owner were not being deleted. For a planner that deals with its owner's deletion itself
   * (the StatefulSet planner writes no adoption or release then, and counts the orphans it would adopt as its own).
   */
  readonly ignoreOwnerDeletion?: boolean;
};

export function claimObjects<T extends ApiObject>(
  owner: ApiObject,
  objects: readonly T[],
  selects: Selector,
  options: ClaimOptions<T> = {},
): Claim<T> {
  const uid = owner.metadata?.uid ?? '';
  const ownerDeleting = !options.ignoreOwnerDeletion && isBeingDeleted(owner);
  const filter = options.filter;
  const claimed: T[] = [];
  const adopt: T[] = [];
  const release: T[] = [];
  for (const o of objects) {
    const ref = controllerRefOf(o);
    const matches = selects.matches(o.metadata?.labels) && (filter === undefined || filter(o));
    if (ref) {
      if (ref.uid !== uid) continue; // another owner's
      if (matches) claimed.push(o);
      else if (!ownerDeleting) release.push(o);
      continue;
    }
    if (ownerDeleting || !matches || isBeingDeleted(o)) continue;
    if (o.metadata?.namespace !== owner.metadata?.namespace) continue;
    adopt.push(o);
    claimed.push(o);
  }
  return { claimed, adopt, release };
}

/**
 * RecheckDeletionTimestamp, with the uid check of the controllers' canAdopt functions: the fresh read (null: gone;
 * undefined: never made) is the same owner and it is not being deleted.
 */
export function canAdopt(owner: ApiObject, fresh: ApiObject | null | undefined): boolean {
  return fresh !== undefined && fresh !== null && fresh.metadata?.uid === owner.metadata?.uid && !isBeingDeleted(fresh);
}

export type ClaimPatchExtras = {
  /** Merged into the adoption patch's metadata (the Job controller adds its tracking finalizer). */
  readonly adopt?: Readonly<Record<string, unknown>>;
  /** Merged into the release patch's metadata (the Job controller removes its tracking finalizer). */
  readonly release?: Readonly<Record<string, unknown>>;
};

/**
 * The adoptions and releases as ControllerRefManager sends them: strategic merge patches of the object's
 * ownerReferences with its uid as precondition and no resourceVersion, reasons `Adopt<Kind>` and `Release<Kind>`.
 * Adoptions first, each list in the order observed.
 */
export function claimActions<T extends ApiObject>(
  owner: Owner,
  kind: string,
  claim: Claim<T>,
  extras: ClaimPatchExtras = {},
): Action[] {
  const ref = newControllerRef(owner);
  const target = (o: T) => ({ kind, namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
  return [
    ...claim.adopt.map((o) => adoptAction(target(o), o.metadata?.uid ?? '', ref, `Adopt${kind}`, extras.adopt)),
    ...claim.release.map((o) =>
      releaseAction(target(o), o.metadata?.uid ?? '', owner.uid, `Release${kind}`, extras.release),
    ),
  ];
}

function isBeingDeleted(o: ApiObject): boolean {
  return !!o.metadata?.deletionTimestamp;
}
