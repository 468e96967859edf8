// ControllerRefManager.ClaimReplicaSets for one Deployment: keep the ReplicaSets it controls that match its
// selector, release those that stopped matching, adopt matching orphans. Adoption and release are updates of
// the ReplicaSet's ownerReferences (upstream patches them); the Deployment we read live is the fresh read
// upstream makes before adopting.
import type { Pass } from './pass.js';
import { selectorMatches } from './replica-sets.js';
import type { Deployment, OwnerReference, ReplicaSet } from './types.js';

export function controllerOf(o: { metadata: { ownerReferences?: OwnerReference[] } }): OwnerReference | undefined {
  return o.metadata.ownerReferences?.find((r) => r.controller === true);
}

export function controllerRefTo(d: Deployment): OwnerReference {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: d.metadata.name ?? '',
    uid: d.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The ReplicaSets this Deployment now owns (adopted ones in their adopted form). */
export function claimReplicaSets(p: Pass, all: readonly ReplicaSet[]): ReplicaSet[] {
  const d = p.d;
  const deleting = d.metadata.deletionTimestamp !== undefined;
  const claimed: ReplicaSet[] = [];
  for (const rs of all) {
    const ref = controllerOf(rs);
    const matches = selectorMatches(d.spec.selector, rs.metadata.labels);
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
