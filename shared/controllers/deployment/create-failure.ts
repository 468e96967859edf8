// getNewReplicaSet's create error (sync.go): when the new ReplicaSet cannot be created, upstream sets
// Progressing=False with reason ReplicaSetCreateError and "Failed to create new replica set %q: %v" on the
// status as it stands and writes it — only for a Deployment with a progress deadline, and not when the
// namespace is being terminated (then it only returns the error). The runtime calls this after the writer's
// create failed; the key is then retried with its backoff.
import type { PlanResult } from '../controller.js';
import { newCondition, setCondition } from './conditions.js';
import { jsonCopy } from '../common/json-copy.js';
import { planDeployment } from './plan.js';
import { hasProgressDeadline } from './sync.js';
import { ConditionType, Reason, type Deployment, type ObservedDeployment } from './types.js';

const NAMESPACE_TERMINATING = /because it is being terminated/;

export function planCreateFailure(
  o: ObservedDeployment,
  now: Date,
  failure: { readonly message: string; readonly method?: string },
): PlanResult {
  const d = o.deployment;
  if (d === null || failure.method !== 'POST' || !hasProgressDeadline(d)) return { actions: [] };
  if (NAMESPACE_TERMINATING.test(failure.message)) return { actions: [] };
  // The writer sends creates first, and the only create of a Deployment pass is its new ReplicaSet.
  const create = planDeployment(o, now).actions.find((a) => a.type === 'create');
  if (!create) return { actions: [] };
  const name = create.object.metadata?.name ?? '';
  const status = jsonCopy(d.status ?? {});
  const msg = `Failed to create new replica set "${name}": ${failure.message}`;
  setCondition(status, newCondition(ConditionType.Progressing, 'False', Reason.FailedRSCreate, msg, now));
  const object: Deployment = { ...d, status };
  return { actions: [{ type: 'updateStatus', object }] };
}
