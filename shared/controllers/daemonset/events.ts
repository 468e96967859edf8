// The Kubernetes Events daemonset-controller records (kube-controller-manager 1.37), on the DaemonSet:
//   SuccessfulCreate    Normal   "Created pod: <name>"          RealPodControl, after a pod create succeeded
//   FailedCreate        Warning  "Error creating: <error>"      a pod create refused (not: namespace terminating)
//   SuccessfulDelete    Normal   "Deleted pod: <name>"          after a pod delete succeeded (not: already gone)
//   FailedDelete        Warning  "Error deleting: <error>"      a pod delete refused (not: 404)
//   FailedDaemonPod     Warning  "Found failed daemon pod <ns>/<pod> on node <node>, will try to kill it"
//   SucceededDaemonPod  Normal   "Found succeeded daemon pod <ns>/<pod> on node <node>, will try to delete it"
//   SelectingAll        Warning  "This daemon set is selecting all pods. A non-empty selector is required."
// Revision writes, adoption and release record nothing.
import type { DaemonSet } from '../../kube/api/objects.js';
import type { WriteEvents } from '../../kube/actions.js';
import { EventType, type EventSpec, regardingObject, type InvolvedObject } from '../../kube/events/types.js';
import { DS_API_VERSION, DS_EVENT_SOURCE, DS_KIND, Reason } from './types.js';

export function regardingDaemonSet(ds: DaemonSet): InvolvedObject {
  return regardingObject(DS_KIND, DS_API_VERSION, ds.metadata);
}

export function dsEvent(ds: DaemonSet, type: EventType, reason: string, message: string): EventSpec {
  return { regarding: regardingDaemonSet(ds), source: DS_EVENT_SOURCE, type, reason, message };
}

export function podCreateEvents(ds: DaemonSet): WriteEvents {
  return {
    onSuccess: [{ ...dsEvent(ds, EventType.Normal, Reason.SuccessfulCreate, 'Created pod: '), detail: 'createdName' }],
    onFailure: { ...dsEvent(ds, EventType.Warning, Reason.FailedCreate, 'Error creating: '), detail: 'error' },
  };
}

export function podDeleteEvents(ds: DaemonSet, podName: string): WriteEvents {
  return {
    onSuccess: [dsEvent(ds, EventType.Normal, Reason.SuccessfulDelete, `Deleted pod: ${podName}`)],
    onFailure: { ...dsEvent(ds, EventType.Warning, Reason.FailedDelete, 'Error deleting: '), detail: 'error' },
  };
}

export function failedDaemonPodEvent(ds: DaemonSet, pod: string, node: string): EventSpec {
  const namespace = ds.metadata?.namespace ?? '';
  const message = `Found failed daemon pod ${namespace}/${pod} on node ${node}, will try to kill it`;
  return dsEvent(ds, EventType.Warning, Reason.FailedDaemonPod, message);
}

export function succeededDaemonPodEvent(ds: DaemonSet, pod: string, node: string): EventSpec {
  const namespace = ds.metadata?.namespace ?? '';
  const message = `Found succeeded daemon pod ${namespace}/${pod} on node ${node}, will try to delete it`;
  return dsEvent(ds, EventType.Normal, Reason.SucceededDaemonPod, message);
}

export function selectingAllEvent(ds: DaemonSet): EventSpec {
  const message = 'This daemon set is selecting all pods. A non-empty selector is required.';
  return dsEvent(ds, EventType.Warning, Reason.SelectingAll, message);
}
