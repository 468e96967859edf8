// The core loop (manage, podsShouldBeOnNode, getUnscheduledPodsWithoutNode): for each node, create the daemon
// pod it lacks, delete what should not be there (pods on a node they must leave, a second pod, failed pods with
// the backoff of backoff.ts, succeeded pods), and delete unbound pods pinned to a node that no longer exists.
import type { DaemonSet, Node, Pod } from '../../kube/api/objects.js';
import type { EventSpec } from '../../kube/events/types.js';
import { isPodAvailable, isPodReady, PodPhase } from '../pod-utils/pod-state.js';
import { backoffKey, inBackoff, nextBackoff, type BackoffState } from './backoff.js';
import { allowsSurge } from './counts.js';
import { nodeShouldRunDaemonPod, type Placement } from './eligibility.js';
import { failedDaemonPodEvent, succeededDaemonPodEvent } from './events.js';
import { sortDaemonPods } from './node-pods.js';
import { REVISION_HASH_LABEL } from './types.js';

export type ManageInput = {
  readonly ds: DaemonSet;
  readonly nodes: readonly Node[];
  /** getNodesToDaemonPods(ds, false). */
  readonly byNode: ReadonlyMap<string, readonly Pod[]>;
  readonly hash: string;
  readonly placement: Placement;
  readonly backoff: BackoffState;
  readonly now: Date;
};

export type ManageResult = {
  readonly nodesNeedingPods: readonly string[];
  readonly podsToDelete: readonly Pod[];
  /** FailedDaemonPod / SucceededDaemonPod: recorded as the pods are found, whatever their delete does. */
  readonly events: readonly EventSpec[];
  readonly backoff: BackoffState;
  /** The shortest backoff a failed pod is still waiting out (enqueueDaemonSetAfter(ds, delay)). */
  readonly backoffRequeueMs?: number;
};

export function manage(i: ManageInput): ManageResult {
  const nodesNeedingPods: string[] = [];
  const podsToDelete: Pod[] = [];
  const events: EventSpec[] = [];
  let backoff = i.backoff;
  let backoffRequeueMs: number | undefined;
  const surge = allowsSurge(i.ds);
  const minReady = i.ds.spec?.minReadySeconds ?? 0;

  for (const node of i.nodes) {
    const name = node.metadata?.name ?? '';
    const fit = nodeShouldRunDaemonPod(node, i.placement);
    const pods = i.byNode.get(name);
    if (fit.shouldRun && pods === undefined) {
      nodesNeedingPods.push(name);
      continue;
    }
    if (!fit.shouldContinueRunning) {
      if (pods !== undefined) podsToDelete.push(...pods.filter((p) => !p.metadata?.deletionTimestamp));
      continue;
    }
    const running: Pod[] = [];
    for (const pod of pods ?? []) {
      if (pod.metadata?.deletionTimestamp) continue;
      const podName = pod.metadata?.name ?? '';
      if (pod.status?.phase === PodPhase.Failed) {
        const key = backoffKey(i.ds, name);
        const delay = inBackoff(backoff, key, i.now);
        if (delay !== undefined) {
          backoffRequeueMs = Math.min(backoffRequeueMs ?? delay, delay);
          continue;
        }
        backoff = nextBackoff(backoff, key, i.now);
        events.push(failedDaemonPodEvent(i.ds, podName, name));
        podsToDelete.push(pod);
      } else if (pod.status?.phase === PodPhase.Succeeded) {
        events.push(succeededDaemonPodEvent(i.ds, podName, name));
        podsToDelete.push(pod);
      } else {
        running.push(pod);
      }
    }
    const sorted = sortDaemonPods(running);
    if (!surge) {
      // Only one pod per node: the oldest stays.
      podsToDelete.push(...sorted.slice(1));
      continue;
    }
    if (sorted.length <= 1) {
      if (sorted.length === 0 && fit.shouldRun) nodesNeedingPods.push(name);
      continue;
    }
    // Surge: keep the oldest updated and the oldest outdated pod; the outdated one goes once it is not ready
    // or the updated one is available.
    let oldestNew: Pod | undefined;
    let oldestOld: Pod | undefined;
    for (const pod of sorted) {
      const isNew = pod.metadata?.labels?.[REVISION_HASH_LABEL] === i.hash;
      if (isNew && oldestNew === undefined) oldestNew = pod;
      else if (!isNew && oldestOld === undefined) oldestOld = pod;
      else podsToDelete.push(pod);
    }
    if (oldestNew !== undefined && oldestOld !== undefined) {
      if (!isPodReady(oldestOld) || isPodAvailable(oldestNew, minReady, i.now)) podsToDelete.push(oldestOld);
    }
  }

  podsToDelete.push(...unscheduledPodsWithoutNode(i.nodes, i.byNode));
  return {
    nodesNeedingPods,
    podsToDelete,
    events,
    backoff,
    ...(backoffRequeueMs !== undefined && { backoffRequeueMs }),
  };
}

/** getUnscheduledPodsWithoutNode: unbound pods whose target node is not in the node list. */
function unscheduledPodsWithoutNode(nodes: readonly Node[], byNode: ReadonlyMap<string, readonly Pod[]>): Pod[] {
  const known = new Set(nodes.map((n) => n.metadata?.name ?? ''));
  const result: Pod[] = [];
  for (const [node, pods] of byNode) {
    if (known.has(node)) continue;
    result.push(...pods.filter((p) => (p.spec?.nodeName ?? '') === ''));
  }
  return result;
}
