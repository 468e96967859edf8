// ControllerRefManager.ClaimPods for one ReplicaSet: keep what it controls and still selects, adopt selected
// orphans, release controlled pods it no longer selects. Only active pods take part (upstream filters
// before claiming), and a ReplicaSet being deleted neither adopts nor releases.
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { adoptAction, releaseAction, type Action } from '../../kube/actions.js';
import { controllerRefOf, newControllerRef } from '../../kube/meta/controller-ref.js';
import type { Selector } from '../../kube/meta/label-selector.js';
import { isPodActive } from '../pod-utils/pod-state.js';
import { RS_API_VERSION, RS_KIND, Reason } from './types.js';

export type Claim = {
  /** Active pods this ReplicaSet controls after the claim (the adopted ones included). */
  readonly claimed: readonly V1Pod[];
  readonly adopt: readonly V1Pod[];
  readonly release: readonly V1Pod[];
};

export function claimPods(rs: V1ReplicaSet, pods: readonly V1Pod[], selects: Selector): Claim {
  const uid = rs.metadata?.uid ?? '';
  const deleting = !!rs.metadata?.deletionTimestamp;
  const claimed: V1Pod[] = [];
  const adopt: V1Pod[] = [];
  const release: V1Pod[] = [];
  for (const pod of pods) {
    if (!isPodActive(pod)) continue;
    const ref = controllerRefOf(pod);
    const matches = selects.matches(pod.metadata?.labels);
    if (ref) {
      if (ref.uid !== uid) continue; // another controller's
      if (matches) claimed.push(pod);
      else if (!deleting) release.push(pod);
      continue;
    }
    if (deleting || !matches) continue;
    if (pod.metadata?.namespace !== rs.metadata?.namespace) continue;
    adopt.push(pod);
    claimed.push(pod);
  }
  return { claimed, adopt, release };
}

/** Orphans this ReplicaSet would adopt: observe rechecks the ReplicaSet only when there are some. */
export function hasOrphansToAdopt(rs: V1ReplicaSet, pods: readonly V1Pod[], selects: Selector): boolean {
  return claimPods(rs, pods, selects).adopt.length > 0;
}

/** RecheckDeletionTimestamp: the fresh read is the same ReplicaSet and it is not being deleted. */
export function canAdopt(rs: V1ReplicaSet, fresh: V1ReplicaSet | null): boolean {
  return fresh !== null && fresh.metadata?.uid === rs.metadata?.uid && !fresh.metadata?.deletionTimestamp;
}

/**
 * Adoptions and releases as upstream's ControllerRefManager sends them: strategic merge patches of the pod's
 * ownerReferences with the pod's uid as precondition, no resourceVersion (so they do not collide with the
 * kubelet's status writes). A pod gone meanwhile is ignored; so is a release refused as Invalid (the pod was
 * recreated under another uid, or no longer names us).
 */
export function claimActions(rs: V1ReplicaSet, claim: Claim): Action[] {
  const uid = rs.metadata?.uid ?? '';
  const ref = newControllerRef({ apiVersion: RS_API_VERSION, kind: RS_KIND, name: rs.metadata?.name ?? '', uid });
  return [
    ...claim.adopt.map((pod) => adoptAction(podRef(pod), pod.metadata?.uid ?? '', ref, Reason.AdoptPod)),
    ...claim.release.map((pod) => releaseAction(podRef(pod), pod.metadata?.uid ?? '', uid, Reason.ReleasePod)),
  ];
}

function podRef(pod: V1Pod): { kind: string; namespace: string; name: string } {
  return { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' };
}
