// Deployment conditions as deployment_util.go keeps them: a condition of the same status and reason is left
// untouched (message and times included); a new reason with the same status keeps lastTransitionTime; a
// changed condition moves to the end of the list.
import { wireTime } from '../common/wire-time.js';
import type { Condition, DeploymentStatus } from './types.js';

/** metav1.Now() as it is stored: RFC 3339, whole seconds. */

export function newCondition(
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
  now: Date,
): Condition {
  const t = wireTime(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export function getCondition(status: DeploymentStatus | undefined, type: string): Condition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** SetDeploymentCondition. Mutates status. */
export function setCondition(status: DeploymentStatus, condition: Condition): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...withoutCondition(status.conditions, condition.type), next];
}

/** RemoveDeploymentCondition. Mutates status. */
export function removeCondition(status: DeploymentStatus, type: string): void {
  const rest = withoutCondition(status.conditions, type);
  if (rest.length > 0 || status.conditions !== undefined) status.conditions = rest;
}

function withoutCondition(conditions: Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
