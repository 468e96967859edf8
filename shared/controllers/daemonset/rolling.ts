// RollingUpdate (update.go rollingUpdate), run only in a pass whose core loop wrote nothing (upstream runs it once
// the expectations of that loop's creates and deletes are met).
//   maxSurge 0   delete outdated pods: every unavailable one at once, available ones while fewer than
//                maxUnavailable nodes are unavailable; the core loop creates their replacements next pass.
//   maxSurge > 0 create an updated pod beside the outdated one on up to maxSurge nodes (at once where the
//                outdated pod is unavailable), delete an outdated pod once its node's updated pod is available;
//                delete outdated pods on nodes the DaemonSet no longer fits once enough pods are available.
// Map iteration follows the nodes' order in the node list (Go's map order is random; any order is upstream's).
// Differs: an outdated pod (surge mode) whose node is gone is treated as on a node it should not run on; upstream's
// nodeLister.Get fails there and the sync is retried until the core loop has deleted the pod.
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { isPodAvailable } from '../pod-utils/pod-state.js';
import { rollingBudget } from './counts.js';
import { nodeShouldRunDaemonPod, type Placement } from './eligibility.js';
import { updatedPodsOnNode } from './node-pods.js';
import { templateGeneration } from './pod-template.js';

export type RollingInput = {
  readonly ds: V1DaemonSet;
  readonly nodes: readonly V1Node[];
  readonly byNode: ReadonlyMap<string, readonly V1Pod[]>;
  readonly hash: string;
  readonly placement: Placement;
  readonly now: Date;
};

export type RollingResult = { readonly podsToDelete: readonly V1Pod[]; readonly nodesNeedingPods: readonly string[] };

const NOTHING: RollingResult = { podsToDelete: [], nodesNeedingPods: [] };

export function rollingUpdate(i: RollingInput): RollingResult {
  // updatedDesiredNodeCounts: nodes that should run a pod are in the map even without one.
  const byNode = new Map<string, readonly V1Pod[] | undefined>();
  const nodeByName = new Map(i.nodes.map((n) => [n.metadata?.name ?? '', n]));
  let desired = 0;
  for (const node of i.nodes) {
    const name = node.metadata?.name ?? '';
    if (i.byNode.has(name)) byNode.set(name, i.byNode.get(name));
    if (!nodeShouldRunDaemonPod(node, i.placement).shouldRun) continue;
    desired++;
    if (!byNode.has(name)) byNode.set(name, undefined);
  }
  for (const [name, pods] of i.byNode) if (!byNode.has(name)) byNode.set(name, pods); // pods on unknown nodes
  const budget = rollingBudget(i.ds, desired);
  if (budget === null) return NOTHING;
  const generation = templateGeneration(i.ds);
  const minReady = i.ds.spec?.minReadySeconds ?? 0;
  const available = (p: V1Pod) => isPodAvailable(p, minReady, i.now);

  if (budget.maxSurge === 0) {
    let numUnavailable = 0;
    const allowed: V1Pod[] = [];
    const candidates: V1Pod[] = [];
    for (const pods of byNode.values()) {
      const found = updatedPodsOnNode(pods ?? [], i.hash, generation);
      if (found === undefined) {
        numUnavailable++; // excess pods: the core loop's
        continue;
      }
      const { newPod, oldPod } = found;
      if ((oldPod === undefined) === (newPod === undefined)) numUnavailable++;
      else if (newPod !== undefined) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod !== undefined) {
        if (!available(oldPod)) {
          allowed.push(oldPod);
          numUnavailable++;
        } else if (numUnavailable < budget.maxUnavailable) candidates.push(oldPod);
      }
    }
    const remaining = Math.min(Math.max(budget.maxUnavailable - numUnavailable, 0), candidates.length);
    return { podsToDelete: [...allowed, ...candidates.slice(0, remaining)], nodesNeedingPods: [] };
  }

  const oldPodsToDelete: V1Pod[] = [];
  const shouldNotRun: V1Pod[] = [];
  const candidateNodes: string[] = [];
  const allowedNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const [name, pods] of byNode) {
    const found = updatedPodsOnNode(pods ?? [], i.hash, generation);
    if (found === undefined) {
      numSurge++;
      continue;
    }
    const { newPod, oldPod } = found;
    if (oldPod !== undefined ? available(oldPod) : newPod !== undefined && available(newPod)) numAvailable++;
    if (oldPod === undefined) continue;
    if (newPod === undefined) {
      const node = nodeByName.get(name);
      const shouldRun = node !== undefined && nodeShouldRunDaemonPod(node, i.placement).shouldRun;
      if (!available(oldPod)) {
        if (!shouldRun) oldPodsToDelete.push(oldPod);
        else allowedNodes.push(name);
        continue;
      }
      if (!shouldRun) shouldNotRun.push(oldPod);
      else if (numSurge < budget.maxSurge) candidateNodes.push(name);
      continue;
    }
    if (!available(newPod)) {
      numSurge++;
      continue;
    }
    oldPodsToDelete.push(oldPod);
  }
  const deletable = Math.min(Math.max(numAvailable - desired, 0), shouldNotRun.length);
  oldPodsToDelete.push(...shouldNotRun.slice(0, deletable));
  const remainingSurge = Math.min(Math.max(budget.maxSurge - numSurge, 0), candidateNodes.length);
  return {
    podsToDelete: oldPodsToDelete,
    nodesNeedingPods: [...allowedNodes, ...candidateNodes.slice(0, remainingSurge)],
  };
}
