// The DaemonSet planner (syncDaemonSet): claim, history, the core loop, the rolling update, history cleanup,
// then status. Pure: observed state and `now` in, actions out.
//
// Where a stateless pass differs in mechanism from upstream's sync (same outcome):
// - A pass that adopts or releases does only that and continues at once (requeueAfter 0); the next pass reads
//   the claim back (upstream claims and goes on in one sync).
// - Upstream runs the rolling update only once the expectations of the core loop's writes are met: here, only
//   in a pass whose core loop wrote nothing (the next pass reads those writes back, after the cache has them).
// - A pass that records a failed pod's backoff on the DaemonSet (backoff.ts) leaves the status write to the
//   next pass (requeueAfter 0): that patch changes the DaemonSet's resourceVersion, the status write's
//   precondition.
// Beyond upstream, opt-in: the unhealthy-nodes policy (unhealthy-nodes.ts) orders the rolling update and reports the
// nodes it deferred in a condition and an Event (deferred-report.ts).
import type { ControllerRevision, DaemonSet, Pod } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { isSelectingAll, selectorOf, type LabelSelector } from '../../kube/meta/label-selector.js';
import { canAdopt, claimActions, claimObjects } from '../common/claim.js';
import type { PlanResult } from '../controller.js';
import { backoffPatch, readBackoff } from './backoff.js';
import { deferredReport, hasDeferredCondition, type DeferredReport } from './deferred-report.js';
import { placementOf } from './eligibility.js';
import { podCreateEvents, podDeleteEvents, selectingAllEvent } from './events.js';
import { cleanupHistory, constructHistory } from './history.js';
import { manage } from './manage.js';
import { nodesToDaemonPods } from './node-pods.js';
import { newDaemonPod } from './pod-template.js';
import { rollingUpdate } from './rolling.js';
import { availabilityRequeueMs, collisionAction, countStatus, readyPodRequeueMs, statusAction } from './status.js';
import { pinEventType, withPinCondition } from '../common/fleet-pin-condition.js';
import { pinOf } from '../../rollouts/pin.js';
import { dsEvent } from './events.js';
import { daemonSetGate } from './fleet-pin.js';
import { BURST_REPLICAS, DS_API_VERSION, DS_KIND, Reason, Strategy, type ObservedDaemonSet } from './types.js';

