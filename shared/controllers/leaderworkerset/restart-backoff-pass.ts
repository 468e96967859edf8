// The LeaderWorkerSetPod key's pass with the opt-in group-restart backoff (restart-backoff.ts) around upstream's
// (pod-plan.ts). Without the annotation both functions hand back upstream's observe and plan untouched.
//   observe: also the leader StatefulSet `<lws>` (the backoff state), read only when the set opted in and the pod
//            restarted or is being deleted (a recreation may be decided), or is a leader while the set shows the
//            GroupRestartLimitReached condition (a held group may have been released).
//   plan:    upstream's recreation goes through decideRecreation: recreate (upstream's delete and event), record
//            the recreation first (requeueAfter 0), wait (requeueAfter the rest of the delay), or hold (the state
//            patch with the Warning event, once, and the condition). A leader pass keeps the condition in step:
//            a held entry whose leader was replaced is dropped and the condition names the groups still held.
import type { StatefulSet } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import type { ReconcileKey } from '../../kube/key.js';
import type { ClusterView } from '../../kube/view.js';
import type { PlanResult } from '../controller.js';
import { lwsEventSpec, type LwsEvent } from './events.js';
import { hasContainerRestarted, isLeaderPod, isPodDeleted } from './group-state.js';
import { observeLwsPod } from './observe.js';
import { planLwsPodActions } from './pod-plan.js';
import { planLwsPod, type ObservedLwsPod } from './pod-reconcile.js';
import {
  backoffPolicyOf,
  conditionWrite,
  decideRecreation,
  GROUP_RESTART_LIMIT_CONDITION,
  groupOf,
  heldGroups,
  invalidValueEvent,
  isLiveEntry,
  limitCondition,
  limitReachedEvent,
  readBackoffState,
  statePatch,
  type BackoffState,
} from './restart-backoff.js';
import { recreatesGroups } from './restart-policy.js';
import { SET_NAME_LABEL, type LeaderWorkerSet } from './types.js';

export type ObservedLwsPodWithBackoff = ObservedLwsPod & {
  /** The leader StatefulSet `<lws>` (null: gone), read only when the backoff may need its state. */
  readonly leaderStatefulSet?: StatefulSet | null;
};

const hasLimitCondition = (lws: LeaderWorkerSet) =>
  (lws.status?.conditions ?? []).some((c) => c.type === GROUP_RESTART_LIMIT_CONDITION && c.status === 'True');

export async function observeLwsPodWithBackoff(
  view: ClusterView,
  key: ReconcileKey,
): Promise<ObservedLwsPodWithBackoff> {
  const observed = await observeLwsPod(view, key);
  const { pod, lws } = observed;
  if (pod === null || lws === null || backoffPolicyOf(lws) === null) return observed;
  const mayRecreate = recreatesGroups(lws) && (hasContainerRestarted(pod) || isPodDeleted(pod));
  if (!mayRecreate && !(isLeaderPod(pod) && hasLimitCondition(lws))) return observed;
  const leaderStatefulSet = await view.get<StatefulSet>('StatefulSet', key.namespace, lws.metadata.name ?? '');
  return { ...observed, leaderStatefulSet };
}

export function planLwsPodWithBackoff(observed: ObservedLwsPodWithBackoff, now: Date): PlanResult {
  const { pod, lws, leaderStatefulSet: sts } = observed;
  const upstream = () => planLwsPodActions(observed);
  if (pod === null || lws === null || !(SET_NAME_LABEL in (pod.metadata?.labels ?? {}))) return upstream();
  const policy = backoffPolicyOf(lws);
  // No policy, or no leader StatefulSet (its set is going): upstream's pass.
  if (policy === null || sts === undefined || sts === null) return upstream();
  const plan = planLwsPod(pod, lws, observed.world);
  const state = readBackoffState(sts);

  if (plan.kind === 'recreateGroup') {
    const group = groupOf(plan.leader);
    const decision = decideRecreation(policy, state, plan.leader, now);
    switch (decision.kind) {
      case 'recreate': {
        const result = upstream();
        if (policy.invalid === undefined) return result;
        return { ...result, actions: [...result.actions, eventAction(lws, invalidValueEvent(policy.invalid))] };
      }
      case 'record':
        return { actions: [statePatch(sts, { ...state, [group]: decision.entry }, now, [], lws)], requeueAfter: 0 };
      case 'wait':
        return { actions: [], requeueAfter: decision.waitMs };
      case 'held': {
        const actions: Action[] = [];
        let next: BackoffState = state;
        if (decision.entry !== undefined) {
          next = { ...state, [group]: decision.entry };
          const event = limitReachedEvent(
            group,
            decision.count,
            plan.leader.metadata?.name ?? '',
            sts.metadata?.name ?? '',
          );
          actions.push(statePatch(sts, next, now, [event], lws));
        }
        const condition = limitCondition(lws, heldGroups(next), now);
        if (condition !== null) actions.push(conditionWrite(lws, condition));
        return { actions };
      }
    }
  }

  if (plan.kind !== 'leader') return upstream();
  // A leader pass while the condition shows: release this group if its held leader was replaced.
  const result = upstream();
  const group = groupOf(pod);
  const entry = state[group];
  const extra: Action[] = [];
  let next = state;
  if (entry?.held === true && !isLiveEntry(entry, pod, now.getTime())) {
    next = Object.fromEntries(Object.entries(state).filter(([g]) => g !== group));
    extra.push(statePatch(sts, next, now, [], lws));
  }
  const condition = limitCondition(lws, heldGroups(next), now);
  if (condition !== null) extra.push(conditionWrite(lws, condition));
  return extra.length === 0 ? result : { ...result, actions: [...result.actions, ...extra] };
}

function eventAction(lws: LeaderWorkerSet, event: LwsEvent): Action {
  return { type: 'event', event: lwsEventSpec(lws, event) };
}
