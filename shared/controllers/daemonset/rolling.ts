// RollingUpdate (update.go rollingUpdate), run only in a pass whose core loop wrote nothing (upstream runs it once
// the expectations of that loop's creates and deletes are met).
//   maxSurge 0   delete outdated pods: every unavailable one at once, available ones while fewer than
//                maxUnavailable nodes are unavailable; the core loop creates their replacements next pass.
//   maxSurge > 0 create an updated pod beside the outdated one on up to maxSurge nodes (at once where the
//                outdated pod is unavailable), delete an outdated pod once its node's updated pod is available;
//                delete outdated pods on nodes the DaemonSet no longer fits once enough pods are available.
// Map iteration follows the nodes' order in the node list (Go's map order is random; any order is upstream's).
// Under fleetq's opt-in unhealthy-nodes policy (unhealthy-nodes.ts) the healthy nodes are updated first, then the
// unhealthy ones (each set by the pass below, upstream's algorithm over that set).
// Differs: an outdated pod (surge mode) whose node is gone is treated as on a node it should not run on; upstream's
// nodeLister.Get fails there and the sync is retried until the core loop has deleted the pod.
import type { DaemonSet, Node, Pod } from '../../kube/api/objects.js';
import { isPodAvailable } from '../pod-utils/pod-state.js';
import { rollingBudget, type Budget } from './counts.js';
import { nodeShouldRunDaemonPod, type Placement } from './eligibility.js';
import { updatedPodsOnNode } from './node-pods.js';
import { templateGeneration } from './pod-template.js';
import { nodeHealth, unhealthyPolicyOf, type Deferred } from './unhealthy-nodes.js';

export type RollingInput = {
  readonly ds: DaemonSet;
  readonly nodes: readonly Node[];
  readonly byNode: ReadonlyMap<string, readonly Pod[]>;
  readonly hash: string;
  readonly placement: Placement;
  readonly now: Date;
};

export type RollingResult = {
  readonly podsToDelete: readonly Pod[];
  readonly nodesNeedingPods: readonly string[];
  /** Under the unhealthy-nodes policy (unhealthy-nodes.ts): the nodes whose update waits; else undefined. */
  readonly deferred?: readonly Deferred[];
  /** Under the policy: when a NotReady node with work left turns unhealthy (its threshold passes). */
  readonly requeueAfterMs?: number;
};

const NOTHING: RollingResult = { podsToDelete: [], nodesNeedingPods: [] };

type NodeMap = Map<string, readonly Pod[] | undefined>;

export function rollingUpdate(i: RollingInput): RollingResult {
  // updatedDesiredNodeCounts: nodes that should run a pod are in the map even without one.
  const byNode: NodeMap = new Map();
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
  const pass = new Pass(i, nodeByName, budget);
  const policy = unhealthyPolicyOf(i.ds);
  if (policy === null) return pass.update(byNode);

  // The policy: healthy nodes first, with the whole budget and without the unhealthy ones' unavailability; the
  // unhealthy ones once every healthy node is updated and available, with a budget of their own.
  const healthy: NodeMap = new Map();
  const unhealthy: NodeMap = new Map();
  const deferred: Deferred[] = [];
  let requeueAfterMs: number | undefined;
  for (const [name, pods] of byNode) {
    const node = nodeByName.get(name);
    const health = node === undefined ? undefined : nodeHealth(node, policy, i.now);
    const pending = pass.isPending(name, pods);
    if (health?.unhealthy !== true) {
      healthy.set(name, pods);
      if (pending && health?.inMs !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, health.inMs);
      continue;
    }
    unhealthy.set(name, pods);
    if (pending) deferred.push({ node: name, why: health.why });
  }
  const first = pass.update(healthy);
  const healthyDone = first.podsToDelete.length + first.nodesNeedingPods.length === 0 && !pass.anyPending(healthy);
  const last = healthyDone ? pass.update(unhealthy) : NOTHING;
  return {
    podsToDelete: [...first.podsToDelete, ...last.podsToDelete],
    nodesNeedingPods: [...first.nodesNeedingPods, ...last.nodesNeedingPods],
    deferred,
    ...(requeueAfterMs !== undefined && { requeueAfterMs }),
  };
}

/** One rolling-update pass over a set of nodes (upstream's: every node). */
class Pass {
  private readonly generation: string | undefined;
  private readonly minReady: number;

