// The Kubernetes Events replicaset-controller records (kube-controller-manager 1.37), all through
// controller.RealPodControl, on the ReplicaSet:
//   SuccessfulCreate  Normal   "Created pod: <name>"        after a pod create succeeded
//   FailedCreate      Warning  "Error creating: <error>"    a pod create refused (not: namespace terminating)
//   SuccessfulDelete  Normal   "Deleted pod: <name>"        after a pod delete succeeded (not: already gone)
//   FailedDelete      Warning  "Error deleting: <error>"    a pod delete refused (not: 404)
// Adoption and release (pod patches) record nothing. The writer appends the created name and the error.
import type { ReplicaSet } from '../../kube/api/objects.js';
import type { WriteEvents } from '../../kube/actions.js';
import { EventType, type EventSpec, regardingObject, type InvolvedObject } from '../../kube/events/types.js';
import { RS_API_VERSION, RS_KIND, Reason } from './types.js';

export const RS_EVENT_SOURCE = 'replicaset-controller';

export function regardingReplicaSet(rs: ReplicaSet): InvolvedObject {
  return regardingObject(RS_KIND, RS_API_VERSION, rs.metadata);
}

function event(rs: ReplicaSet, type: EventType, reason: string, message: string): EventSpec {
  return { regarding: regardingReplicaSet(rs), source: RS_EVENT_SOURCE, type, reason, message };
}

export function podCreateEvents(rs: ReplicaSet): WriteEvents {
  return {
    onSuccess: [{ ...event(rs, EventType.Normal, Reason.SuccessfulCreate, 'Created pod: '), detail: 'createdName' }],
    onFailure: { ...event(rs, EventType.Warning, Reason.FailedCreate, 'Error creating: '), detail: 'error' },
  };
}

export function podDeleteEvents(rs: ReplicaSet, podName: string): WriteEvents {
  return {
    onSuccess: [event(rs, EventType.Normal, Reason.SuccessfulDelete, `Deleted pod: ${podName}`)],
    onFailure: { ...event(rs, EventType.Warning, Reason.FailedDelete, 'Error deleting: '), detail: 'error' },
  };
}
