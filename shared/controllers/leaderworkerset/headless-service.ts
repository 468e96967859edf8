// The headless Services of a LeaderWorkerSet, as lws v0.9.0's controllerutils.CreateHeadlessServiceIfNotExists
// builds them: with subdomainPolicy Shared (or no networkConfig) the LeaderWorkerSet reconciler makes one, named
// after the LeaderWorkerSet and selecting all its pods; with UniquePerReplica the pod reconciler makes one per leader
// pod, named after the pod, selecting its group and owned by the pod (it goes with the group). Either is created
// only when no Service of that name exists; an existing one is never updated.
import { newControllerRef, type Owner } from '../../kube/meta/controller-ref.js';
import type { Pod } from '../../kube/api/objects.js';
import { lwsOwner } from './leader-statefulset.js';
import { isSubdomainShared } from './spec-values.js';
import { GROUP_INDEX_LABEL, SET_NAME_LABEL, SubdomainPolicy, type LeaderWorkerSet, type Service } from './types.js';

/** CreateHeadlessServiceIfNotExists' Service: headless, publishing not-ready addresses, controlled by `owner`. */
export function headlessService(
  lws: LeaderWorkerSet,
  name: string,
  selector: Readonly<Record<string, string>>,
  owner: Owner,
): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: lws.metadata.namespace,
      labels: { [SET_NAME_LABEL]: lws.metadata.name ?? '' },
      ownerReferences: [newControllerRef(owner)],
    },
    spec: { clusterIP: 'None', selector: { ...selector }, publishNotReadyAddresses: true },
  };
}

/** reconcileHeadlessServices: the LeaderWorkerSet's shared Service, or null when each group has its own. */
export function sharedHeadlessService(lws: LeaderWorkerSet): Service | null {
  if (!isSubdomainShared(lws)) return null;
  const name = lws.metadata.name ?? '';
  return headlessService(lws, name, { [SET_NAME_LABEL]: name }, lwsOwner(lws));
}

/** The pod reconciler's Service for a leader pod under UniquePerReplica, or null under Shared. */
export function groupHeadlessService(lws: LeaderWorkerSet, leaderPod: Pod): Service | null {
  if (lws.spec.networkConfig?.subdomainPolicy !== SubdomainPolicy.UniquePerReplica) return null;
  const podName = leaderPod.metadata?.name ?? '';
  return headlessService(
    lws,
    podName,
    {
      [SET_NAME_LABEL]: lws.metadata.name ?? '',
      [GROUP_INDEX_LABEL]: leaderPod.metadata?.labels?.[GROUP_INDEX_LABEL] ?? '',
    },
    { apiVersion: 'v1', kind: 'Pod', name: podName, uid: leaderPod.metadata?.uid ?? '' },
  );
}
