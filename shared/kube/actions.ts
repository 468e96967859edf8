// What a planner asks the writer to do. Every write names its precondition: updates carry
// metadata.resourceVersion, deletes the uid of the object the planner saw, patches metadata.uid in the patch.
//
// An `apply` is server-side apply (kube/apply-request.ts): it has no precondition of its own, as upstream's applies
// have none; the apiserver merges it with what other field managers own and it creates the object when absent.
//
// Events: a write may carry the Kubernetes Events upstream records for it (`events`): `onSuccess`, recorded in
// order once the write succeeded (SuccessfulCreate, ScalingReplicaSet, …), and `onFailure`, recorded when the
// apiserver refused it (FailedCreate, FailedDelete, ReplicaSetCreateError). An `event` action records an event
// that goes with no write of its own (SelectingAll). The writer records them after its writes, never before.
import type { EventSpec } from './events/types.js';
import type { ApiObject } from './meta/object.js';

/** metav1.DeletionPropagation. */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export type ObjectRef = { readonly kind: string; readonly namespace: string; readonly name: string };

/** Refusals of a write that upstream records no failure event for (besides NamespaceTerminating, never). */
export type QuietFailure = 'AlreadyExists';

/** NotFound: the object is gone. Invalid: the uid precondition failed (recreated) or the reference is gone. */
export type PatchRefusal = 'NotFound' | 'Invalid';

export type WriteEvents = {
  readonly onSuccess?: readonly EventSpec[];
  readonly onFailure?: EventSpec & { readonly quietOn?: readonly QuietFailure[] };
};

export type Action =
  | {
      readonly type: 'create';
      readonly object: ApiObject;
      readonly reason: string;
      readonly events?: WriteEvents;
    }
  | {
      readonly type: 'update';
      readonly object: ApiObject;
      readonly reason: string;
      readonly events?: WriteEvents;
    }
  | {
      readonly type: 'delete';
      readonly target: ObjectRef;
      readonly uid: string;
      readonly reason: string;
      /**
       * DeleteOptions.propagationPolicy; default Background (what the workload controllers' pod and ReplicaSet
       * deletes leave to the garbage collector). Foreground: the object stays, marked for deletion, until the
       * garbage collector has deleted its dependents (the TTL-after-finished controller's Job delete).
       */
      readonly propagationPolicy?: PropagationPolicy;
      readonly events?: WriteEvents;
    }
  | {
      /**
       * A strategic merge patch (what upstream's ControllerRefManager sends to adopt and release): it carries
       * no resourceVersion, so it does not collide with the kubelet's status writes; `metadata.uid` in the
       * patch is its precondition (the apiserver refuses it for an object recreated under another uid).
       */
      readonly type: 'patch';
      readonly target: ObjectRef;
      readonly patch: Readonly<Record<string, unknown>>;
      readonly reason: string;
      /** Refusals that mean there is nothing left to do (upstream ignores them): gone, or recreated. */
      readonly ignore?: readonly PatchRefusal[];
      readonly events?: WriteEvents;
    }
  | {
      /**
       * Server-side apply of `configuration` (a whole apply configuration: apiVersion, kind, metadata.name and
       * namespace of `target`) under `fieldManager`: the fields it sets are set, the fields this manager applied
       * before and no longer sets are removed, fields other managers own are kept. `force` takes over a field
       * another manager owns where the apiserver would otherwise refuse the apply (409 Conflict).
       */
      readonly type: 'apply';
      readonly target: ObjectRef;
      readonly configuration: ApiObject;
      readonly fieldManager: string;
      readonly force: boolean;
      readonly reason: string;
      readonly events?: WriteEvents;
    }
  | {
      readonly type: 'updateStatus';
      readonly object: ApiObject;
      /** Recorded once the status write succeeded (the Job controller's Completed, Suspended, ...). */
      readonly events?: Pick<WriteEvents, 'onSuccess'>;
    }
  | { readonly type: 'event'; readonly event: EventSpec };

export type ActionType = Action['type'];

/** What adoption and release change besides ownerReferences (the Job's tracking finalizer). */
type ClaimExtra = Readonly<Record<string, unknown>>;

/**
 * ControllerRefManager's adoption: a strategic merge patch adding the controller reference, with the object's uid
 * as precondition; an object gone meanwhile is nothing left to do.
 */
export function adoptAction(
  target: ObjectRef,
  objectUid: string,
  ref: Readonly<Record<string, unknown>>,
  reason: string,
  extra: ClaimExtra = {},
): Action {
  return {
    type: 'patch',
    target,
    patch: { metadata: { ownerReferences: [ref], ...extra, uid: objectUid } },
    reason,
    ignore: ['NotFound'],
  };
}

/**
 * ControllerRefManager's release: a strategic merge patch deleting the owner's reference, with the object's uid
 * as precondition; an object gone, recreated or no longer naming the owner is nothing left to do.
 */
export function releaseAction(
  target: ObjectRef,
  objectUid: string,
  ownerUid: string,
  reason: string,
  extra: ClaimExtra = {},
): Action {
  return {
    type: 'patch',
    target,
    patch: { metadata: { ownerReferences: [{ $patch: 'delete', uid: ownerUid }], ...extra, uid: objectUid } },
    reason,
    ignore: ['NotFound', 'Invalid'],
  };
}

/** A server-side apply of `configuration`, its target named by the configuration itself. */
export function applyAction(
  configuration: ApiObject,
  o: {
    readonly fieldManager: string;
    readonly force: boolean;
    readonly reason: string;
    readonly events?: WriteEvents;
  },
): Action {
  return {
    type: 'apply',
    target: refOf(configuration),
    configuration,
    fieldManager: o.fieldManager,
    force: o.force,
    reason: o.reason,
    ...(o.events !== undefined && { events: o.events }),
  };
}

export function countByType(actions: readonly Action[]): Partial<Record<ActionType, number>> {
  const counts: Partial<Record<ActionType, number>> = {};
  for (const a of actions) counts[a.type] = (counts[a.type] ?? 0) + 1;
  return counts;
}

/** The events a plan records if every write succeeds (for tests and logs). */
export function plannedEvents(actions: readonly Action[]): EventSpec[] {
  return actions.flatMap((a) => (a.type === 'event' ? [a.event] : (a.events?.onSuccess ?? [])));
}

export function refOf(o: ApiObject): ObjectRef {
  return { kind: o.kind ?? '', namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' };
}