export function planDaemonSet(o: ObservedDaemonSet, now: Date): PlanResult {
  const ds = o.daemonSet;
  if (ds === null) return { actions: [] }; // gone: the garbage collector deletes its pods and revisions
  if (isSelectingAll(ds.spec?.selector as LabelSelector | undefined)) {
    return { actions: [{ type: 'event', event: selectingAllEvent(ds) }] };
  }
  if (ds.metadata?.deletionTimestamp) return { actions: [] };

  const selects = selectorOf(ds.spec?.selector);
  const revisions = claimObjects<ControllerRevision>(ds, o.revisions, selects);
  const pods = claimObjects<Pod>(ds, o.pods, selects);
  if (revisions.adopt.length + pods.adopt.length > 0 && !canAdopt(ds, o.adoptionRecheck)) {
    return { actions: [], requeueAfter: 0 }; // deleted or replaced since it was read: look again
  }
  const owner = {
    apiVersion: DS_API_VERSION,
    kind: DS_KIND,
    name: ds.metadata?.name ?? '',
    uid: ds.metadata?.uid ?? '',
  };
  const claims = [...claimActions(owner, 'ControllerRevision', revisions), ...claimActions(owner, 'Pod', pods)];
  if (claims.length > 0) return { actions: claims, requeueAfter: 0 };

  const history = constructHistory(ds, revisions.claimed, pods.claimed, o.nameTaken);
  if (history.kind === 'collision') return { actions: [collisionAction(ds)], requeueAfter: 0 };
  // The fleet rollout pin decides which revision pods are made from and rolled to (fleet-pin.ts).
  const gate = daemonSetGate(ds, pinOf(ds), revisions.claimed, history.hash, pods.claimed);
  const hash = gate.hash ?? '';

  const placement = placementOf(ds);
  const byNode = nodesToDaemonPods(pods.claimed, false);
  const backoff = readBackoff(ds);
  const core = manage({ ds: gate.ds, nodes: o.nodes, byNode, hash, placement, backoff, now });
  let creates = gate.hash === null ? [] : core.nodesNeedingPods;
  let deletes = core.podsToDelete;
  let report: DeferredReport | undefined;
  let healthRequeueMs: number | undefined;
  if (
    creates.length === 0 &&
    deletes.length === 0 &&
    gate.rolls &&
    ds.spec?.updateStrategy?.type === Strategy.RollingUpdate
  ) {
    const rolling = rollingUpdate({ ds: gate.ds, nodes: o.nodes, byNode, hash, placement, now });
    creates = rolling.nodesNeedingPods;
    deletes = rolling.podsToDelete;
    if (rolling.deferred !== undefined || hasDeferredCondition(ds)) {
      report = deferredReport(ds, rolling.deferred ?? [], now); // policy removed: the condition goes too
    }
    healthRequeueMs = rolling.requeueAfterMs;
  }
  const more = creates.length > BURST_REPLICAS || deletes.length > BURST_REPLICAS;
  const backoffWrite = backoffPatch(ds, backoff, core.backoff, now);

  const counts = countStatus(gate.statusDs, o.nodes, byNode, gate.statusHash, placement, now);
  if (gate.verdict !== undefined) {
    const base = report?.conditions ?? ds.status?.conditions;
    const pinned = withPinCondition(base, gate.verdict, now, gate.admittedMessage);
    const events = [
      ...(report?.event ? [report.event] : []),
      ...(pinned.event
        ? [dsEvent(ds, pinEventType(pinned.event.reason), pinned.event.reason, pinned.event.message)]
        : []),
    ];
    report = { conditions: pinned.conditions ?? [], ...(events.length > 0 && { events }) };
  }
  const status = backoffWrite === null ? statusAction(ds, counts, true, report) : null;
  const actions: Action[] = [
    ...history.actions,
    ...creates.slice(0, BURST_REPLICAS).map((node) => createPod(gate.ds, node, hash)),
    ...uniqueByUid(deletes)
      .slice(0, BURST_REPLICAS)
      .map((pod) => deletePod(ds, pod)),
    ...core.events.map((event): Action => ({ type: 'event', event })),
    ...(backoffWrite ? [backoffWrite] : []),
    ...cleanupHistory(ds, history.old, [...nodesToDaemonPods(pods.claimed, true).values()].flat()),
    ...(status ? [status] : []),
  ];
  const requeue = [
    more || backoffWrite !== null ? 0 : undefined,
    core.backoffRequeueMs,
    availabilityRequeueMs(ds, counts),
    readyPodRequeueMs(ds, pods.claimed, now),
    healthRequeueMs,
  ].filter((v): v is number => v !== undefined);
  return requeue.length === 0 ? { actions } : { actions, requeueAfter: Math.min(...requeue) };
}

function createPod(ds: DaemonSet, node: string, hash: string): Action {
  return {
    type: 'create',
    object: newDaemonPod(ds, node, hash),
    reason: Reason.SuccessfulCreate,
    events: podCreateEvents(ds),
  };
}

function deletePod(ds: DaemonSet, pod: Pod): Action {
  const name = pod.metadata?.name ?? '';
  return {
    type: 'delete',
    target: { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name },
    uid: pod.metadata?.uid ?? '',
    reason: Reason.SuccessfulDelete,
    events: podDeleteEvents(ds, name),
  };
}

/** A pod named twice (say, failed and on a node it must leave) is deleted once. */
function uniqueByUid(pods: readonly Pod[]): Pod[] {
  const seen = new Set<string>();
  return pods.filter((p) => {
    const uid = p.metadata?.uid ?? p.metadata?.name ?? '';
    if (seen.has(uid)) return false;
    seen.add(uid);
    return true;
  });
}
