// updateDaemonSetStatus / storeDaemonSetStatus: the counts over the node list, written through the status
// subresource only when one of them changed or observedGeneration is behind; a DaemonSet with minReadySeconds
// whose ready pods are not all available yet is looked at again after minReadySeconds.
import type { DaemonSet, DaemonSetCondition, DaemonSetStatus, Node, Pod } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { isPodAvailable, isPodReady, soonestAvailabilityMs } from '../pod-utils/pod-state.js';
import type { DeferredReport } from './deferred-report.js';
import { nodeShouldRunDaemonPod, type Placement } from './eligibility.js';
import { sortDaemonPods } from './node-pods.js';
import { isPodUpdated, templateGeneration } from './pod-template.js';

export type Counts = {
  readonly desiredNumberScheduled: number;
  readonly currentNumberScheduled: number;
  readonly numberMisscheduled: number;
  readonly numberReady: number;
  readonly updatedNumberScheduled: number;
  readonly numberAvailable: number;
  readonly numberUnavailable: number;
};

export function countStatus(
  ds: DaemonSet,
  nodes: readonly Node[],
  byNode: ReadonlyMap<string, readonly Pod[]>,
  hash: string,
  placement: Placement,
  now: Date,
): Counts {
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let updated = 0;
  let available = 0;
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const generation = templateGeneration(ds);
  for (const node of nodes) {
    const pods = byNode.get(node.metadata?.name ?? '') ?? [];
    const scheduled = pods.length > 0;
    if (!nodeShouldRunDaemonPod(node, placement).shouldRun) {
      if (scheduled) misscheduled++;
      continue;
    }
    desired++;
    if (!scheduled) continue;
    current++;
    const pod = sortDaemonPods(pods)[0]!;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, now)) available++;
    }
    if (isPodUpdated(pod, hash, generation)) updated++;
  }
  return {
    desiredNumberScheduled: desired,
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    numberReady: ready,
    updatedNumberScheduled: updated,
    numberAvailable: available,
    numberUnavailable: desired - available,
  };
}

const n = (v: number | undefined) => v ?? 0;

/**
 * storeDaemonSetStatus: null when every count is as written and observedGeneration is current; else the status
 * write (observedGeneration raised when `observeGeneration`), keeping the other status fields (collisionCount).
 */
export function statusAction(
  ds: DaemonSet,
  c: Counts,
  observeGeneration: boolean,
  report?: DeferredReport,
): Action | null {
  const s: DaemonSetStatus = ds.status ?? {
    currentNumberScheduled: 0,
    desiredNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
  };
  const generation = ds.metadata?.generation ?? 0;
  const same =
    n(s.desiredNumberScheduled) === c.desiredNumberScheduled &&
    n(s.currentNumberScheduled) === c.currentNumberScheduled &&
    n(s.numberMisscheduled) === c.numberMisscheduled &&
    n(s.numberReady) === c.numberReady &&
    n(s.updatedNumberScheduled) === c.updatedNumberScheduled &&
    n(s.numberAvailable) === c.numberAvailable &&
    n(s.numberUnavailable) === c.numberUnavailable &&
    n(s.observedGeneration) >= generation &&
    (report === undefined || sameConditions(s.conditions ?? [], report.conditions));
  if (same) return null;
  const status: DaemonSetStatus = {
    ...s,
    ...(observeGeneration && { observedGeneration: generation }),
    ...c,
    ...(report !== undefined && { conditions: report.conditions }),
  };
  if (status.conditions?.length === 0) delete status.conditions;
  const object: DaemonSet = { ...ds, apiVersion: 'apps/v1', kind: 'DaemonSet', status };
  const events = report?.events ?? (report?.event !== undefined ? [report.event] : []);
  return events.length === 0
    ? { type: 'updateStatus', object }
    : { type: 'updateStatus', object, events: { onSuccess: [...events] } };
}

/** Conditions compared as they are serialized (times read back are strings, times made here are Dates). */
function sameConditions(a: readonly DaemonSetCondition[], b: readonly DaemonSetCondition[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A raised collisionCount (snapshot's hash collision), with the counts left as they were. */
export function collisionAction(ds: DaemonSet): Action {
  const status = { ...ds.status, collisionCount: n(ds.status?.collisionCount) + 1 } as DaemonSetStatus;
  const object: DaemonSet = { ...ds, apiVersion: 'apps/v1', kind: 'DaemonSet', status };
  return { type: 'updateStatus', object };
}

/**
 * updatePod's enqueueDaemonSetAfter(minReadySeconds + 1 s) when a pod turns ready, kept without state: the soonest
 * moment one of its ready pods becomes available, and that second. The counts (and availabilityRequeueMs) see only
 * each node's oldest pod, so without it a surge pod turning ready beside an old one was not looked at again, and the
 * old pod stayed until some other event (the e2e spec "should surge pods onto nodes": over a minute).
 */
export function readyPodRequeueMs(ds: DaemonSet, pods: readonly Pod[], now: Date): number | undefined {
  const live = pods.filter((p) => p.metadata?.deletionTimestamp === undefined);
  const soonest = soonestAvailabilityMs(live, ds.spec?.minReadySeconds ?? 0, now);
  return soonest === undefined ? undefined : soonest + 1000;
}

/** enqueueDaemonSetAfter(minReadySeconds) while some ready pods are not yet available. */
export function availabilityRequeueMs(ds: DaemonSet, c: Counts): number | undefined {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  return minReady > 0 && c.numberReady !== c.numberAvailable ? minReady * 1000 : undefined;
}
