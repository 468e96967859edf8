// The LeaderWorkerSetPod key's planner: one pass of upstream's PodReconciler (pod-reconcile.ts planLwsPod) as
// fleetq actions:
//  - a pod without the name label: nothing (upstream's event filter never hands it to the reconciler; its keys
//    come here only through a StatefulSet it controls)
//  - recreate the group: delete the leader pod (foreground, uid precondition), RecreateGroup once deleted
//  - a leader pod: events with no write (the leader-name annotation's warning); the group's headless Service under
//    UniquePerReplica, created when missing (upstream records no event for it); the worker StatefulSet, created
//    once, GroupsProgressing once created, FailedCreate with the apiserver's error when refused (not AlreadyExists)
//  - upstream's errors (a label missing, a worker name without an ordinal, the leader's node without the topology
//    label) are thrown, retried with backoff as upstream's returned errors are. Where upstream creates the group's
//    Service before it meets the node's error, the pass creates the Service and continues at once; the next pass
//    meets the error.
import type { Action } from '../../kube/actions.js';
import { ReconcileError } from '../../kube/errors.js';
import type { PlanResult } from '../controller.js';
import { lwsEventSpec, lwsFailureSpec } from './events.js';
import { WriteReason } from './plan.js';
import { planLwsPod, type ObservedLwsPod } from './pod-reconcile.js';
import { SET_NAME_LABEL, type LeaderWorkerSet } from './types.js';
import type { LeaderPodPlan } from './worker-statefulset.js';

export function planLwsPodActions(observed: ObservedLwsPod): PlanResult {
  const { pod, lws } = observed;
  if (pod === null || !(SET_NAME_LABEL in (pod.metadata?.labels ?? {}))) return { actions: [] };
  const plan = planLwsPod(pod, lws, observed.world);
  switch (plan.kind) {
    case 'none':
      return { actions: [] };
    case 'error':
      throw new ReconcileError('PlanFailed', `LeaderWorkerSet pod ${pod.metadata?.name ?? ''}: ${plan.message}`);
    case 'recreateGroup': {
      const leader = plan.leader.metadata ?? {};
      return {
        actions: [
          {
            type: 'delete',
            target: { kind: 'Pod', namespace: leader.namespace ?? '', name: leader.name ?? '' },
            uid: leader.uid ?? '',
            reason: WriteReason.RecreateGroup,
            propagationPolicy: 'Foreground',
            events: { onSuccess: [lwsEventSpec(lws!, plan.event)] },
          },
        ],
      };
    }
    case 'leader':
      return leaderActions(lws!, plan.plan, pod.metadata?.name ?? '');
  }
}

function leaderActions(lws: LeaderWorkerSet, plan: LeaderPodPlan, podName: string): PlanResult {
  const actions: Action[] = plan.events.map((e) => ({ type: 'event', event: lwsEventSpec(lws, e) }));
  if (plan.createService !== undefined) {
    actions.push({ type: 'create', object: plan.createService, reason: WriteReason.HeadlessService });
  }
  if (plan.error !== undefined) {
    if (plan.createService !== undefined) return { actions, requeueAfter: 0 };
    throw new ReconcileError('PlanFailed', `LeaderWorkerSet leader pod ${podName}: ${plan.error}`);
  }
  const sts = plan.createWorkerStatefulSet;
  if (sts !== undefined) {
    actions.push({
      type: 'create',
      object: sts.object,
      reason: WriteReason.WorkerStatefulSet,
      events: {
        onSuccess: [lwsEventSpec(lws, sts.onSuccess)],
        onFailure: { ...lwsFailureSpec(lws, sts.onFailure), quietOn: ['AlreadyExists'] },
      },
    });
  }
  return { actions, ...(plan.requeueAfterMs !== undefined && { requeueAfter: plan.requeueAfterMs }) };
}
