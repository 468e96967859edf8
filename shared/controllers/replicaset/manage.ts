// manageReplicas: create the missing pods from the template, or delete the surplus chosen by the scale-down
// ranking, at most BURST_REPLICAS per pass (requeueAfter 0 continues). The writer sends creates in slow-start
// batches 1, 2, 4, … and stops at the first failing batch, as slowStartBatch does. Each write carries the
// events RealPodControl records for it (events.ts).
import type { Pod, ReplicaSet } from '../../kube/api/objects.js';
import type { Action } from '../../kube/actions.js';
import { newControllerRef } from '../../kube/meta/controller-ref.js';
import type { Selector } from '../../kube/meta/label-selector.js';
import { claimObjects, type Claim } from '../common/claim.js';
import { podsToDelete } from '../pod-utils/deletion-rank.js';
import { isPodActive } from '../pod-utils/pod-state.js';
import { podCreateEvents, podDeleteEvents } from './events.js';
import { BURST_REPLICAS, RS_API_VERSION, RS_KIND, Reason } from './types.js';

export type Manage = { readonly actions: readonly Action[]; readonly more: boolean };

export function desiredReplicas(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 1;
}

/** ClaimPods over the active pods only: upstream filters them (FilterActivePods) before claiming. */
export function claimActivePods(rs: ReplicaSet, pods: readonly Pod[], selects: Selector): Claim<Pod> {
  return claimObjects(rs, pods.filter(isPodActive), selects);
}

export function manageReplicas(
  rs: ReplicaSet,
  claimed: readonly Pod[],
  relatedPods: readonly Pod[],
  now: Date,
): Manage {
  const diff = claimed.length - desiredReplicas(rs);
  if (diff < 0) {
    const count = Math.min(-diff, BURST_REPLICAS);
    const pod = podFromTemplate(rs);
    const events = podCreateEvents(rs);
    const actions = Array.from({ length: count }, (): Action => ({
      type: 'create',
      object: pod,
      reason: Reason.SuccessfulCreate,
      events,
    }));
    return { actions, more: -diff > BURST_REPLICAS };
  }
  if (diff > 0) {
    const count = Math.min(diff, BURST_REPLICAS);
    const actions = podsToDelete(claimed, relatedPods, count, now).map((pod): Action => ({
      type: 'delete',
      target: { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' },
      uid: pod.metadata?.uid ?? '',
      reason: Reason.SuccessfulDelete,
      events: podDeleteEvents(rs, pod.metadata?.name ?? ''),
    }));
    return { actions, more: diff > BURST_REPLICAS };
  }
  return { actions: [], more: false };
}

/** controller.GetPodFromTemplate: template labels, annotations and finalizers, generateName `<rs>-`. */
export function podFromTemplate(rs: ReplicaSet): Pod {
  const meta = rs.spec?.template?.metadata;
  const ref = newControllerRef({
    apiVersion: RS_API_VERSION,
    kind: RS_KIND,
    name: rs.metadata?.name ?? '',
    uid: rs.metadata?.uid ?? '',
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata?.name ?? ''}-`,
      namespace: rs.metadata?.namespace,
      labels: { ...meta?.labels },
      ...(meta?.annotations && { annotations: { ...meta.annotations } }),
      ...(meta?.finalizers && { finalizers: [...meta.finalizers] }),
      ownerReferences: [ref],
    },
    spec: structuredClone(rs.spec?.template?.spec ?? { containers: [] }),
  };
}
