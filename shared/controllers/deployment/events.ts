// The Kubernetes Events deployment-controller records (kube-controller-manager 1.37), all on the Deployment:
//   ScalingReplicaSet                    Normal   "Scaled up replica set <rs> from 0 to <n>"   new ReplicaSet created with n > 0
//   ScalingReplicaSet                    Normal   "Scaled up|down replica set <rs> from <a> to <b>"   after a resize
//   ReplicaSetCreateError                Warning  "Failed to create new replica set \"<rs>\": <error>"  (not: AlreadyExists,
//                                                 namespace terminating)
//   SelectingAll                         Warning  "This deployment is selecting all pods. A non-empty selector is required."
//   DeploymentRollback                   Normal   "Rolled back deployment \"<d>\" to revision <n>"
//   DeploymentRollbackRevisionNotFound   Warning  "Unable to find last revision." | "Unable to find the revision to rollback to."
//   DeploymentRollbackTemplateUnchanged  Warning  "The rollback revision contains the same template as current deployment \"<d>\""
// Cleanup deletes, adoption and release of ReplicaSets record nothing.
import type { WriteEvents } from '../../kube/actions.js';
import { EventType, type EventSpec, regardingObject, type InvolvedObject } from '../../kube/events/types.js';
import { Reason, type Deployment } from './types.js';

export const DEPLOYMENT_EVENT_SOURCE = 'deployment-controller';

export const EventReason = {
  ScalingReplicaSet: 'ScalingReplicaSet',
  SelectingAll: 'SelectingAll',
  RollbackDone: 'DeploymentRollback',
  RollbackRevisionNotFound: 'DeploymentRollbackRevisionNotFound',
  RollbackTemplateUnchanged: 'DeploymentRollbackTemplateUnchanged',
} as const;

export function regardingDeployment(d: Deployment): InvolvedObject {
  return regardingObject('Deployment', 'apps/v1', d.metadata);
}

export function deploymentEvent(d: Deployment, type: EventType, reason: string, message: string): EventSpec {
  return { regarding: regardingDeployment(d), source: DEPLOYMENT_EVENT_SOURCE, type, reason, message };
}

/** scaleReplicaSet's event, when the size changed. */
export function scaledEvent(d: Deployment, rsName: string, from: number, to: number): EventSpec {
  const direction = from < to ? 'up' : 'down';
  const message = `Scaled ${direction} replica set ${rsName} from ${from} to ${to}`;
  return deploymentEvent(d, EventType.Normal, EventReason.ScalingReplicaSet, message);
}

/** getNewReplicaSet's events for the create of the new ReplicaSet. */
export function newReplicaSetEvents(d: Deployment, rsName: string, replicas: number): WriteEvents {
  const failed = deploymentEvent(
    d,
    EventType.Warning,
    Reason.FailedRSCreate,
    `Failed to create new replica set "${rsName}": `,
  );
  return {
    onSuccess: replicas > 0 ? [scaledEvent(d, rsName, 0, replicas)] : [],
    onFailure: { ...failed, detail: 'error', quietOn: ['AlreadyExists'] },
  };
}

export function selectingAllEvent(d: Deployment): EventSpec {
  const message = 'This deployment is selecting all pods. A non-empty selector is required.';
  return deploymentEvent(d, EventType.Warning, EventReason.SelectingAll, message);
}
