// A DaemonSet's pods by the node they are for (getNodesToDaemonPods), the order daemon pods are kept in
// (podByCreationTimestampAndPhase) and a node's new and old pod (findUpdatedPodsOnNode).
import type { Pod } from '../../kube/api/objects.js';
import { isPodTerminal } from '../pod-utils/pod-state.js';
import { timeMs } from '../common/wire-time.js';
import { isPodUpdated, targetNodeName } from './pod-template.js';

/**
 * getNodesToDaemonPods over the claimed pods: by target node (spec.nodeName, else the pinning affinity term);
 * a pod with neither is left out. Without `includeDeletedTerminal`, terminal pods being deleted are left out.
 */
export function nodesToDaemonPods(pods: readonly Pod[], includeDeletedTerminal: boolean): Map<string, Pod[]> {
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) {
    if (!includeDeletedTerminal && isPodTerminal(pod) && pod.metadata?.deletionTimestamp) continue;
    const node = targetNodeName(pod);
    if (node === undefined) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  return byNode;
}

/** podByCreationTimestampAndPhase.Less: scheduled first, then older first, then by name. */
export function daemonPodLess(a: Pod, b: Pod): boolean {
  const aBound = (a.spec?.nodeName ?? '') !== '';
  const bBound = (b.spec?.nodeName ?? '') !== '';
  if (aBound !== bBound) return aBound;
  const ta = timeMs(a.metadata?.creationTimestamp) ?? 0;
  const tb = timeMs(b.metadata?.creationTimestamp) ?? 0;
  if (ta === tb) return (a.metadata?.name ?? '') < (b.metadata?.name ?? '');
  return ta < tb;
}

export function sortDaemonPods(pods: readonly Pod[]): Pod[] {
  return [...pods].sort((a, b) => (daemonPodLess(a, b) ? -1 : daemonPodLess(b, a) ? 1 : 0));
}

export type NodePods = { readonly newPod?: Pod; readonly oldPod?: Pod };

/**
 * findUpdatedPodsOnNode: the node's one updated and one outdated pod (pods being deleted ignored); undefined
 * when it has more than one of either (the excess is the core loop's to delete).
 */
export function updatedPodsOnNode(
  pods: readonly Pod[],
  hash: string,
  generation: string | undefined,
): NodePods | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod !== undefined) return undefined;
      newPod = pod;
    } else {
      if (oldPod !== undefined) return undefined;
      oldPod = pod;
    }
  }
  return { ...(newPod && { newPod }), ...(oldPod && { oldPod }) };
}
