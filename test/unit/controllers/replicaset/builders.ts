// Builders for ReplicaSet planner tests: a ReplicaSet selecting app=web, pods described by what the rules
// look at, and a fixed clock.
import { wireTime } from '../../../../shared/controllers/common/wire-time.js';
import type { OwnerReference, Pod, ReplicaSet, ReplicaSetStatus } from '../../../../shared/kube/api/objects.js';
import { POD_DELETION_COST } from '../../../../shared/controllers/pod-utils/deletion-rank.js';
import type { ObservedReplicaSet } from '../../../../shared/controllers/replicaset/types.js';

export const NOW = new Date('2026-01-01T00:00:00Z');
export const NS = 'ns';
export const RS_NAME = 'web';
export const RS_UID = 'uid-rs';
export const LABELS = { app: 'web' } as const;

export const secondsAgo = (s: number): string => wireTime(NOW.getTime() - s * 1000);

export const rsRef: OwnerReference = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  name: RS_NAME,
  uid: RS_UID,
  controller: true,
  blockOwnerDeletion: true,
};

export type RsOptions = {
  readonly replicas?: number;
  readonly minReadySeconds?: number;
  readonly generation?: number;
  readonly status?: ReplicaSetStatus;
  readonly deleting?: boolean;
  readonly controlledBy?: string;
};

export function aReplicaSet(o: RsOptions = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: RS_NAME,
      namespace: NS,
      uid: RS_UID,
      resourceVersion: '100',
      generation: o.generation ?? 1,
      ...(o.deleting && { deletionTimestamp: secondsAgo(1) }),
      ...(o.controlledBy && {
        ownerReferences: [{ ...rsRef, kind: 'Deployment', name: 'dep', uid: o.controlledBy }],
      }),
    },
    spec: {
      replicas: o.replicas ?? 1,
      ...(o.minReadySeconds !== undefined && { minReadySeconds: o.minReadySeconds }),
      selector: { matchLabels: { ...LABELS } },
      template: {
        metadata: { labels: { ...LABELS, tier: 'front' } },
        spec: { containers: [{ name: 'app', image: 'app:1' }] },
      },
    },
    ...(o.status && { status: o.status }),
  };
}

export type PodOptions = {
  /** 'rs' (default): controlled by the ReplicaSet; 'none': orphan; else the uid of another controller. */
  readonly owner?: 'rs' | 'none' | string;
  readonly labels?: Record<string, string>;
  readonly phase?: string;
  /** Ready since this many seconds ago; undefined: not ready. */
  readonly readyFor?: number;
  readonly node?: string;
  readonly deleting?: boolean;
  readonly cost?: string;
  readonly restarts?: number;
  readonly sidecarRestarts?: number;
  readonly age?: number;
  readonly uid?: string;
};

export function aPod(name: string, o: PodOptions = {}): Pod {
  const owner = o.owner ?? 'rs';
  const ownerReferences =
    owner === 'rs' ? [rsRef] : owner === 'none' ? undefined : [{ ...rsRef, name: 'other', uid: owner }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NS,
      uid: o.uid ?? `uid-${name}`,
      resourceVersion: '7',
      labels: o.labels ?? { ...LABELS, tier: 'front' },
      creationTimestamp: secondsAgo(o.age ?? 3600),
      ...(ownerReferences && { ownerReferences }),
      ...(o.deleting && { deletionTimestamp: secondsAgo(1) }),
      ...(o.cost !== undefined && { annotations: { [POD_DELETION_COST]: o.cost } }),
    },
    spec: {
      containers: [{ name: 'app', image: 'app:1' }],
      ...(o.sidecarRestarts !== undefined && {
        initContainers: [{ name: 'proxy', image: 'proxy:1', restartPolicy: 'Always' }],
      }),
      ...(o.node !== '' && { nodeName: o.node ?? 'node-1' }),
    },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [
        o.readyFor === undefined
          ? { type: 'Ready', status: 'False' }
          : { type: 'Ready', status: 'True', lastTransitionTime: secondsAgo(o.readyFor) },
      ],
      containerStatuses: [{ name: 'app', image: 'app:1', imageID: '', ready: true, restartCount: o.restarts ?? 0 }],
      ...(o.sidecarRestarts !== undefined && {
        initContainerStatuses: [
          { name: 'proxy', image: 'proxy:1', imageID: '', ready: true, restartCount: o.sidecarRestarts },
        ],
      }),
    },
  };
}

/** n ready, running pods named `<prefix>-<i>`. */
export function readyPods(n: number, prefix = 'p', o: PodOptions = {}): Pod[] {
  return Array.from({ length: n }, (_, i) => aPod(`${prefix}-${i}`, { readyFor: 600, ...o }));
}

export function observed(
  rs: ReplicaSet | null,
  pods: Pod[],
  extra: Partial<Pick<ObservedReplicaSet, 'relatedPods' | 'adoptionRecheck'>> = {},
): ObservedReplicaSet {
  return { replicaSet: rs, pods, relatedPods: extra.relatedPods ?? [], ...extra };
}

/** A status as the planner writes it. */
export function aStatus(s: Partial<ReplicaSetStatus> = {}): ReplicaSetStatus {
  return {
    replicas: 0,
    fullyLabeledReplicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    terminatingReplicas: 0,
    observedGeneration: 1,
    ...s,
  };
}
