// ControllerRefManager.ClaimReplicaSets for one Deployment: keep the ReplicaSets it controls that match its
// selector, release those that stopped matching, adopt matching orphans. Adoption and release are updates of
// the ReplicaSet's ownerReferences (upstream patches them); before adopting, observe reads the Deployment
// fresh (uncached, as upstream's canAdopt does).
//
// An invalid selector fails the sync, as getReplicaSetsForDeployment returns its error upstream (observe
// throws first; the planner would too).
import { controllerRefOf, newControllerRef, type OwnerReference } from '../../kube/meta/controller-ref.js';
import { selectorOf } from '../../kube/meta/label-selector.js';
import type { Pass } from './pass.js';
import type { Deployment, ReplicaSet } from './types.js';

export function controllerRefTo(d: Deployment): OwnerReference {
  return newControllerRef({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: d.metadata.name ?? '',
    uid: d.metadata.uid ?? '',
  });
}

/** The ReplicaSets this Deployment now owns (adopted ones in their adopted form). */
export function claimReplicaSets(p: Pass, all: readonly ReplicaSet[]): ReplicaSet[] {
  const d = p.d;
  const deleting = d.metadata.deletionTimestamp !== undefined;
  const selector = selectorOf(d.spec.selector);
  const claimed: ReplicaSet[] = [];
  for (const rs of all) {
    const ref = controllerRefOf(rs);
    const matches = selector.matches(rs.metadata.labels);
    if (ref) {
      if (ref.uid !== d.metadata.uid) continue;
      if (matches) claimed.push(rs);
      else if (!deleting) {
        p.update(rs, 'ReleasedReplicaSet', (copy) => {
          copy.metadata.ownerReferences = (copy.metadata.ownerReferences ?? []).filter((r) => r.uid !== d.metadata.uid);
        });
      }
      continue;
    }
    if (deleting || !matches || rs.metadata.deletionTimestamp !== undefined) continue;
    if (rs.metadata.namespace !== d.metadata.namespace) continue;
    claimed.push(
      p.update(rs, 'AdoptedReplicaSet', (copy) => {
        copy.metadata.ownerReferences = [...(copy.metadata.ownerReferences ?? []), controllerRefTo(d)];
      }),
    );
  }
  return claimed;
}
