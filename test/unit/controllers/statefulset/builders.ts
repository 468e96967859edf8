// Builders for StatefulSet planner tests: a StatefulSet `web` selecting app=web, its pods by ordinal and state,
// claims, revisions, and a fixed clock.
import { wireTime } from '../../../../shared/controllers/common/wire-time.js';
import type {
  ControllerRevision,
  PersistentVolumeClaim,
  Pod,
  StatefulSet,
  StatefulSetSpec,
  StatefulSetStatus,
} from '../../../../shared/kube/api/objects.js';
import { hashControllerRevision } from '../../../../shared/controllers/common/controller-history.js';
import { newRevision, revisionData, revisionName } from '../../../../shared/controllers/statefulset/history.js';
import { newStatefulPod } from '../../../../shared/controllers/statefulset/identity.js';
import type { ObservedStatefulSet } from '../../../../shared/controllers/statefulset/types.js';

export const NOW = new Date('2026-01-01T00:00:00Z');
export const NS = 'ns';
export const SET_UID = 'uid-sts';
export const secondsAgo = (s: number): string => new Date(NOW.getTime() - s * 1000).toISOString();

export type SetOptions = Partial<StatefulSetSpec> & {
  readonly image?: string;
  readonly status?: Partial<StatefulSetStatus>;
  readonly generation?: number;
};

export function aSet(o: SetOptions = {}): StatefulSet {
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
export const revOf = (set: StatefulSet): string => revisionName(set, hashControllerRevision(revisionData(set), 0));

export function aRevision(set: StatefulSet, revision: number, uid = `uid-cr-${revision}`): ControllerRevision {
  const cr = newRevision(set, revision);
  return { ...cr, metadata: { ...cr.metadata, uid, resourceVersion: `${revision}` } };
}

export type PodState = 'ready' | 'running' | 'pending' | 'failed' | 'succeeded' | 'terminating' | { readyFor: number };

export function aPod(set: StatefulSet, ordinal: number, state: PodState = 'ready', revisionSet = set): Pod {
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
      ...(state === 'terminating' && { deletionTimestamp: wireTime(NOW.getTime() - 1000) }),
    },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: readySince }],
    },
  };
}

export function aClaim(
  name: string,
  owners: { kind: string; name: string; uid: string }[] = [],
): PersistentVolumeClaim {
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

export const DATA_TEMPLATE: PersistentVolumeClaim = {
  metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};

export function observed(
  set: StatefulSet,
  pods: Pod[] = [],
  revisions: ControllerRevision[] = [aRevision(set, 1)],
  claims: PersistentVolumeClaim[] = [],
): ObservedStatefulSet {
  return { statefulSet: set, pods, revisions, claims };
}
