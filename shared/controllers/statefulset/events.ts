// The Kubernetes Events statefulset-controller records (stateful_pod_control.go recordPodEvent/recordClaimEvent:
// the verb through cases.Title, so "Create Pod …" with a capital),
// on the StatefulSet:
//   SuccessfulCreate  Normal   "Create Pod <pod> in StatefulSet <set> successful"
//   FailedCreate      Warning  "Create Pod <pod> in StatefulSet <set> failed error: <error>"  (not: AlreadyExists)
//   SuccessfulCreate  Normal   "Create Claim <claim> Pod <pod> in StatefulSet <set> success"
//   FailedCreate      Warning  "Create Claim <claim> for Pod <pod> in StatefulSet <set> failed error: <error>"
//   SuccessfulUpdate  Normal   "Update Pod <pod> in StatefulSet <set> successful"
//   FailedUpdate      Warning  "Update Pod <pod> in StatefulSet <set> failed error: <error>"
//   SuccessfulDelete  Normal   "Delete Pod <pod> in StatefulSet <set> successful"
//   FailedDelete      Warning  "Delete Pod <pod> in StatefulSet <set> failed error: <error>"
//   ConflictingController Warning "PersistentVolumeClaim <claim> has a conflicting OwnerReference that acts as a
//                      manging controller, the retention policy is ignored for this claim" (upstream's spelling)
// Revision writes, claim ownerReference updates, adoption and release record nothing.
import type { StatefulSet } from '../../kube/api/objects.js';
import type { WriteEvents } from '../../kube/actions.js';
import { EventType, regardingObject, type EventSpec } from '../../kube/events/types.js';
import { Reason, STS_API_VERSION, STS_EVENT_SOURCE, STS_KIND } from './types.js';

export function stsEvent(set: StatefulSet, type: EventType, reason: string, message: string): EventSpec {
  return {
    regarding: regardingObject(STS_KIND, STS_API_VERSION, set.metadata),
    source: STS_EVENT_SOURCE,
    type,
    reason,
    message,
  };
}

type Verb = 'create' | 'update' | 'delete';
const title = (v: Verb) => `${v[0]!.toUpperCase()}${v.slice(1)}`;

/** recordPodEvent for `verb`: cases.Title(English) capitalizes it in the reason and the message alike. */
export function podEvents(set: StatefulSet, verb: Verb, pod: string): WriteEvents {
  const name = set.metadata?.name ?? '';
  const ok = stsEvent(
    set,
    EventType.Normal,
    `Successful${title(verb)}`,
    `${title(verb)} Pod ${pod} in StatefulSet ${name} successful`,
  );
  const failed = stsEvent(
    set,
    EventType.Warning,
    `Failed${title(verb)}`,
    `${title(verb)} Pod ${pod} in StatefulSet ${name} failed error: `,
  );
  return {
    onSuccess: [ok],
    onFailure: { ...failed, detail: 'error', ...(verb === 'create' && { quietOn: ['AlreadyExists'] as const }) },
  };
}

export function claimCreateEvents(set: StatefulSet, claim: string, pod: string): WriteEvents {
  const name = set.metadata?.name ?? '';
  const ok = `Create Claim ${claim} Pod ${pod} in StatefulSet ${name} success`;
  const failed = `Create Claim ${claim} for Pod ${pod} in StatefulSet ${name} failed error: `;
  return {
    onSuccess: [stsEvent(set, EventType.Normal, Reason.SuccessfulCreate, ok)],
    onFailure: {
      ...stsEvent(set, EventType.Warning, Reason.FailedCreate, failed),
      detail: 'error',
      quietOn: ['AlreadyExists'],
    },
  };
}

export function conflictingControllerEvent(set: StatefulSet, claim: string): EventSpec {
  const message = `PersistentVolumeClaim ${claim} has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim`;
  return stsEvent(set, EventType.Warning, Reason.ConflictingController, message);
}
