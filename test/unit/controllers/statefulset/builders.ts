// Builders for StatefulSet planner tests: a StatefulSet `web` selecting app=web, its pods by ordinal and state,
// claims, revisions, and a fixed clock.
import type {
  V1ControllerRevision,
  V1PersistentVolumeClaim,
  V1Pod,
  V1StatefulSet,
  V1StatefulSetSpec,
  V1StatefulSetStatus,
} from '@kubernetes/client-node';
import { hashControllerRevision } from '../../../../shared/controllers/common/controller-history.js';
import { newRevision, revisionData, revisionName } from '../../../../shared/controllers/statefulset/history.js';
import { newStatefulPod } from '../../../../shared/controllers/statefulset/identity.js';
import type { ObservedStatefulSet } from '../../../../shared/controllers/statefulset/types.js';

export const NOW = new Date('2026-01-01T00:00:00Z');
export const NS = 'ns';
export const SET_UID = 'uid-sts';
export const secondsAgo = (s: number): string => new Date(NOW.getTime() - s * 1000).toISOString();

export type SetOptions = Partial<V1StatefulSetSpec> & {
  readonly image?: string;
  readonly status?: Partial<V1StatefulSetStatus>;
  readonly generation?: number;
};

export function aSet(o: SetOptions = {}): V1StatefulSet {
  const { image, status, generation, ...spec } = o;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: NS, uid: SET_UID, resourceVersion: '100', generation: generation ?? 1 },
    spec: {
      replicas: 3,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: image ?? 'web:1' }] },
      },
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      ...spec,
    },
    status: { replicas: 0, observedGeneration: generation ?? 1, collisionCount: 0, ...status },
  };
}

/** The name of the revision of the set's template (collisionCount 0). */
export const revOf = (set: V1StatefulSet): string => revisionName(set, hashControllerRevision(revisionData(set), 0));

export function aRevision(set: V1StatefulSet, revision: number, uid = `uid-cr-${revision}`): V1ControllerRevision {
  const cr = newRevision(set, revision);
  return { ...cr, metadata: { ...cr.metadata, uid, resourceVersion: `${revision}` } };
}

export type PodState = 'ready' | 'running' | 'pending' | 'failed' | 'succeeded' | 'terminating' | { readyFor: number };

export function aPod(set: V1StatefulSet, ordinal: number, state: PodState = 'ready', revisionSet = set): V1Pod {
  const pod = newStatefulPod(set, revisionSet.spec!.template, ordinal, revOf(revisionSet));
  const readySince = typeof state === 'object' ? secondsAgo(state.readyFor) : secondsAgo(600);
  const phase =
    state === 'pending' ? 'Pending' : state === 'failed' ? 'Failed' : state === 'succeeded' ? 'Succeeded' : 'Running';
  const ready = state === 'ready' || state === 'terminating' || typeof state === 'object';
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      uid: `uid-pod-${ordinal}`,
      resourceVersion: '1',
      ...(state === 'terminating' && { deletionTimestamp: new Date(NOW.getTime() - 1000) }),
    },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date(readySince) }],
    },
  };
}

export function aClaim(
  name: string,
  owners: { kind: string; name: string; uid: string }[] = [],
): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      resourceVersion: '7',
      labels: { app: 'web' },
      ownerReferences: owners.map((o) => ({
        apiVersion: o.kind === 'Pod' ? 'v1' : 'apps/v1',
        kind: o.kind,
        name: o.name,
        uid: o.uid,
        controller: true,
        blockOwnerDeletion: true,
      })),
    },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
}

export const DATA_TEMPLATE: V1PersistentVolumeClaim = {
  metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};

export function observed(
  set: V1StatefulSet,
  pods: V1Pod[] = [],
  revisions: V1ControllerRevision[] = [aRevision(set, 1)],
  claims: V1PersistentVolumeClaim[] = [],
): ObservedStatefulSet {
  return { statefulSet: set, pods, revisions, claims };
}