  constructor(
    private readonly i: RollingInput,
    private readonly nodeByName: ReadonlyMap<string, Node>,
    private readonly budget: Budget,
  ) {
    this.generation = templateGeneration(i.ds);
    this.minReady = i.ds.spec?.minReadySeconds ?? 0;
  }

  private available(p: Pod): boolean {
    return isPodAvailable(p, this.minReady, this.i.now);
  }

  private shouldRun(name: string): boolean {
    const node = this.nodeByName.get(name);
    return node !== undefined && nodeShouldRunDaemonPod(node, this.i.placement).shouldRun;
  }

  /**
   * A node still has work: no live pod where one should run (none, or only pods being deleted), excess pods, an
   * outdated pod, or an unavailable new one.
   */
  isPending(name: string, pods: readonly Pod[] | undefined): boolean {
    if (pods === undefined) return true;
    const found = updatedPodsOnNode(pods, this.i.hash, this.generation);
    if (found === undefined || found.oldPod !== undefined) return true;
    if (found.newPod === undefined) return this.shouldRun(name); // only pods being deleted: none live yet
    return !this.available(found.newPod);
  }

  anyPending(byNode: NodeMap): boolean {
    for (const [name, pods] of byNode) if (this.isPending(name, pods)) return true;
    return false;
  }

  update(byNode: NodeMap): RollingResult {
    return this.budget.maxSurge === 0 ? this.withoutSurge(byNode) : this.withSurge(byNode);
  }

  private withoutSurge(byNode: NodeMap): RollingResult {
    let numUnavailable = 0;
    const allowed: Pod[] = [];
    const candidates: Pod[] = [];
    for (const pods of byNode.values()) {
      const found = updatedPodsOnNode(pods ?? [], this.i.hash, this.generation);
      if (found === undefined) {
        numUnavailable++; // excess pods: the core loop's
        continue;
      }
      const { newPod, oldPod } = found;
      if ((oldPod === undefined) === (newPod === undefined)) numUnavailable++;
      else if (newPod !== undefined) {
        if (!this.available(newPod)) numUnavailable++;
      } else if (oldPod !== undefined) {
        if (!this.available(oldPod)) {
          allowed.push(oldPod);
          numUnavailable++;
        } else if (numUnavailable < this.budget.maxUnavailable) candidates.push(oldPod);
      }
    }
    const remaining = Math.min(Math.max(this.budget.maxUnavailable - numUnavailable, 0), candidates.length);
    return { podsToDelete: [...allowed, ...candidates.slice(0, remaining)], nodesNeedingPods: [] };
  }

  private withSurge(byNode: NodeMap): RollingResult {
    const oldPodsToDelete: Pod[] = [];
    const shouldNotRun: Pod[] = [];
    const candidateNodes: string[] = [];
    const allowedNodes: string[] = [];
    let numSurge = 0;
    let numAvailable = 0;
    let desired = 0;
    for (const [name, pods] of byNode) {
      if (this.shouldRun(name)) desired++;
      const found = updatedPodsOnNode(pods ?? [], this.i.hash, this.generation);
      if (found === undefined) {
        numSurge++;
        continue;
      }
      const { newPod, oldPod } = found;
      if (oldPod !== undefined ? this.available(oldPod) : newPod !== undefined && this.available(newPod)) {
        numAvailable++;
      }
      if (oldPod === undefined) continue;
      if (newPod === undefined) {
        const shouldRun = this.shouldRun(name);
        if (!this.available(oldPod)) {
          if (!shouldRun) oldPodsToDelete.push(oldPod);
          else allowedNodes.push(name);
          continue;
        }
        if (!shouldRun) shouldNotRun.push(oldPod);
        else if (numSurge < this.budget.maxSurge) candidateNodes.push(name);
        continue;
      }
      if (!this.available(newPod)) {
        numSurge++;
        continue;
      }
      oldPodsToDelete.push(oldPod);
    }
    const deletable = Math.min(Math.max(numAvailable - desired, 0), shouldNotRun.length);
    oldPodsToDelete.push(...shouldNotRun.slice(0, deletable));
    const remainingSurge = Math.min(Math.max(this.budget.maxSurge - numSurge, 0), candidateNodes.length);
    return {
      podsToDelete: oldPodsToDelete,
      nodesNeedingPods: [...allowedNodes, ...candidateNodes.slice(0, remainingSurge)],
    };
  }
}
