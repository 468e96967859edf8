// Builders for DaemonSet planner tests: a DaemonSet selecting app=agent, nodes with labels and taints, daemon pods
// pinned to a node and described by what the rules look at, and a fixed clock.
import type {
  ControllerRevision,
  DaemonSet,
  DaemonSetStatus,
  DaemonSetUpdateStrategy,
  Node,
  Pod,
  PodSpec,
  Taint,
} from '../../../../shared/kube/api/objects.js';
import { revisionData, templateHash } from '../../../../shared/controllers/daemonset/history.js';
import { pinnedAffinity } from '../../../../shared/controllers/daemonset/pod-template.js';
import type { ObservedDaemonSet } from '../../../../shared/controllers/daemonset/types.js';

export const NOW = new Date('2026-01-01T00:00:00Z');
export const NS = 'ns';
export const DS_NAME = 'agent';
export const DS_UID = 'uid-ds';
export const LABELS = { app: 'agent' } as const;

export const secondsAgo = (s: number): string => new Date(NOW.getTime() - s * 1000).toISOString();

export const dsRef = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  name: DS_NAME,
  uid: DS_UID,
  controller: true,
  blockOwnerDeletion: true,
};

export type DsOptions = {
  readonly image?: string;
  readonly spec?: Partial<PodSpec>;
  readonly strategy?: 'OnDelete' | { maxUnavailable?: number | string; maxSurge?: number | string };
  readonly minReadySeconds?: number;
  readonly revisionHistoryLimit?: number;
  readonly generation?: number;
  readonly status?: Partial<DaemonSetStatus>;
  readonly annotations?: Record<string, string>;
};

export function aDaemonSet(o: DsOptions = {}): DaemonSet {
  const strategy =
    o.strategy === 'OnDelete'
      ? { type: 'OnDelete' }
      : { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0, ...o.strategy } };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: DS_NAME,
      namespace: NS,
      uid: DS_UID,
      resourceVersion: '100',
      generation: o.generation ?? 1,
      ...(o.annotations && { annotations: o.annotations }),
    },
    spec: {
      selector: { matchLabels: { ...LABELS } },
      template: {
        metadata: { labels: { ...LABELS } },
        spec: { containers: [{ name: 'c', image: o.image ?? 'agent:1' }], ...o.spec },
      },
      updateStrategy: strategy as DaemonSetUpdateStrategy,
      revisionHistoryLimit: o.revisionHistoryLimit ?? 10,
      ...(o.minReadySeconds !== undefined && { minReadySeconds: o.minReadySeconds }),
    },
    status: {
      currentNumberScheduled: 0,
      desiredNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
      observedGeneration: o.generation ?? 1,
      ...o.status,
    },
  };
}

export function aNode(name: string, o: { labels?: Record<string, string>; taints?: Taint[] } = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } },
    spec: { ...(o.taints && { taints: o.taints }) },
  };
}

export type PodOptions = {
  /** The revision hash label; default: the DaemonSet's current one. */
  readonly hash?: string;
  readonly phase?: 'Pending' | 'Running' | 'Failed' | 'Succeeded';
  /** Ready since this many seconds; undefined: not ready. */
  readonly readyFor?: number;
  readonly age?: number;
  readonly bound?: boolean;
  readonly deleting?: boolean;
};

let podCounter = 0;
export function aPod(ds: DaemonSet, node: string, o: PodOptions = {}): Pod {
  const n = ++podCounter;
  const name = `${DS_NAME}-${node}-${n}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      creationTimestamp: secondsAgo(o.age ?? 100),
      labels: { ...LABELS, 'controller-revision-hash': o.hash ?? templateHash(ds) },
      ownerReferences: [dsRef],
      ...(o.deleting && { deletionTimestamp: secondsAgo(1) }),
    },
    spec: {
      containers: [{ name: 'c', image: 'agent' }],
      affinity: pinnedAffinity(undefined, node),
      ...(o.bound !== false && { nodeName: node }),
    },
    status: {
      phase: o.phase ?? 'Running',
      conditions:
        o.readyFor === undefined
          ? [{ type: 'Ready', status: 'False' }]
          : [{ type: 'Ready', status: 'True', lastTransitionTime: secondsAgo(o.readyFor) }],
    },
  };
}

/** The DaemonSet's current revision, as the controller created it. */
export function currentRevision(ds: DaemonSet, revision = 1): ControllerRevision {
  const hash = templateHash(ds);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${DS_NAME}-${hash}`,
      namespace: NS,
      uid: `uid-cr-${hash}`,
      resourceVersion: '50',
      labels: { ...LABELS, 'controller-revision-hash': hash },
      ownerReferences: [dsRef],
    },
    data: JSON.parse(revisionData(ds)) as object,
    revision,
  };
}

export function observed(
  ds: DaemonSet,
  nodes: readonly Node[],
  pods: readonly Pod[],
  revisions: readonly ControllerRevision[] = [currentRevision(ds)],
): ObservedDaemonSet {
  return { daemonSet: ds, nodes, pods, revisions };
}

export const taint = (key: string, effect: string, value?: string): Taint => ({
  key,
  effect,
  ...(value !== undefined && { value }),
});
