// The events the lws v0.9.0 reconcilers record, with upstream's texts. Both record through events.k8s.io's
// EventRecorder (Eventf(regarding, related, type, reason, action, note)), always regarding the LeaderWorkerSet;
// `related` names the revision or pod an event is also about.
import { regardingObject, type EventSpec } from '../../kube/events/types.js';
import { EventAction, LWS_API_VERSION, LWS_EVENT_SOURCE, LWS_KIND, Reason, type LeaderWorkerSet } from './types.js';

export type LwsEventType = 'Normal' | 'Warning';

export type RelatedObject = { readonly kind: string; readonly name: string };

export type LwsEvent = {
  readonly type: LwsEventType;
  readonly reason: string;
  /** events.k8s.io action: Create, Update or Delete. */
  readonly action: string;
  readonly note: string;
  readonly related?: RelatedObject;
};

const revisionRef = (name: string): RelatedObject => ({ kind: 'ControllerRevision', name });
const podRef = (name: string): RelatedObject => ({ kind: 'Pod', name });

/** getOrCreateRevisionIfNonExist: the first revision of a LeaderWorkerSet, or a missing one for an existing set. */
export function creatingRevisionEvent(revisionName: string, key: string, missing: boolean): LwsEvent {
  return {
    type: 'Normal',
    reason: Reason.CreatingRevision,
    action: EventAction.Create,
    note: missing
      ? `Creating missing revision with key ${key} for existing LeaderWorkerSet`
      : `Creating revision with key ${key} for a newly created LeaderWorkerSet`,
    related: revisionRef(revisionName),
  };
}

/** Reconcile: the revision of an updated template. */
export function updatedRevisionEvent(revisionName: string, key: string): LwsEvent {
  return {
    type: 'Normal',
    reason: Reason.CreatingRevision,
    action: EventAction.Create,
    note: `Creating revision with key ${key} for updated LWS`,
    related: revisionRef(revisionName),
  };
}

/** Reconcile: the leader StatefulSet was created (server-side apply of a set that did not exist). */
export function leaderStatefulSetCreatedEvent(lwsName: string, revisionName: string): LwsEvent {
  return {
    type: 'Normal',
    reason: Reason.GroupsProgressing,
    action: EventAction.Create,
    note: `Created leader statefulset ${lwsName}`,
    related: revisionRef(revisionName),
  };
}

/** Reconcile: applying the leader StatefulSet failed (`err` is the apiserver's error text). */
export function leaderStatefulSetFailedEvent(lwsName: string, existed: boolean, err: string): LwsEvent {
  return existed
    ? {
        type: 'Warning',
        reason: Reason.FailedUpdate,
        action: EventAction.Update,
        note: `Failed to update leader statefulset ${lwsName}: ${err}`,
      }
    : {
        type: 'Warning',
        reason: Reason.FailedCreate,
        action: EventAction.Create,
        note: `Failed to create leader statefulset ${lwsName}: ${err}`,
      };
}

/** Reconcile: the partition moved down without a template change (one replica, or a range, now updating). */
export function groupsUpdatingEvent(oldPartition: number, partition: number, revisionName: string): LwsEvent {
  return {
    type: 'Normal',
    reason: Reason.GroupsUpdating,
    action: EventAction.Update,
    note:
      oldPartition - 1 === partition
        ? `Updating replica ${partition}`
        : `Updating replicas ${partition} to ${oldPartition - 1} (inclusive)`,
    related: revisionRef(revisionName),
  };
}

/** rollingUpdateParameters' wantReplicas: surge replicas given back (one, or a range). */
export function surgeReclaimedEvent(lwsName: string, finalReplicas: number, stsReplicas: number): LwsEvent {
  return {
    type: 'Normal',
    reason: Reason.GroupsProgressing,
    action: EventAction.Delete,
    note:
      finalReplicas === stsReplicas - 1
        ? `deleting surge replica ${lwsName}-${finalReplicas}`
        : `deleting surge replicas from ${lwsName}-${finalReplicas} to ${lwsName}-${stsReplicas - 1}`,
  };
}

/** Reconcile: creating a headless Service failed. */
export function headlessServiceFailedEvent(err: string): LwsEvent {
  return {
    type: 'Warning',
    reason: Reason.FailedCreate,
    action: EventAction.Create,
    note: `Failed to create headless service for error: ${err}`,
  };
}

/** updateConditions: the conditions changed; the first condition's reason and message, with the ready count. */
export function conditionEvent(reason: string, message: string, ready: number, replicas: number): LwsEvent {
  return {
    type: 'Normal',
    reason,
    action: EventAction.Update,
    note: `${message}, with ${ready} groups ready of total ${replicas} groups`,
  };
}

/** Pod reconciler: the worker StatefulSet of a leader pod was created. */
export function workerStatefulSetCreatedEvent(leaderPodName: string): LwsEvent {
  return {
    type: 'Normal',
    reason: Reason.GroupsProgressing,
    action: EventAction.Create,
    note: `Created worker statefulset for leader pod ${leaderPodName}`,
    related: podRef(leaderPodName),
  };
}

/** Pod reconciler: creating the worker StatefulSet failed (not recorded for AlreadyExists). */
export function workerStatefulSetFailedEvent(leaderPodName: string, err: string): LwsEvent {
  return {
    type: 'Warning',
    reason: Reason.FailedCreate,
    action: EventAction.Create,
    note: `Failed to create worker statefulset for leader pod ${leaderPodName}: ${err}`,
    related: podRef(leaderPodName),
  };
}

/** Pod reconciler: a leader pod that carries the worker-only leader-name annotation (StatefulSet start ordinals missing). */
export function leaderNameAnnotationEvent(namespace: string, podName: string): LwsEvent {
  return {
    type: 'Warning',
    reason: Reason.FailedCreate,
    action: EventAction.Create,
    note:
      `leader pod ${namespace}/${podName} contains mistake annotation 'leaderworkerset.sigs.k8s.io/leader-name': ` +
      'requires Kubernetes ≥v1.27 or v1.26 with StatefulSetStartOrdinal feature',
    related: podRef(podName),
  };
}

/** handleRestartPolicy: the leader was deleted to recreate its group. */
export function recreateGroupEvent(podName: string, leaderName: string, groupIndex: string): LwsEvent {
  return {
    type: 'Normal',
    reason: Reason.RecreateGroup,
    action: EventAction.Delete,
    note: `Worker pod ${podName} failed, deleted leader pod ${leaderName} to recreate group ${groupIndex}`,
    related: podRef(leaderName),
  };
}

/**
 * An event as fleetq's recorder writes it: a core/v1 Event regarding the LeaderWorkerSet, from the recorder's
 * component. The events.k8s.io fields core/v1 has no place for (action, related) are left out.
 */
export function lwsEventSpec(lws: LeaderWorkerSet, event: LwsEvent): EventSpec {
  return {
    regarding: regardingObject(LWS_KIND, LWS_API_VERSION, lws.metadata),
    source: LWS_EVENT_SOURCE,
    type: event.type,
    reason: event.reason,
    message: event.note,
    recorder: 'events.k8s.io',
  };
}

/** The event of a refused write: its text up to the error, which the writer appends (every such note ends with it). */
export function lwsFailureSpec(
  lws: LeaderWorkerSet,
  onFailure: (err: string) => LwsEvent,
): EventSpec & { readonly detail: 'error' } {
  return { ...lwsEventSpec(lws, onFailure('')), detail: 'error' };
}
